package nni.manager.internal.experiment;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.util.EnumMap;
import java.util.Map;
import java.util.Optional;

import org.junit.Test;

import nni.api.model.TrialStatus;

/** The one vocabulary of trial counts: what each status counts as, the text every face prints, a limit below what started. */
public class TrialCountsTest {

    private static Map<TrialStatus, Integer> statuses(Object... pairs) {
        Map<TrialStatus, Integer> counts = new EnumMap<>(TrialStatus.class);
        for (int i = 0; i < pairs.length; i += 2) {
            counts.put((TrialStatus) pairs[i], (Integer) pairs[i + 1]);
        }
        return counts;
    }

    @Test
    public void eachStatusCountsOnceAndTheTextSaysWhatEachIs() {
        TrialCounts counts = TrialCounts.of(statuses(TrialStatus.SUCCEEDED, 14, TrialStatus.FAILED, 5, TrialStatus.SYS_CANCELED, 1,
                TrialStatus.EARLY_STOPPED, 2, TrialStatus.USER_CANCELED, 3, TrialStatus.RUNNING, 1, TrialStatus.UNKNOWN, 1,
                TrialStatus.WAITING, 4), 40);
        assertEquals(new TrialCounts(14, 6, 2, 3, 2, 4, 31, 40), counts);
        assertEquals(25, counts.ended());
        assertEquals("succeeded 14  failed 6  stopped early 2  cancelled 3  running 2  waiting 4  of max 40", counts.text());
        assertEquals(Optional.empty(), counts.belowStarted());
    }

    @Test
    public void anEndedExperimentReadsAsItEnded() {
        // nni:top said "done 14/20 failed 6" where nni:experiments said 20/20
        TrialCounts counts = TrialCounts.of(statuses(TrialStatus.SUCCEEDED, 14, TrialStatus.FAILED, 6), 20);
        assertEquals("succeeded 14  failed 6  of max 20", counts.text());
        assertEquals("succeeded 0  failed 0  no max", TrialCounts.of(Map.of(), null).text());
    }

    @Test
    public void aMaxBelowTheTrialsStartedIsSaid() {
        // was "done 10/8"
        TrialCounts counts = TrialCounts.of(statuses(TrialStatus.SUCCEEDED, 9, TrialStatus.RUNNING, 1), 8);
        assertEquals("succeeded 9  failed 0  running 1  of max 8", counts.text());
        assertEquals(Optional.of("max trials 8 is below the 10 trials already started: no more will start"), counts.belowStarted());
        assertEquals(Optional.empty(), TrialCounts.of(statuses(TrialStatus.SUCCEEDED, 8), 8).belowStarted());
        Map<String, Object> json = counts.json();
        assertEquals(10, json.get("started"));
        assertEquals(counts.text(), json.get("text"));
        assertTrue(String.valueOf(json.get("belowStarted")).startsWith("max trials 8"));
    }
}
