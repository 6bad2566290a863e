package nni.itest.launcher;

import static org.awaitility.Awaitility.await;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
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
 * Crash consistency of the runtime as a real process (issue 26): a trial runs at most once across
 * a kill -9, keepers of reuse mode are all taken back, and an interrupted {@code run} records its
 * cancelled trials USER_CANCELED. The kills land at known moments (a trial waits for a file the
 * test writes), not after random sleeps.
 */
public class CrashConsistencyIT {

    @Rule
    public TemporaryFolder folder = new TemporaryFolder();

    private RuntimeProcess runtime;

    @After
    public void stopRuntime() throws InterruptedException {
        if (runtime != null) {
            runtime.close();
        }
    }

    /**
     * A trial that appends its id to {@code runs.log} when it starts, reports five metrics, waits for
     * {@code release}, reports five more and its final result; with x = 1 it ends at once instead. On
     * SIGTERM it takes 5 s to exit (143).
     */
    private Path trialCode() throws Exception {
        Path code = folder.newFolder("code").toPath();
        Files.writeString(code.resolve("trial.py"), """
                import os, signal, time
                import nni
                def slow_exit(signum, frame):
                    time.sleep(5)  # a trial that takes time to end when cancelled
                    os._exit(143)
                signal.signal(signal.SIGTERM, slow_exit)
                here = %s  # the code directory here, also when a keeper runs an unpacked copy
                with open(os.path.join(here, 'runs.log'), 'a') as runs:
                    runs.write(os.environ['NNI_TRIAL_JOB_ID'] + '\\n')
                params = nni.get_next_parameter()
                if params['x'] == 1:
                    nni.report_final_result(1)
                    raise SystemExit(0)
                for step in range(5):
                    nni.report_intermediate_result(step)
                deadline = time.time() + 170
                while not os.path.exists(os.path.join(here, 'release')) and time.time() < deadline:
                    time.sleep(0.05)
                for step in range(5, 10):
                    nni.report_intermediate_result(step)
                nni.report_final_result(params['x'])
                """.formatted("'" + code + "'"));
        return code;
    }

    private static Path config(Path code, String values, int concurrency, int trials, String platformExtra) throws Exception {
        Path config = code.resolve("config.yml");
        Files.writeString(config, """
                searchSpace:
                  x: {_type: choice, _value: [%s]}
                trialCommand: python3 trial.py
                trialCodeDirectory: .
                trialConcurrency: %d
                maxTrialNumber: %d
                tuner:
                  name: GridSearch
                trainingService:
                  platform: local
                %s""".formatted(values, concurrency, trials, platformExtra));
        return config;
    }

