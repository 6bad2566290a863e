package nni.manager.internal.experiment;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import org.junit.Test;

import nni.api.model.HyperParameters;
import nni.api.model.TrialJob;
import nni.api.model.TrialStatus;

/** Issue 29: nni:top's "left" comes from the finished trials and does not grow while trials run. */
public class TimeLeftTest {

    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

    private static TrialJob trial(String id, TrialStatus status, Integer startSecond, Integer endSecond) {
        return TrialJob.builder(id).hyperParameters(HyperParameters.of("{}", 0)).status(status).submitTime(T0)
                .startTime(startSecond == null ? null : T0.plusSeconds(startSecond))
                .endTime(endSecond == null ? null : T0.plusSeconds(endSecond)).build();
    }

    @Test
    public void unknownUntilATrialFinished() {
        assertNull(TimeLeft.estimate(List.of(trial("a", TrialStatus.RUNNING, 0, null)), 4, 1, T0.plusSeconds(50)));
    }

    @Test
    public void meanOfFinishedTrialsTimesRemainingOverConcurrency() {
        // two finished trials of 10 s and 30 s: 20 s each; 6 remain, 2 at once: 60 s
        List<TrialJob> trials = List.of(trial("a", TrialStatus.SUCCEEDED, 0, 10), trial("b", TrialStatus.FAILED, 0, 30));
        assertEquals(Duration.ofSeconds(60), TimeLeft.estimate(trials, 8, 2, T0.plusSeconds(30)));
    }

    @Test
    public void shrinksWhileTrialsRunAndNeverGrowsBetweenFinishes() {
        List<TrialJob> trials = List.of(trial("a", TrialStatus.SUCCEEDED, 0, 20), trial("b", TrialStatus.RUNNING, 20, null));
        Duration previous = null;
        for (int second = 20; second <= 200; second += 5) {
            Duration left = TimeLeft.estimate(trials, 4, 1, T0.plusSeconds(second));
            assertTrue(second + ": " + left + " after " + previous, previous == null || left.compareTo(previous) <= 0);
            previous = left;
        }
        // 3 to go at 20 s each, the running one counted as done once it ran the mean
        assertEquals(Duration.ofSeconds(40), previous);
    }

    @Test
    public void fewerRemainingThanConcurrencyRunOnlyThatManyAtOnce() {
        List<TrialJob> trials = List.of(trial("a", TrialStatus.SUCCEEDED, 0, 10), trial("b", TrialStatus.SUCCEEDED, 0, 10),
                trial("c", TrialStatus.SUCCEEDED, 0, 10));
        assertEquals(Duration.ofSeconds(10), TimeLeft.estimate(trials, 4, 8, T0.plusSeconds(10)));
        assertEquals(Duration.ZERO, TimeLeft.estimate(trials, 3, 8, T0.plusSeconds(10)));
    }

    @Test
    public void aTrialCancelledBeforeItRanCountsAsEndedButNotInTheMean() {
        List<TrialJob> trials = List.of(trial("a", TrialStatus.SUCCEEDED, 0, 10), trial("b", TrialStatus.USER_CANCELED, null, null));
        assertEquals(Duration.ofSeconds(20), TimeLeft.estimate(trials, 4, 1, T0.plusSeconds(10)));
    }
}
