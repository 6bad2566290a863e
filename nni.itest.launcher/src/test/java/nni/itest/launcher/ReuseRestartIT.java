package nni.itest.launcher;

import static org.awaitility.Awaitility.await;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

import org.junit.After;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import com.fasterxml.jackson.databind.JsonNode;

import nni.store.ExperimentStore;
import nni.store.MetricRecord;
import nni.store.TrialRecord;

/**
 * Reuse mode across a kill -9 of the runtime: the keeper environments keep running their trials
 * and spool what the trials report; {@code resume} on the same port takes the trials back, their
 * keepers deliver what they spooled, and every metric of every trial is stored exactly once.
 */
public class ReuseRestartIT {

    @Rule
    public TemporaryFolder folder = new TemporaryFolder();

    private RuntimeProcess runtime;

    @After
    public void stopRuntime() throws InterruptedException {
        if (runtime != null) {
            runtime.close();
        }
    }

    private static int freePort() throws Exception {
        try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getByName("127.0.0.1"))) {
            return socket.getLocalPort();
        }
    }

    @Test(timeout = 240_000)
    public void keeperTrialsSurviveAKillMinus9AndEveryMetricIsStoredOnce() throws Exception {
        Path code = folder.newFolder("code").toPath();
        Path release = folder.getRoot().toPath().resolve("release");
        Files.writeString(code.resolve("trial.py"), """
                import os, time
                import nni
                params = nni.get_next_parameter()
                for step in range(10):
                    nni.report_intermediate_result(params['x'] + step)
                deadline = time.time() + 120
                while not os.path.exists(%s) and time.time() < deadline:
                    time.sleep(0.1)
                for step in range(10, 25):
                    nni.report_intermediate_result(params['x'] + step)
                nni.report_final_result(params['x'] * 2)
                """.formatted("'" + release + "'"));
        Path config = code.resolve("config.yml");
        Files.writeString(config, """
                searchSpace:
                  x: {_type: choice, _value: [10, 20, 30, 40]}
                trialCommand: python3 trial.py
                trialCodeDirectory: .
                trialConcurrency: 2
                maxTrialNumber: 4
                tuner:
                  name: GridSearch
                trainingService:
                  platform: local
                  reuseMode: true
                """);
        Path experiments = folder.newFolder("experiments").toPath();
        Path home = folder.newFolder("home").toPath();
        int port = freePort();
        runtime = RuntimeProcess.start(Map.of(), port, home, experiments, "run", config.toString());
        await().atMost(Duration.ofSeconds(90)).until(() -> runtime.get("check-status").get("status").asText().equals("RUNNING"));
        String id = runtime.get("experiment").get("id").asText();
        // both trials run and have reported their first ten metrics: then the runtime dies
        await().atMost(Duration.ofSeconds(90)).until(() -> runtime.get("trial-jobs?status=RUNNING").size() == 2
                && runtime.get("metric-data").size() == 20);
        Set<String> running = new TreeSet<>();
        for (JsonNode trial : runtime.get("trial-jobs?status=RUNNING")) {
            running.add(trial.get("trialJobId").asText());
        }
        runtime.kill9();

        // the trials go on while no runtime listens: their keepers spool the rest
        Files.writeString(release, "go");
        runtime = RuntimeProcess.start(Map.of(), port, home, experiments, "resume", id);
        int exit = runtime.awaitExit(Duration.ofSeconds(180));
        String console = runtime.console();
        assertEquals(console, 0, exit);
        assertTrue(console, runtime.log().contains("taken back"));
        // from the handle kept in the link file (pid:start time): the platform tracks the keepers again
        assertTrue(console, runtime.log().contains("the local platform found environment"));

        try (ExperimentStore store = ExperimentStore.openReadOnly(experiments.resolve(id))) {
            List<TrialRecord> trials = store.trials();
            assertEquals(4, trials.size());
            Map<String, String> statuses = trials.stream().collect(Collectors.toMap(TrialRecord::id, TrialRecord::status));
            for (String trial : running) {
                assertEquals("trial " + trial + " ran through the restart: " + statuses, "SUCCEEDED", statuses.get(trial));
            }
            assertTrue(statuses.toString(), statuses.values().stream().allMatch("SUCCEEDED"::equals));
            for (TrialRecord trial : trials) {
                List<MetricRecord> periodical = store.metrics(trial.id(), "PERIODICAL");
                assertEquals(trial.id(), 25, periodical.size());
                assertEquals(trial.id(), 25, periodical.stream().map(MetricRecord::sequence).distinct().count());
                assertEquals(trial.id(), 1, store.metrics(trial.id(), "FINAL").size());
            }
            assertEquals("every metric once", 4 * 26, store.metrics(null, null).size());
        }
        // the keepers taken back end with the experiment: none is left behind
        String experimentPath = experiments.resolve(id).toString();
        await().atMost(Duration.ofSeconds(60)).until(() -> ProcessHandle.allProcesses()
                .noneMatch(p -> p.info().commandLine().map(line -> line.contains(experimentPath)).orElse(false)));
    }
}
