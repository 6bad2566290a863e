package nni.manager.internal.experiment;

import static org.awaitility.Awaitility.await;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.Test;

import nni.api.config.ConfigProblem;
import nni.api.model.TrialStatus;
import nni.api.tuner.AlgorithmSection;
import nni.api.tuner.Dispatcher;
import nni.api.tuner.DispatcherContext;
import nni.api.tuner.DispatcherProvider;
import nni.tuners.internal.JavaAlgorithmRun;

/**
 * An algorithm that fails over the last results it was given, as NNI's dispatcher does: its worker
 * raised, and the dispatcher notices only at the next command (a ping after the end, or the close's
 * {@code TE}). The experiment that ended by itself turns ERROR, and its stop waits for the algorithm
 * to end; a stop asked while trials ran does not count the algorithm's failure.
 */
public class AlgorithmFailureAtTheEndTest extends ExperimentTestSupport {

    private static final String RAISED = "the dispatcher ended after its algorithm raised an error";

    private HeldSession session;
    private DispatcherContext context;
    private final CountDownLatch closed = new CountDownLatch(1);
    private final CompletableFuture<Void> ended = new CompletableFuture<>();

    /** NNI's dispatcher in short: trials from a list, and an end the test decides. */
    private final class EndsLater implements Dispatcher {
        private final JavaAlgorithmRun run;

        EndsLater(JavaAlgorithmRun run) {
            this.run = run;
        }

        @Override
        public void requestTrials(int count) {
            run.requestTrials(count);
        }

        @Override
        public void reportMetric(String metric) {
            run.reportMetric(metric);
        }

        @Override
        public boolean wantsIntermediateResults() {
            return false;
        }

        @Override
        public void trialEnded(String trialId, TrialStatus status, String hyperParameters) {
            run.trialEnded(trialId, status, hyperParameters);
        }

        @Override
        public void updateSearchSpace(Map<String, Object> searchSpace) {
        }

        @Override
        public void importData(String results) {
        }

        @Override
        public void close() {
            closed.countDown();
        }

        @Override
        public CompletionStage<Void> ended() {
            return ended;
        }
    }

    private void start(int maxTrials) throws Exception {
        setup.concurrency = 1;
        setup.maxTrials = maxTrials;
        experiment = Experiment.create("atend001", setup.config());
        DispatcherProvider provider = new DispatcherProvider() {
            @Override
            public List<ConfigProblem> checkAlgorithms(AlgorithmSection tunerSection, AlgorithmSection assessorSection) {
                return List.of();
            }

            @Override
            public List<ConfigProblem> checkSearchSpace(AlgorithmSection tunerSection, Object searchSpace) {
                return List.of();
            }

            @Override
            public String runsThrough() {
                return "the test's dispatcher";
            }

            @Override
            public Dispatcher start(DispatcherContext given) {
                context = given;
                return new EndsLater(new JavaAlgorithmRun(given, new ListTuner(maxTrials), null));
            }
        };
        experiment.start(new DispatcherAlgorithm(provider, experiment.id(), experiment.directory(), experiment.config()),
                member -> session = new HeldSession(member));
        await().atMost(Duration.ofSeconds(20)).until(() -> session != null && !session.submitted.isEmpty());
    }

    /** Stops the experiment on another thread; the algorithm fails and ends once it was closed. */
    private void stopWhileTheAlgorithmFailsAsItEnds() throws Exception {
        CompletableFuture<Void> stop = CompletableFuture.runAsync(() -> experiment.stop(Duration.ofSeconds(10)));
        assertTrue("the algorithm was closed", closed.await(20, TimeUnit.SECONDS));
        context.failed(RAISED);
        ended.complete(null);
        stop.get(30, TimeUnit.SECONDS);
    }

    @Test(timeout = 60_000)
    public void anAlgorithmFailingAfterTheExperimentEndedByItselfMakesItError() throws Exception {
        start(1);
        session.finish(session.submitted.get(0), List.of(), 1.0, TrialStatus.SUCCEEDED);
        assertEquals(ExperimentStatus.DONE, experiment.settled().get(20, TimeUnit.SECONDS));
        context.failed(RAISED);
        await().atMost(Duration.ofSeconds(20)).until(() -> experiment.status() == ExperimentStatus.ERROR);
        assertEquals(List.of(RAISED), experiment.errors());
    }

    @Test(timeout = 60_000)
    public void theStopOfAnExperimentThatEndedByItselfWaitsForItsAlgorithmAndCountsItsFailure() throws Exception {
        start(1);
        session.finish(session.submitted.get(0), List.of(), 1.0, TrialStatus.SUCCEEDED);
        assertEquals(ExperimentStatus.DONE, experiment.settled().get(20, TimeUnit.SECONDS));
        stopWhileTheAlgorithmFailsAsItEnds();
        assertEquals(ExperimentStatus.ERROR, experiment.status());
        assertEquals(List.of(RAISED), experiment.errors());
    }

    @Test(timeout = 60_000)
    public void aStopAskedWhileTrialsRunDoesNotCountTheAlgorithmsFailureAsItEnds() throws Exception {
        start(2);
        stopWhileTheAlgorithmFailsAsItEnds();
        assertEquals(ExperimentStatus.STOPPED, experiment.status());
        assertEquals(List.of(), experiment.errors());
    }
}
