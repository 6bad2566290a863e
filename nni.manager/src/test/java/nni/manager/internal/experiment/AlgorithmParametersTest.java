package nni.manager.internal.experiment;

import static org.awaitility.Awaitility.await;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import org.junit.After;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import nni.api.model.TrialStatus;
import nni.api.tuner.Tuner;

/**
 * Issue 25: nothing a Java tuner produces is lost, and a resumed tuner does not run again what the
 * experiment already has. Real local trials (python3 with the shipped SDK).
 */
public class AlgorithmParametersTest {

    @Rule
    public TemporaryFolder folder = new TemporaryFolder();

    private Experiment experiment;

    @After
    public void stopExperiment() {
        if (experiment != null) {
            experiment.stop(Duration.ofSeconds(10));
        }
    }

    /** Draws x = 0, 1, 2, ... from its own counter, as a seeded tuner draws the same sequence each time it is made. */
    private static class SeededTuner implements Tuner {
        private long drawn;

        @Override
        public Optional<Map<String, Object>> generateParameters(long parameterId) {
            return Optional.of(Map.of("x", drawn++));
        }

        @Override
        public void receiveTrialResult(long parameterId, Map<String, Object> parameters, double value) {
        }
    }

    private void exhaustedSpaceAtConcurrency(int concurrency) throws Exception {
        Path code = folder.newFolder("code" + concurrency).toPath();
        Files.writeString(code.resolve("trial.py"), """
                import nni
                nni.report_final_result(nni.get_next_parameter()['x'])
                """);
        Experiments setup = new Experiments(code, folder.newFolder("experiments" + concurrency).toPath());
        setup.concurrency = concurrency;
        setup.maxTrials = 8;
        // two parameter sets, then "no more" inside the same request
        experiment = setup.start("exhaust" + concurrency, new ListTuner(2), null);
        assertEquals(ExperimentStatus.DONE, experiment.settled().get(60, TimeUnit.SECONDS));
        List<TrialView> trials = experiment.trials();
        assertEquals(trials.toString(), List.of(0.0, 1.0), trials.stream().map(TrialView::finalValue).sorted().toList());
        assertTrue(trials.toString(), trials.stream().allMatch(t -> t.job().status() == TrialStatus.SUCCEEDED));
        experiment.stop(Duration.ofSeconds(10));
        experiment = null;
    }

    @Test(timeout = 120_000)
    public void aTunerThatRunsOutMidRequestHasEveryParameterItGaveRun() throws Exception {
        for (int concurrency : List.of(4, 2, 1)) {
            exhaustedSpaceAtConcurrency(concurrency);
        }
    }

    @Test(timeout = 60_000)
    public void aJavaTunerThatThrowsEndsTheExperimentInErrorWithItsMessage() throws Exception {
        Path code = folder.newFolder("code").toPath();
        Files.writeString(code.resolve("trial.py"), "import nni\nnni.report_final_result(nni.get_next_parameter()['x'])\n");
        Experiments setup = new Experiments(code, folder.newFolder("experiments").toPath());
        setup.concurrency = 1;
        setup.maxTrials = 5;
        Tuner throwsOnSecond = new SeededTuner() {
            @Override
            public Optional<Map<String, Object>> generateParameters(long parameterId) {
                if (parameterId == 1) {
                    throw new IllegalStateException("the model diverged");
                }
                return super.generateParameters(parameterId);
            }
        };
        experiment = setup.start("throws01", throwsOnSecond, null);
        assertEquals(ExperimentStatus.ERROR, experiment.settled().get(50, TimeUnit.SECONDS));
        assertTrue(experiment.errors().toString(), experiment.errors().stream().anyMatch(e -> e.contains("the model diverged")));
    }

    @Test(timeout = 120_000)
    public void aResumedSeededTunerDoesNotRunAgainWhatTheExperimentHas() throws Exception {
        Path code = folder.newFolder("code").toPath();
        Files.writeString(code.resolve("trial.py"), """
                import os, time, nni
                x = nni.get_next_parameter()['x']
                while x == 2 and not os.path.exists('%s'):
                    time.sleep(0.1)
                nni.report_final_result(x)
                """.formatted(code.resolve("release").toString()));
        Experiments setup = new Experiments(code, folder.newFolder("experiments").toPath());
        setup.concurrency = 1;
        setup.maxTrials = 5;
        experiment = setup.start("seeded01", new SeededTuner(), null);
        // x = 0 and 1 succeeded, x = 2 runs (it waits for the release file): the runtime lets go
        await().atMost(Duration.ofSeconds(60)).until(() -> experiment.trials().size() == 3
                && experiment.trials().get(2).job().status() == TrialStatus.RUNNING);
        experiment.detach();
        experiment = null;

        Files.writeString(code.resolve("release"), "");
        experiment = setup.resume("seeded01", new SeededTuner());
        assertEquals(3, experiment.trialsWhenOpened());
        assertEquals(ExperimentStatus.DONE, experiment.settled().get(60, TimeUnit.SECONDS));
        List<TrialView> trials = experiment.trials();
        // the new tuner drew 0, 1, 2 again: passed over, each x became one trial
        assertEquals(trials.toString(), List.of(0.0, 1.0, 2.0, 3.0, 4.0), trials.stream().map(TrialView::finalValue).toList());
        assertEquals(3, experiment.trialsWhenOpened());
    }
}
