package nni.itest.launcher;

import static org.awaitility.Awaitility.await;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.After;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import com.fasterxml.jackson.databind.JsonNode;

import nni.store.ExperimentStore;
import nni.store.TrialRecord;

/**
 * {@code java -jar nni-osgi.jar run <config>} as users run it: the README's demo, the REST API while
 * an experiment runs, Medianstop, and kill -9 followed by {@code resume}.
 */
public class RunModeIT {

    private static final Path ROOT = Path.of(System.getProperty("nni.root"));

    @Rule
    public TemporaryFolder folder = new TemporaryFolder();

    private RuntimeProcess runtime;

    @After
    public void stop() throws InterruptedException {
        if (runtime != null) {
            runtime.close();
        }
    }

    private static String experimentId(String console) {
        Matcher started = Pattern.compile("experiment (\\w{8}) started").matcher(console);
        assertTrue(console, started.find());
        return started.group(1);
    }

    @Test(timeout = 180_000)
    public void theDemoRunsToDone() throws Exception {
        Path experiments = folder.newFolder("experiments").toPath();
        runtime = RuntimeProcess.start(folder.newFolder("home").toPath(), experiments, "run",
                ROOT.resolve("examples/demo/config.yml").toString());
        assertEquals(0, runtime.awaitExit(Duration.ofSeconds(150)));
        String console = runtime.console();
        assertTrue(console, console.contains(" DONE ") && console.contains("succeeded 8  failed 0  of max 8"));
        assertTrue(console, console.contains("best trials (maximize):"));
        String id = experimentId(console);
        try (ExperimentStore store = ExperimentStore.openReadOnly(experiments.resolve(id))) {
            List<TrialRecord> trials = store.trials();
            assertEquals(8, trials.size());
            assertTrue(trials.stream().allMatch(t -> t.status().equals("SUCCEEDED")));
            assertEquals(8, store.metrics(null, "FINAL").size());
            assertEquals(40, store.metrics(null, "PERIODICAL").size());
        }
    }

    @Test(timeout = 60_000)
    public void aBadConfigurationExitsWithTwoAndNamesTheFile() throws Exception {
        Path config = folder.newFile("bad.yml").toPath();
        Files.writeString(config, "trialCommand: python3 trial.py\ntrialConcurrency: 0\n");
        runtime = RuntimeProcess.start(folder.newFolder("home").toPath(), folder.newFolder("experiments").toPath(),
                "run", config.toString());
        assertEquals(2, runtime.awaitExit(Duration.ofSeconds(50)));
        assertTrue(runtime.console(), runtime.console().contains(config.toString()));
    }

    /** The harness's own check: an exit not expected shows what the runtime printed, read after it exited. */
    @Test(timeout = 60_000)
    public void anExitOtherThanTheOneExpectedFailsWithTheRuntimesOutput() throws Exception {
        Path config = folder.newFile("bad.yml").toPath();
        Files.writeString(config, "trialCommand: python3 trial.py\ntrialConcurrency: 0\n");
        runtime = RuntimeProcess.start(folder.newFolder("home").toPath(), folder.newFolder("experiments").toPath(),
                "run", config.toString());
        try {
            runtime.assertExit(0, Duration.ofSeconds(50));
        } catch (AssertionError expected) {
            assertTrue(expected.getMessage(), expected.getMessage().contains("was 2")
                    && expected.getMessage().contains(config + ":2"));
            return;
        }
        throw new AssertionError("a refused configuration's run exited 0");
    }

    private Path slowExperiment(String extra) throws Exception {
        Path code = folder.newFolder("code").toPath();
        Files.copy(RunModeIT.class.getResourceAsStream("/slow/trial.py"), code.resolve("trial.py"));
        Path config = code.resolve("config.yml");
        Files.writeString(config, """
                experimentName: slow
                searchSpace:
                  x: {_type: choice, _value: [9, 8, 7, 1, 2, 3]}
                trialCommand: python3 trial.py
                trialCodeDirectory: .
                trialConcurrency: 1
                maxTrialNumber: 4
                tuner:
                  name: GridSearch
                trainingService:
                  platform: local
                """ + extra);
        return config;
    }

