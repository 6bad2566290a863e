package nni.itest.launcher;

import static org.awaitility.Awaitility.await;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import org.junit.After;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import com.fasterxml.jackson.databind.JsonNode;

import nni.store.ExperimentStore;
import nni.store.TrialRecord;

/**
 * Issue 10: an orderly stop of the runtime ({@code felix:stop 0} typed in its shell: the platform
 * bundles stop before the manager) detaches the experiment's session instead of closing it. The
 * trial processes keep running, the store keeps them RUNNING, and {@code resume} re-attaches them
 * and finishes the experiment with their metrics. Before, the local session was closed by the
 * platform's unbind, which killed the trials, and their SYS_CANCELED was dropped.
 */
public class DetachOnStopIT {

    @Rule
    public TemporaryFolder folder = new TemporaryFolder();

    private RuntimeProcess runtime;
    private final List<ProcessHandle> trialProcesses = new ArrayList<>();

    @After
    public void stop() throws InterruptedException {
        if (runtime != null) {
            runtime.close();
        }
        for (ProcessHandle trial : trialProcesses) { // whatever a failed run left behind
            trial.descendants().forEach(ProcessHandle::destroyForcibly);
            trial.destroyForcibly();
        }
    }

    @Test(timeout = 240_000)
    public void felixStopLeavesTrialsRunningAndResumeReattachesThem() throws Exception {
        Path code = folder.newFolder("code").toPath();
        Files.copy(DetachOnStopIT.class.getResourceAsStream("/slow/trial.py"), code.resolve("trial.py"));
        Path config = code.resolve("config.yml");
        Files.writeString(config, """
                searchSpace:
                  x: {_type: choice, _value: [5, 6]}
                trialCommand: python3 trial.py
                trialCodeDirectory: .
                trialConcurrency: 2
                maxTrialNumber: 2
                tuner:
                  name: GridSearch
                trainingService:
                  platform: local
                """);
        Path experiments = folder.newFolder("experiments").toPath();
        Path home = folder.newFolder("home").toPath();

        runtime = RuntimeProcess.startWithShell(home, experiments);
        runtime.endpoint();
        runtime.type("nni:create " + config);
        await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> runtime.get("trial-jobs?status=RUNNING").size() == 2);
        String id = runtime.get("experiment").get("id").asText();
        for (JsonNode trial : runtime.get("trial-jobs?status=RUNNING")) {
            Path pidFile = experiments.resolve(id).resolve("trials").resolve(trial.get("trialJobId").asText()).resolve(".nni/pid");
            await().atMost(Duration.ofSeconds(30)).until(() -> Files.exists(pidFile));
            String[] pidAndStart = Files.readString(pidFile).strip().split("\\s+");
            ProcessHandle process = ProcessHandle.of(Long.parseLong(pidAndStart[0])).orElseThrow();
            assertEquals(Long.parseLong(pidAndStart[1]), process.info().startInstant().map(Instant::toEpochMilli).orElse(-1L).longValue());
            trialProcesses.add(process);
        }

        runtime.type("felix:stop 0");
        runtime.awaitExit(Duration.ofSeconds(60));

        for (ProcessHandle trial : trialProcesses) {
            assertTrue("trial process " + trial.pid() + " was killed by the stop; console:\n" + runtime.console(), trial.isAlive());
        }
        try (ExperimentStore store = ExperimentStore.openReadOnly(experiments.resolve(id))) {
            assertEquals(List.of("RUNNING", "RUNNING"), store.trials().stream().map(TrialRecord::status).toList());
            assertEquals("the handles are stored for resume", 2, store.trialPlatforms().size());
        }

        Files.writeString(code.resolve("release"), "");
        runtime = RuntimeProcess.start(home, experiments, "resume", id);
        runtime.assertExit(0, Duration.ofSeconds(120));
        assertTrue(runtime.console(), runtime.console().contains("DONE"));
        String log = Files.readString(home.resolve("log").resolve("nni.log"));
        assertEquals(log, 2, log.lines().filter(line -> line.contains("re-attached (RUNNING)")).count());
        try (ExperimentStore store = ExperimentStore.openReadOnly(experiments.resolve(id))) {
            List<TrialRecord> trials = store.trials();
            assertEquals(2, trials.size());
            assertTrue(trials.toString(), trials.stream().allMatch(t -> t.status().equals("SUCCEEDED")));
            assertEquals(2, store.metrics(null, "FINAL").size());
            assertEquals(12, store.metrics(null, "PERIODICAL").size());
        }
    }
}