    private static int freePort() throws Exception {
        try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getByName("127.0.0.1"))) {
            return socket.getLocalPort();
        }
    }

    private static List<String> runs(Path code) throws Exception {
        Path log = code.resolve("runs.log");
        return Files.exists(log) ? Files.readAllLines(log) : List.of();
    }

    /**
     * Item 1: the runtime dies after the trial's process started but before its start reached the
     * store (the store shows it WAITING without a handle, and the runtime had not written its pid:
     * the moment the finding's kills hit). The trial ends while the runtime is down; {@code resume}
     * reads its exit status and metrics and does not start it again. The kill itself comes while the
     * trial waits for {@code release}; the moment before is restored in the store and the trial's
     * folder as the runtime left it when killed then.
     */
    @Test(timeout = 240_000)
    public void aTrialThatEndedWhileTheRuntimeWasDownIsNotStartedAgain() throws Exception {
        Path code = trialCode();
        Path config = config(code, "20", 1, 1, "");
        Path experiments = folder.newFolder("experiments").toPath();
        Path home = folder.newFolder("home").toPath();
        runtime = RuntimeProcess.start(home, experiments, "run", config.toString());
        // the experiment exists (RUNNING would be a passing state: with every trial submitted it is NO_MORE_TRIAL)
        await().atMost(Duration.ofSeconds(90)).ignoreExceptions().until(() -> !runtime.get("experiment").path("id").asText().isEmpty());
        String id = runtime.get("experiment").get("id").asText();
        await().atMost(Duration.ofSeconds(90)).until(() -> runtime.get("metric-data").size() == 5);
        String trialId = runtime.get("trial-jobs").get(0).get("trialJobId").asText();
        runtime.kill9();

        Path experiment = experiments.resolve(id);
        Path trial = experiment.resolve("trials").resolve(trialId);
        try (Connection db = new org.sqlite.JDBC().connect("jdbc:sqlite:" + experiment.resolve("db").resolve("nni.sqlite"),
                new java.util.Properties());
             PreparedStatement events = db.prepareStatement("delete from TrialJobEvent where trialJobId = ? and event = 'RUNNING'");
             PreparedStatement facts = db.prepareStatement("delete from TrialPlatform where trialJobId = ?")) {
            events.setString(1, trialId);
            assertEquals(1, events.executeUpdate());
            facts.setString(1, trialId);
            facts.executeUpdate();
        }
        Files.delete(trial.resolve(".nni").resolve("pid"));

        Files.writeString(code.resolve("release"), "");
        await().atMost(Duration.ofSeconds(60)).until(() -> Files.exists(trial.resolve(".nni").resolve("state")));
        runtime = RuntimeProcess.start(home, experiments, "resume", id);
        int exit = runtime.awaitExit(Duration.ofSeconds(120));
        assertEquals(runtime.console(), 0, exit);
        assertEquals("the trial ran once", List.of(trialId), runs(code));
        try (ExperimentStore store = ExperimentStore.openReadOnly(experiment)) {
            List<TrialRecord> trials = store.trials();
            assertEquals(trials.toString(), 1, trials.size());
            assertEquals(trials.toString(), "SUCCEEDED", trials.get(0).status());
            assertEquals(10, store.metrics(trialId, "PERIODICAL").size());
            assertEquals("20", store.metrics(trialId, "FINAL").get(0).data().replace("\"", ""));
        }
    }

    /**
     * Item 3: SIGTERM to {@code run} (the launcher hands it to the runtime's JVM): {@code run} stops
     * its experiment, cancelling the trials, while the framework stops too and detaches the
     * experiment; the trials take 5 s to end, so their ends come after the detach and are never
     * reported. Every cancelled trial is still recorded USER_CANCELED, in the store and for a later
     * {@code resume}, never FAILED by the signal's exit code.
     */
    @Test(timeout = 240_000)
    public void anInterruptedRunRecordsItsCancelledTrialsUserCanceled() throws Exception {
        Path code = trialCode();
        Path config = config(code, "20, 30, 40", 3, 3, "");
        Path experiments = folder.newFolder("experiments").toPath();
        Path home = folder.newFolder("home").toPath();
        runtime = RuntimeProcess.start(home, experiments, "run", config.toString());
        // the experiment exists (RUNNING would be a passing state: with every trial submitted it is NO_MORE_TRIAL)
        await().atMost(Duration.ofSeconds(90)).ignoreExceptions().until(() -> !runtime.get("experiment").path("id").asText().isEmpty());
        String id = runtime.get("experiment").get("id").asText();
        await().atMost(Duration.ofSeconds(90)).until(() -> runtime.get("metric-data").size() == 15);
        runtime.process.destroy();
        runtime.awaitExit(Duration.ofSeconds(90));
        Path experiment = experiments.resolve(id);
        try (ExperimentStore store = ExperimentStore.openReadOnly(experiment)) {
            Map<String, String> statuses = store.trials().stream().collect(Collectors.toMap(TrialRecord::id, TrialRecord::status));
            assertEquals(statuses.toString(), 3, statuses.size());
            assertTrue(statuses + "\n" + runtime.console(), statuses.values().stream().allMatch("USER_CANCELED"::equals));
        }
        // the trials' processes were signalled: they end with 143 in their exit files, which a resume must not make FAILED
        for (String trial : runs(code)) {
            await().atMost(Duration.ofSeconds(60)).until(() -> Files.exists(experiment.resolve("trials").resolve(trial)
                    .resolve(".nni").resolve("state")));
        }
        runtime = RuntimeProcess.start(home, experiments, "resume", id);
        runtime.awaitExit(Duration.ofSeconds(120));
        try (ExperimentStore store = ExperimentStore.openReadOnly(experiment)) {
            for (TrialRecord trial : store.trials()) {
                assertEquals(trial.toString(), "USER_CANCELED", trial.status());
                assertFalse(trial.toString(), String.valueOf(trial.message()).contains("143"));
            }
        }
    }

    /**
     * Item 2: reuse mode; one keeper is idle (its trial ended) and one runs a trial when the runtime
     * is killed. On resume both are taken back, none is refused as unknown, the running trial keeps
     * every metric, and no keeper outlives the experiment.
     */
    @Test(timeout = 600_000)
    public void everyKeeperIsTakenBackAfterAKillAndNoneOutlivesTheExperiment() throws Exception {
        Path code = trialCode();
        Path config = config(code, "1, 20", 2, 2, "  reuseMode: true\n");
        Path experiments = folder.newFolder("experiments").toPath();
        Path home = folder.newFolder("home").toPath();
        int port = freePort();
        runtime = RuntimeProcess.start(Map.of(), port, home, experiments, "run", config.toString());
        // the experiment exists (RUNNING would be a passing state: with every trial submitted it is NO_MORE_TRIAL)
        await().atMost(Duration.ofSeconds(90)).ignoreExceptions().until(() -> !runtime.get("experiment").path("id").asText().isEmpty());
        String id = runtime.get("experiment").get("id").asText();
        // x = 1 ended (its keeper is idle), x = 20 reported its first five metrics and waits
        await().atMost(Duration.ofSeconds(120)).until(() -> runtime.get("trial-jobs?status=SUCCEEDED").size() == 1
                && runtime.get("metric-data").size() == 6);
        String running = runtime.get("trial-jobs?status=RUNNING").get(0).get("trialJobId").asText();
        runtime.kill9();
        Path experiment = experiments.resolve(id);
        JsonNode links = RuntimeProcess.JSON.readTree(experiment.resolve("environments").resolve("links.json").toFile());
        assertEquals(links.toString(), 2, links.path("keepers").size());

        runtime = RuntimeProcess.start(Map.of(), port, home, experiments, "resume", id);
        // both keepers are registered again as the experiment opens: the idle one is not refused meanwhile
        await().atMost(Duration.ofSeconds(120)).until(() -> runtime.log().contains("(idle)")
                || runtime.log().contains("unknown keeper"));
        await().atMost(Duration.ofSeconds(60)).until(() -> runtime.log().contains("trial " + running + " taken back"));
        Files.writeString(code.resolve("release"), "");
        int exit = runtime.awaitExit(Duration.ofSeconds(300));
        String log = runtime.log();
        assertEquals(runtime.console(), 0, exit);
        // none refused while the experiment runs; once it is done its keepers are let go, and one whose
        // last report crossed that is refused and exits (fresh-ci saw an idle keeper's report so)
        int done = log.indexOf("experiment " + id + ": done");
        assertTrue(log, done > 0);
        assertFalse(log, log.substring(0, done).contains("unknown keeper"));
        try (ExperimentStore store = ExperimentStore.openReadOnly(experiment)) {
            Map<String, String> statuses = store.trials().stream().collect(Collectors.toMap(TrialRecord::id, TrialRecord::status));
            assertTrue(statuses.toString(), statuses.values().stream().allMatch("SUCCEEDED"::equals));
            List<MetricRecord> periodical = store.metrics(running, "PERIODICAL");
            assertEquals(10, periodical.stream().map(MetricRecord::sequence).distinct().count());
            assertEquals(1, store.metrics(running, "FINAL").size());
        }
        assertEquals("each trial ran once", 2, runs(code).size());
        String experimentPath = experiment.toString();
        await().atMost(Duration.ofSeconds(30)).until(() -> ProcessHandle.allProcesses()
                .noneMatch(p -> p.info().commandLine().map(line -> line.contains(experimentPath)).orElse(false)));
    }
}