    @Test(timeout = 180_000)
    public void restApiWhileAnExperimentRuns() throws Exception {
        Path config = slowExperiment("");
        Path code = config.getParent();
        runtime = RuntimeProcess.start(folder.newFolder("home").toPath(), folder.newFolder("experiments").toPath(),
                "run", config.toString());
        await().atMost(Duration.ofSeconds(60)).until(() -> runtime.get("check-status").get("status").asText().equals("RUNNING"));
        JsonNode experiment = runtime.get("experiment");
        assertEquals(1, experiment.get("params").get("trialConcurrency").asInt());
        String id = experiment.get("id").asText();
        await().atMost(Duration.ofSeconds(30)).until(() -> runtime.get("trial-jobs?status=RUNNING").size() == 1);

        // nnictl update concurrency: the whole profile with params changed
        ((com.fasterxml.jackson.databind.node.ObjectNode) experiment.get("params")).put("trialConcurrency", 2);
        var updated = runtime.request("PUT", "experiment?update_type=TRIAL_CONCURRENCY", experiment.toString());
        assertEquals(updated.body(), 200, updated.statusCode());
        await().atMost(Duration.ofSeconds(30)).until(() -> runtime.get("trial-jobs?status=RUNNING").size() == 2);

        JsonNode running = runtime.get("trial-jobs?status=RUNNING");
        String cancelled = running.get(1).get("trialJobId").asText();
        JsonNode one = runtime.get("trial-jobs/" + cancelled);
        assertEquals(cancelled, one.get("trialJobId").asText());
        assertTrue(one.get("hyperParameters").get(0).asText().contains("\"parameter_source\":\"algorithm\""));
        assertEquals(200, runtime.request("DELETE", "trial-jobs/" + cancelled, null).statusCode());
        await().atMost(Duration.ofSeconds(30)).until(() -> runtime.get("trial-jobs/" + cancelled).get("status").asText()
                .equals("USER_CANCELED"));

        // bad requests: 4xx with a JSON error, never a stack trace
        for (var bad : List.of(runtime.request("PUT", "experiment?update_type=NOPE", experiment.toString()),
                runtime.request("PUT", "experiment?update_type=TRIAL_CONCURRENCY", "{not json"),
                runtime.request("GET", "trial-jobs?status=SLEEPING", null),
                runtime.request("GET", "trial-jobs/nope1", null),
                runtime.request("GET", "metric-data?type=MAYBE", null))) {
            assertTrue(bad.body(), bad.statusCode() >= 400 && bad.statusCode() < 500);
            JsonNode error = RuntimeProcess.JSON.readTree(bad.body());
            assertTrue(bad.body(), error.has("error") && !bad.body().contains("\tat "));
        }

        Files.writeString(code.resolve("release"), "");
        await().atMost(Duration.ofSeconds(60)).until(() -> runtime.get("metric-data?type=FINAL").size() >= 2);
        JsonNode metric = runtime.get("metric-data?type=FINAL").get(0);
        for (String field : List.of("timestamp", "trialJobId", "parameterId", "type", "sequence", "data")) {
            assertTrue(metric.toString(), metric.has(field));
        }
        assertTrue(runtime.get("metric-data/" + metric.get("trialJobId").asText()).size() >= 6);
        assertTrue(runtime.get("metric-data-range/0/0").size() >= 6);
        JsonNode latest = runtime.get("metric-data-latest");
        assertTrue(latest.toString(), latest.toString().contains("\"type\":\"FINAL\""));
        assertEquals(400, runtime.request("GET", "metric-data-range/a/2", null).statusCode());
        JsonNode info = runtime.get("experiments-info");
        assertTrue(info.toString(), info.toString().contains("\"id\":\"" + id + "\""));
        assertEquals(0, runtime.awaitExit(Duration.ofSeconds(90)));
        assertTrue(runtime.console().contains("experiment " + id + " DONE"));
    }

    @Test(timeout = 180_000)
    public void medianstopStopsTrialsBelowTheMedian() throws Exception {
        Path config = slowExperiment("""
                assessor:
                  name: Medianstop
                  classArgs:
                    optimize_mode: maximize
                    start_step: 2
                """);
        Files.writeString(config.getParent().resolve("release"), "");
        Path experiments = folder.newFolder("experiments").toPath();
        runtime = RuntimeProcess.start(folder.newFolder("home").toPath(), experiments, "run", config.toString());
        assertEquals(0, runtime.awaitExit(Duration.ofSeconds(150)));
        String id = experimentId(runtime.console());
        try (ExperimentStore store = ExperimentStore.openReadOnly(experiments.resolve(id))) {
            Map<String, String> statusByX = new java.util.TreeMap<>();
            for (TrialRecord trial : store.trials()) {
                String x = RuntimeProcess.JSON.readTree(trial.parameters()).get("parameters").get("x").asText();
                statusByX.put(x, trial.status());
            }
            // one trial at a time in grid order: 9 completes first; every later trial's best result is
            // below the median of the completed trials' running averages once start_step is reached
            assertEquals(Map.of("9", "SUCCEEDED", "8", "EARLY_STOPPED", "7", "EARLY_STOPPED", "1", "EARLY_STOPPED"), statusByX);
        }
    }

