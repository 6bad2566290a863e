package nni.tuners.internal;

import static org.junit.Assert.assertEquals;

import java.util.List;
import java.util.Map;

import org.junit.Test;

import nni.api.tuner.Assessor;
import nni.api.tuner.Assessor.Verdict;

/** NNI's median stopping rule on a fixed history. */
public class MedianstopAssessorTest {

    private static Assessor assessor(Map<String, Object> args) {
        return new MedianstopAssessorProvider().create(args);
    }

    private static void complete(Assessor assessor, String id, List<Double> curve) {
        assessor.assessTrial(id, curve);
        assessor.trialEnd(id, true);
    }

    @Test
    public void maximizeStopsBelowTheLowerMedianOfRunningAverages() {
        Assessor a = assessor(Map.of());
        complete(a, "A", List.of(1.0, 3.0, 5.0));   // running averages 1, 2, 3
        complete(a, "B", List.of(2.0, 2.0, 2.0));   // 2, 2, 2
        complete(a, "C", List.of(4.0, 6.0));        // 4, 5
        // step 2: averages {2, 2, 5} -> lower median 2
        assertEquals(Verdict.BAD, a.assessTrial("X", List.of(1.5, 1.9)));
        assertEquals(Verdict.GOOD, a.assessTrial("Y", List.of(1.0, 2.0)));   // best 2 == median: a tie is good
        // step 3: only A and B have 3 points: {2, 3} -> lower median 2
        assertEquals(Verdict.GOOD, a.assessTrial("Z", List.of(0.0, 0.0, 2.5)));
        assertEquals(Verdict.BAD, a.assessTrial("W", List.of(0.0, 0.0, 1.9)));
        // step 4: nobody completed with 4 points
        assertEquals(Verdict.GOOD, a.assessTrial("V", List.of(0.0, 0.0, 0.0, 0.0)));
    }

    @Test
    public void minimizeUsesTheUpperMedianAndTheMinimum() {
        Assessor a = assessor(Map.of("optimize_mode", "minimize"));
        complete(a, "A", List.of(1.0, 1.0));   // 1, 1
        complete(a, "B", List.of(3.0, 3.0));   // 3, 3
        // step 2: {1, 3} -> upper median 3
        assertEquals(Verdict.GOOD, a.assessTrial("X", List.of(5.0, 3.0)));
        assertEquals(Verdict.BAD, a.assessTrial("Y", List.of(5.0, 3.5)));
    }

    @Test
    public void failedAndEarlyStoppedTrialsNeverEnterThePool() {
        Assessor a = assessor(Map.of());
        a.assessTrial("F", List.of(100.0, 100.0));
        a.trialEnd("F", false);
        assertEquals(Verdict.GOOD, a.assessTrial("X", List.of(0.0, 0.0)));
        complete(a, "A", List.of(1.0, 1.0));
        assertEquals(Verdict.BAD, a.assessTrial("X", List.of(0.0, 0.5)));
    }

    @Test
    public void nothingIsJudgedBeforeStartStep() {
        Assessor a = assessor(Map.of("start_step", 3));
        complete(a, "A", List.of(9.0, 9.0, 9.0));
        assertEquals(Verdict.GOOD, a.assessTrial("X", List.of(0.0, 0.0)));
        assertEquals(Verdict.BAD, a.assessTrial("X", List.of(0.0, 0.0, 0.0)));
    }

    @Test
    public void classArgsAreChecked() {
        assertEquals("optimize_mode", new MedianstopAssessorProvider().checkArguments(Map.of("optimize_mode", "aaaaaa")).get(0).path());
        assertEquals("start_step", new MedianstopAssessorProvider().checkArguments(Map.of("start_step", -1)).get(0).path());
    }
}
