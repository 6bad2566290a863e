package nni.manager.internal.experiment;

import static org.awaitility.Awaitility.await;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.LongStream;

import org.junit.After;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import nni.api.model.TrialStatus;
import nni.store.ExperimentStore;
import nni.store.MetricRecord;
import nni.store.StoreException;
import nni.store.TrialRecord;

/**
 * kill -9 of the process running an experiment, then resume: trials still running are taken back
 * (pid and start time), nothing acknowledged is lost, sequence ids go on without gap or repeat.
 */
public class ResumeAfterKillTest {

    private static final int TRIALS = 10;

    @Rule
    public TemporaryFolder folder = new TemporaryFolder();

    private Process runtime;
    private Experiment resumed;

    @After
    public void cleanUp() throws InterruptedException {
        if (runtime != null) {
            runtime.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        if (resumed != null) {
            resumed.stop(Duration.ofSeconds(10));
        }
    }

    @Test(timeout = 120_000)
    public void killMinus9ThenResumeLosesNothing() throws Exception {
        Path code = folder.newFolder("code").toPath();
        // trials from the fourth on wait for the gate before their final result: the kill below lands
        // while they surely run, instead of in a moment between two trials that it could hit
        Path gate = folder.getRoot().toPath().resolve("gate");
        Files.writeString(code.resolve("trial.py"), """
                import os, time, nni
                params = nni.get_next_parameter()
                for step in range(3):
                    nni.report_intermediate_result(params['x'] * 10 + step)
                    time.sleep(0.25)
                waited = 0
                while params['x'] >= 3 and not os.path.exists(%s) and waited < 1200:
                    time.sleep(0.05)
                    waited += 1
                nni.report_final_result(params['x'])
                """.formatted("'" + gate + "'"));
        Path work = folder.newFolder("experiments").toPath();
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        // sqlite-jdbc unpacks its native library into the temporary folder, and a JVM killed with -9 leaves it there
        runtime = new ProcessBuilder(java, "-Dorg.sqlite.tmpdir=" + folder.getRoot(), "-cp", System.getProperty("java.class.path"),
                CrashRunner.class.getName(),
                code.toString(), work.toString(), "crashexp", Integer.toString(TRIALS))
                .redirectErrorStream(true).redirectOutput(new File(folder.getRoot(), "runtime.log")).start();
        Path directory = work.resolve("crashexp");

        // kill it while trials run, after some have finished
        // the database file appears before its tables: reading it that early is retried
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100))
                .ignoreExceptionsInstanceOf(StoreException.class).until(() -> {
            if (!Files.exists(directory.resolve("db").resolve("nni.sqlite"))) {
                return false;
            }
            try (ExperimentStore store = ExperimentStore.openReadOnly(directory)) {
                List<TrialRecord> trials = store.trials();
                return store.metrics(null, "FINAL").size() >= 3
                        && trials.stream().anyMatch(t -> t.status().equals("RUNNING"));
            }
        });
        runtime.destroyForcibly();
        assertTrue(runtime.waitFor(10, TimeUnit.SECONDS));
        assertEquals(137, runtime.exitValue());

        List<MetricRecord> acknowledged;
        List<TrialRecord> before;
        try (ExperimentStore store = ExperimentStore.openReadOnly(directory)) {
            acknowledged = store.metrics(null, null);
            before = store.trials();
        }
        Set<String> runningAtCrash = before.stream().filter(t -> t.status().equals("RUNNING"))
                .map(TrialRecord::id).collect(Collectors.toSet());
        assertTrue(before.toString(), !runningAtCrash.isEmpty());
        Files.writeString(gate, "");

        Experiments setup = new Experiments(code, work);
        ListTuner tuner = new ListTuner(1000);
        resumed = setup.resume("crashexp", tuner);
        assertEquals(ExperimentStatus.DONE, resumed.settled().get(60, TimeUnit.SECONDS));

        List<TrialView> trials = resumed.trials();
        assertEquals(TRIALS, trials.size());
        assertEquals(LongStream.range(0, TRIALS).boxed().toList(), trials.stream().map(TrialView::sequenceId).toList());
        for (TrialView trial : trials) {
            // every trial had started (pid file) before the kill or after the resume: none is lost
            assertEquals(trial.job().id() + ": " + trial.job().message(), TrialStatus.SUCCEEDED, trial.job().status());
            assertEquals(Double.valueOf(trial.sequenceId()), trial.finalValue());
        }
        List<MetricRecord> after = resumed.store().metrics(null, null);
        Set<String> keys = after.stream().map(m -> m.trialJobId() + m.type() + m.sequence() + m.data())
                .collect(Collectors.toSet());
        for (MetricRecord metric : acknowledged) {
            assertTrue("lost " + metric, keys.contains(metric.trialJobId() + metric.type() + metric.sequence() + metric.data()));
        }
        // each metric once: 3 intermediate + 1 final per trial, re-read files deduplicated
        assertEquals(TRIALS * 4, after.size());
        Map<String, Long> finals = after.stream().filter(m -> m.type().equals("FINAL"))
                .collect(Collectors.groupingBy(MetricRecord::trialJobId, Collectors.counting()));
        assertEquals(TRIALS, finals.size());
        assertTrue(finals.values().stream().allMatch(n -> n == 1));
        // the trials that were running when the runtime died were taken back, not failed
        for (String id : runningAtCrash) {
            assertEquals(TrialStatus.SUCCEEDED, resumed.trial(id).orElseThrow().job().status());
        }
        // the tuner of the resumed run learned every result, old and new
        assertEquals(TRIALS, tuner.results.size());
    }
}