    @Test(timeout = 240_000)
    public void killMinus9ThenResumeLosesNothing() throws Exception {
        Path config = slowExperiment("");
        Path code = config.getParent();
        Files.writeString(config, Files.readString(config).replace("maxTrialNumber: 4", "maxTrialNumber: 6")
                .replace("trialConcurrency: 1", "trialConcurrency: 2"));
        Path experiments = folder.newFolder("experiments").toPath();
        Path home = folder.newFolder("home").toPath();
        runtime = RuntimeProcess.start(home, experiments, "run", config.toString());
        await().atMost(Duration.ofSeconds(60)).until(() -> runtime.get("check-status").get("status").asText().equals("RUNNING"));
        await().atMost(Duration.ofSeconds(60)).until(() -> runtime.get("trial-jobs?status=RUNNING").size() == 2);
        String id = runtime.get("experiment").get("id").asText();
        runtime.kill9();
        assertEquals(137, runtime.process.exitValue());

        Files.writeString(code.resolve("release"), "");
        runtime = RuntimeProcess.start(home, experiments, "resume", id);
        int exit = runtime.awaitExit(Duration.ofSeconds(150));
        assertEquals(runtime.console(), 0, exit);
        try (ExperimentStore store = ExperimentStore.openReadOnly(experiments.resolve(id))) {
            List<TrialRecord> trials = store.trials();
            assertEquals(6, trials.size());
            assertEquals(List.of(0L, 1L, 2L, 3L, 4L, 5L), trials.stream().map(TrialRecord::sequenceId).sorted().toList());
            assertTrue(trials.toString(), trials.stream().allMatch(t -> t.status().equals("SUCCEEDED")));
            assertEquals(6, store.metrics(null, "FINAL").size());
            assertEquals(36, store.metrics(null, "PERIODICAL").size());
        }
    }

    @Test(timeout = 180_000)
    public void gpuPlacementUsesTheNvidiaSmiOnPath() throws Exception {
        Path bin = folder.newFolder("bin").toPath();
        fakeNvidiaSmi(bin.resolve("nvidia-smi"));
        assertEveryTrialGetsGpuZero(Map.of("PATH", bin + ":" + System.getenv("PATH")), folder.newFolder("home").toPath());
    }

    /**
     * A setting in etc/ is in force before the command's experiment starts: here the local
     * platform's nvidia-smi is named only in etc/nni.ts.local.cfg (none on PATH), so trials can be
     * placed on a GPU only if the file was applied first.
     */
    @Test(timeout = 180_000)
    public void settingsInEtcApplyBeforeTheExperimentStarts() throws Exception {
        Path tools = folder.newFolder("tools").toPath();
        Path fake = tools.resolve("fake-nvidia-smi");
        fakeNvidiaSmi(fake);
        Path home = folder.newFolder("home").toPath();
        Files.createDirectories(home.resolve("etc"));
        Path cfg = Files.writeString(home.resolve("etc").resolve("nni.ts.local.cfg"), "nvidia.smi=" + fake + "\n");
        assertEveryTrialGetsGpuZero(Map.of(), home);
        // the user's file is read, never written back (FileInstall's write-back once emptied it at start-up)
        assertEquals("nvidia.smi=" + fake + "\n", Files.readString(cfg));
    }

    private static void fakeNvidiaSmi(Path fake) throws Exception {
        // two GPUs; GPU 1 runs a process that is not ours
        Files.writeString(fake, """
                #!/bin/sh
                [ "$1 $2" = "-q -x" ] || exit 9
                cat <<'XML'
                <?xml version="1.0" ?>
                <!DOCTYPE nvidia_smi_log SYSTEM "nvsmi_device_v12.dtd">
                <nvidia_smi_log><attached_gpus>2</attached_gpus>
                <gpu id="00000000:01:00.0"><minor_number>0</minor_number><processes></processes></gpu>
                <gpu id="00000000:02:00.0"><minor_number>1</minor_number><processes><process_info><pid>4711</pid></process_info></processes></gpu>
                </nvidia_smi_log>
                XML
                """);
        assertTrue(fake.toFile().setExecutable(true));
    }

    private void assertEveryTrialGetsGpuZero(Map<String, String> environment, Path home) throws Exception {
        Path code = folder.newFolder("gpucode").toPath();
        Files.writeString(code.resolve("trial.sh"), "echo \"gpus=$CUDA_VISIBLE_DEVICES\"\n");
        Path config = code.resolve("config.yml");
        Files.writeString(config, """
                searchSpace:
                  x: {_type: choice, _value: [1, 2, 3]}
                trialCommand: bash trial.sh
                trialCodeDirectory: .
                trialGpuNumber: 1
                trialConcurrency: 2
                maxTrialNumber: 3
                tuner:
                  name: GridSearch
                trainingService:
                  platform: local
                  useActiveGpu: false
                """);
        Path experiments = folder.newFolder("experiments").toPath();
        runtime = RuntimeProcess.start(environment, home, experiments, "run", config.toString());
        int exit = runtime.awaitExit(Duration.ofSeconds(150));
        assertEquals(runtime.console(), 0, exit);
        String id = experimentId(runtime.console());
        try (ExperimentStore store = ExperimentStore.openReadOnly(experiments.resolve(id))) {
            List<TrialRecord> trials = store.trials();
            assertEquals(3, trials.size());
            for (TrialRecord trial : trials) {
                assertEquals(trial.message() + "\n" + runtime.console(), "SUCCEEDED", trial.status());
                // GPU 1 is busy, so every trial gets GPU 0, one at a time
                assertEquals("gpus=0", Files.readString(experiments.resolve(id).resolve("trials").resolve(trial.id())
                        .resolve("stdout")).strip());
            }
        }
    }
}
