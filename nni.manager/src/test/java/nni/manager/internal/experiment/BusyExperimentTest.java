package nni.manager.internal.experiment;

import static org.awaitility.Awaitility.await;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import nni.api.experiment.ExperimentUpdate;


/**
 * An experiment allowed a very high concurrency keeps its thread busy submitting: a stop must
 * still get through at once, and numbers it is updated with are checked, never clamped.
 */
public class BusyExperimentTest {

    @Rule
    public TemporaryFolder folder = new TemporaryFolder();

    /** Every trial runs "forever" in it; cancelling ends it. */
    private final AtomicReference<HeldSession> session = new AtomicReference<>();

    private Experiment busyExperiment() throws Exception {
        Experiments setup = new Experiments(folder.newFolder("code").toPath(), folder.newFolder("experiments").toPath());
        setup.concurrency = 1_000_000;
        setup.maxTrials = 1_000_000;
        Experiment experiment = Experiment.create("busy0001", setup.config());
        experiment.start(JavaRuns.of(experiment, new ListTuner(2_000_000), null), member -> {
            session.set(new HeldSession(member));
            return session.get();
        });
        // it is submitting (every submission is a row in the store): thousands of trials to go
        await().atMost(Duration.ofSeconds(30)).until(() -> session.get().submitted.size() > 200);
        return experiment;
    }

    @Test(timeout = 60_000)
    public void anExperimentBusySubmittingStopsAtOnce() throws Exception {
        Experiment experiment = busyExperiment();
        long start = System.nanoTime();
        CompletableFuture<Void> stop = CompletableFuture.runAsync(() -> experiment.stop(Duration.ofSeconds(20)));
        stop.get(45, TimeUnit.SECONDS);
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertEquals(ExperimentStatus.STOPPED, experiment.status());
        assertEquals(ExperimentStatus.STOPPED, experiment.settled().getNow(null));
        int submitted = session.get().submitted.size();
        assertTrue("every trial submitted was cancelled",
                session.get().trials().stream().allMatch(job -> job.status().isTerminal()));
        System.out.printf("stopped a busy experiment (%d trials submitted) in %d ms%n", submitted, millis);
    }

    @Test(timeout = 60_000)
    public void updatesAreRangeCheckedNotClamped() throws Exception {
        Experiment experiment = busyExperiment();
        try {
            // a value out of range never reaches the experiment: it is refused where it is parsed
            Object[][] refused = {
                {ExperimentUpdate.TRIAL_CONCURRENCY, 4294967297L},
                {ExperimentUpdate.TRIAL_CONCURRENCY, new java.math.BigDecimal("1e309")},
                {ExperimentUpdate.TRIAL_CONCURRENCY, -1},
                {ExperimentUpdate.TRIAL_CONCURRENCY, 2.5},
                {ExperimentUpdate.MAX_TRIAL_NUMBER, new java.math.BigDecimal("3e9")},
                {ExperimentUpdate.MAX_TRIAL_NUMBER, 3_000_000_000L},
                {ExperimentUpdate.MAX_EXPERIMENT_DURATION, "1e400h"},
                {ExperimentUpdate.MAX_EXPERIMENT_DURATION, Long.MAX_VALUE},
            };
            for (Object[] c : refused) {
                String message = ExperimentUpdate.of((String) c[0], c[1]).refusal()
                        .orElseThrow(() -> new AssertionError(c[0] + " " + c[1] + " was accepted")).message();
                assertTrue(message, message.startsWith(c[0] + ": expected"));
            }
            assertEquals(1_000_000, experiment.config().trialConcurrency());
            assertEquals(Integer.valueOf(1_000_000), experiment.config().maxTrialNumber());
            experiment.update(ExperimentUpdate.of(ExperimentUpdate.TRIAL_CONCURRENCY, 7).value());
            assertEquals(7, experiment.config().trialConcurrency());
        } finally {
            experiment.stop(Duration.ofSeconds(20));
        }
    }
}
