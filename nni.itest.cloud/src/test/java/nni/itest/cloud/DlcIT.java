package nni.itest.cloud;

import static org.awaitility.Awaitility.await;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.After;
import org.junit.Before;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import com.fasterxml.jackson.databind.JsonNode;

import nni.itest.cloud.emulator.dlc.DlcEmulator;
import nni.itest.cloud.emulator.dlc.DlcJob;
import nni.itest.launcher.RuntimeProcess;
import nni.store.ExperimentStore;
import nni.store.TrialRecord;

/**
 * Experiments on the {@code dlc} platform of the runnable jar against the PAI-DLC emulator, which
 * verifies every request's signature with the test's AccessKey: to DONE with an early-stopped
 * trial (the code and the trials on the NAS, seen by the jobs at containerStorageMountPoint), a
 * cancelled trial and a job that fails under its trial, a resource-group job ({@code ecsSpec} as a
 * dict), and a wrong AccessKey secret refused with a clear message that shows it nowhere. The keepers
 * report through files on the NAS (DLC's default), or over HTTP where the test sets
 * {@code keeper.transport=http}; over the NAS a manager killed mid-run and a torn report file lose
 * nothing and store nothing twice.
 */
public class DlcIT {

    private static final String KEY_ID = "LTAI5tExampleKeyId01";
    private static final String KEY_SECRET = "dlc-secret-Qm9vYXJ7c2VjcmV0";
    private static final String WORKSPACE = "86995";

    @Rule
    public TemporaryFolder folder = new TemporaryFolder();

    private DlcEmulator dlc;
    private Path nas;
    private Path code;
    private Path experiments;
    private RuntimeProcess runtime;
    private Path home;

    @Before
    public void startRegion() throws Exception {
        nas = folder.newFolder("nas").toPath();
        dlc = new DlcEmulator(KEY_ID, KEY_SECRET, WORKSPACE, Map.of("data1a2b3c", nas), folder.newFolder("tasks").toPath());
        code = CloudRuns.trialCode(folder.newFolder("code").toPath());
        experiments = folder.newFolder("experiments").toPath();
    }

    @After
    public void stop() throws Exception {
        if (runtime != null) {
            runtime.close();
        }
        dlc.close();
    }

    private Path config(String secret, String ecsSpec, String searchSpace, String tail) throws Exception {
        Path config = folder.getRoot().toPath().resolve("config.yml"); // outside the code: it holds the secret
        Files.writeString(config, """
                searchSpace:
                %s
                trialCommand: python3 trial.py
                trialCodeDirectory: code
                trainingService:
                  platform: dlc
                  type: Worker
                  image: registry-vpc.cn-hangzhou.aliyuncs.com/pai-dlc/pytorch-training:1.6.0-gpu-py37-cu101-ubuntu18.04
                  jobType: PyTorchJob
                  podCount: 1
                  ecsSpec: "%s"
                  region: cn-hangzhou
                  workspaceId: '%s'
                  nasDataSourceId: data1a2b3c
                  accessKeyId: %s
                  accessKeySecret: %s
                  localStorageMountPoint: %s
                  containerStorageMountPoint: /root/data/
                """.formatted(searchSpace.indent(2).stripTrailing(), ecsSpec, WORKSPACE, KEY_ID, secret, nas) + tail);
        return config;
    }

    private RuntimeProcess run(Path config) throws Exception {
        return run(config, "java", "files");
    }

    /** @param transport the platform's keeper.transport: files (DLC's default) or http */
    private RuntimeProcess run(Path config, String keeper, String transport) throws Exception {
        home = CloudRuns.home(folder.newFolder().toPath(), "nni.ts.dlc", Map.of("keeper", keeper, "endpoint", dlc.address(),
                "status.refresh.seconds", "1", "missing.job.seconds", "5", "keeper.transport", transport));
        runtime = RuntimeProcess.start(home, experiments, "run", config.toString());
        return runtime;
    }

    @Test(timeout = 240_000)
    public void anExperimentRunsToDoneInDlcJobsWithItsFilesOnTheNas() throws Exception {
        run(config(KEY_SECRET, "ecs.c6.large", "x: {_type: choice, _value: [1, 9, 0]}", """
                trialConcurrency: 1
                maxTrialNumber: 3
                tuner: {name: GridSearch}
                assessor:
                  name: Medianstop
                  classArgs: {optimize_mode: maximize, start_step: 2}
                """));
        runtime.assertExit(0, Duration.ofSeconds(200));
        String id = CloudRuns.experimentId(runtime.console());
        try (ExperimentStore store = ExperimentStore.openReadOnly(experiments.resolve(id))) {
            assertEquals(Map.of("1", "SUCCEEDED", "9", "SUCCEEDED", "0", "EARLY_STOPPED"), CloudRuns.statusBy(store, "x"));
            CloudRuns.assertEveryMetricOnce(store);
        }
        assertTrue(dlc.refused().toString(), dlc.refused().isEmpty());
        List<DlcJob> jobs = dlc.jobs();
        assertEquals("one environment for the three trials (reuse mode)", 1, jobs.size());
        JsonNode request = jobs.get(0).request();
        assertTrue(request.path("DisplayName").asText(), request.path("DisplayName").asText().matches("nni_exp_" + id + "_env_\\w+"));
        assertEquals("PyTorchJob", request.path("JobType").asText());
        assertEquals(WORKSPACE, request.path("WorkspaceId").asText());
        JsonNode spec = request.path("JobSpecs").get(0);
        assertEquals("Worker", spec.path("Type").asText());
        assertEquals(1, spec.path("PodCount").asInt());
        assertEquals("ecs.c6.large", spec.path("EcsSpec").asText());
        assertEquals("/root/data", request.path("DataSources").get(0).path("MountPath").asText());
        String command = request.path("UserCommand").asText();
        assertTrue(command, command.contains("/root/data/nni-experiments/" + id + "/"));
        String env0 = request.path("DisplayName").asText().substring(request.path("DisplayName").asText().lastIndexOf('_') + 1);
        // DLC's keepers report through files on the NAS (the default): they are never told the manager's port
        assertTrue(command, command.contains("'--channel' '/root/data/nni-experiments/" + id + "/channels/" + env0 + "'"));
        assertFalse(command, command.contains("--manager"));
        Path channel = nas.resolve("nni-experiments").resolve(id).resolve("channels").resolve(env0);
        assertTrue(Files.readString(channel.resolve("acked")).strip().matches("\\d+"));
        // nothing unapplied stays behind; a keeper stopped while it wrote applied reports again may leave that copy
        long acked = Long.parseLong(Files.readString(channel.resolve("acked")).strip());
        for (Path file : reportFiles(channel.resolve("reports"))) {
            long last = Long.parseLong(file.getFileName().toString().substring(21, 41));
            assertTrue(file + " holds reports the manager never applied (acked " + acked + "): " + Files.readString(file), last <= acked);
        }
        // the code, the keeper's files and the trials are on the NAS, as the manager's machine sees it
        Path root = nas.resolve("nni-experiments").resolve(id);
        assertTrue(Files.isRegularFile(root.resolve("nni-code.tar.gz")));
        String env = request.path("DisplayName").asText().substring(request.path("DisplayName").asText().lastIndexOf('_') + 1);
        assertTrue(Files.isRegularFile(root.resolve("envs").resolve(env).resolve("keeper.stderr")));
        assertEquals("rw-------", java.nio.file.attribute.PosixFilePermissions.toString(
                Files.getPosixFilePermissions(root.resolve("tokens").resolve(env))));
        assertFalse("the keeper's token is not in the job", request.toString().contains(Files.readString(root.resolve("tokens").resolve(env)).strip()));
        // the environment does not outlive the experiment: stopped, or ended by its keeper told to leave before the stop arrived
        await().atMost(Duration.ofSeconds(30)).until(() -> Set.of("Stopped", "Succeeded").contains(jobs.get(0).status()));
        assertTrue(dlc.requests().stream().anyMatch(r -> r.method().equals("POST") && r.path().equals("/api/v1/jobs/" + jobs.get(0).id() + "/stop")));
        CloudRuns.assertNowhere(KEY_SECRET, runtime.console() + runtime.log(), runtime.home, experiments, nas);
    }

    @Test(timeout = 240_000)
    public void aCancelledTrialIsKilledAJobFailingUnderItsTrialFailsItAndResourceGroupJobsCarryTheirResources() throws Exception {
        // keeper.transport=http: the keepers report to the manager's port, as they may where the jobs reach it
        run(config(KEY_SECRET, "{'resource_id': 'quota12345', 'cpu': 4, 'memory': 8, 'gpu': 0, 'gputype': '', 'shared_memory': ''}",
                "mode: {_type: choice, _value: [cancel, fail, ok]}", """
                trialConcurrency: 1
                maxTrialNumber: 3
                tuner: {name: GridSearch}
                """), "java", "http");
        String[] trials = CloudRuns.cancelTheFirstTrialAndAwaitTheNext(runtime);
        String failing = trials[1];
        DlcJob first = dlc.jobs().get(0);
        first.fail();
        runtime.assertExit(0, Duration.ofSeconds(150));
        String id = CloudRuns.experimentId(runtime.console());
        try (ExperimentStore store = ExperimentStore.openReadOnly(experiments.resolve(id))) {
            assertEquals(Map.of("cancel", "USER_CANCELED", "fail", "FAILED", "ok", "SUCCEEDED"), CloudRuns.statusBy(store, "mode"));
            TrialRecord failed = store.trials().stream().filter(t -> t.id().equals(failing)).findFirst().orElseThrow();
            assertTrue(failed.message(), failed.message().contains("PAI-DLC job " + first.id() + " Failed: the node of worker-0 was lost"));
            CloudRuns.assertEveryMetricOnce(store);
        }
        assertEquals("Failed", first.status());
        assertEquals(2, dlc.jobs().size());
        for (DlcJob job : dlc.jobs()) {
            String command = job.request().path("UserCommand").asText();
            assertTrue(command, command.contains("'--manager' 'http://") && !command.contains("--channel"));
            assertEquals("quota12345", job.request().path("ResourceId").asText());
            JsonNode resources = job.request().path("JobSpecs").get(0).path("ResourceConfig");
            assertEquals("4", resources.path("CPU").asText());
            assertEquals("8Gi", resources.path("Memory").asText());
            assertFalse(job.request().path("JobSpecs").get(0).has("EcsSpec"));
        }
        assertTrue(dlc.refused().toString(), dlc.refused().isEmpty());
    }

    /**
     * DLC reports a state outside its documented list ({@code SubmitFailed}) for the job that runs a
     * trial: the trial ends FAILED at once with the state named, instead of waiting for ever as if
     * the job still lived.
     */
    @Test(timeout = 240_000)
    public void aJobInAStateDlcDoesNotDocumentEndsItsTrialWithTheStateNamed() throws Exception {
        DlcJob job = aHeldTrialsRunningJob();
        job.enter("SubmitFailed", "the quota of the resource group is exceeded");
        String message = theOneTrialsFailureOnceTheRunEnds();
        assertTrue(message, message.contains("PAI-DLC job " + job.id() + " is in state SubmitFailed")
                && message.contains("the quota of the resource group is exceeded"));
    }

    /**
     * The job that runs a trial is deleted behind the platform's back (GetJob answers 404, its keeper
     * and trial are killed) while its keeper reports over the NAS, DLC's default: no connection drops
     * to tell the manager, so the job's absence from DLC's answers must: the trial ends FAILED naming
     * the job once DLC has not known it for {@code missing.job.seconds}, and the run ends.
     */
    @Test(timeout = 240_000)
    public void aJobThatVanishesUnderItsTrialFailsItNamingTheJob() throws Exception {
        DlcJob job = aHeldTrialsRunningJob();
        assertTrue(dlc.vanish(job.id()));
        String message = theOneTrialsFailureOnceTheRunEnds();
        assertTrue(message, message.contains("PAI-DLC job " + job.id() + " no longer exists"));
    }

    /** Runs one trial that holds its job (it sleeps 120 s in it): its job, once it runs, for a test to change under it. */
    private DlcJob aHeldTrialsRunningJob() throws Exception {
        run(config(KEY_SECRET, "ecs.c6.large", "mode: {_type: choice, _value: [hold]}", """
                trialConcurrency: 1
                maxTrialNumber: 1
                tuner: {name: GridSearch}
                """));
        await().atMost(Duration.ofSeconds(120)).ignoreExceptions().until(() -> runtime.get("trial-jobs?status=RUNNING").size() == 1);
        return dlc.jobs().stream().filter(j -> j.status().equals("Running")).findFirst().orElseThrow();
    }

    /** @return the message of the run's one trial, FAILED: the run ends DONE with no trial that succeeded (exit 5) */
    private String theOneTrialsFailureOnceTheRunEnds() throws Exception {
        runtime.assertExit(5, Duration.ofSeconds(150));
        assertTrue(dlc.refused().toString(), dlc.refused().isEmpty());
        String id = CloudRuns.experimentId(runtime.console());
        try (ExperimentStore store = ExperimentStore.openReadOnly(experiments.resolve(id))) {
            TrialRecord trial = store.trials().get(0);
            assertEquals(trial.message(), "FAILED", trial.status());
            return trial.message();
        }
    }

    /**
     * Over the NAS, with the Python keeper: the runtime is killed (kill -9) while two trials run, they
     * report the rest of their results meanwhile (the keeper keeps them in report files nobody
     * acknowledges), a torn report file appears among them, and {@code resume} on another port takes
     * the trial back: both trials end SUCCEEDED in the one DLC job, every metric stored once.
     */
    @Test(timeout = 300_000)
    public void overTheNasAManagerKilledMidRunAndATornReportFileLoseNothingAndStoreNothingTwice() throws Exception {
        Path release = folder.getRoot().toPath().resolve("release");
        run(config(KEY_SECRET, "ecs.c6.large", "x: {_type: choice, _value: [1, 2]}\nrelease: {_type: choice, _value: ['" + release + "']}",
                "trialConcurrency: 2\nmaxTrialNumber: 2\ntuner: {name: GridSearch}\n"), "python", "files");
        // both trials run, in two jobs, and have reported their first three results: then the runtime dies
        await().atMost(Duration.ofSeconds(120)).ignoreExceptions()
                .until(() -> runtime.get("trial-jobs?status=RUNNING").size() == 2 && runtime.get("metric-data").size() == 6);
        String id = runtime.get("experiment").get("id").asText();
        String trial = runtime.get("trial-jobs?status=RUNNING").get(0).get("trialJobId").asText();
        runtime.kill9();

        // no manager: the trial goes on, and its keeper's report files stay unacknowledged on the NAS
        Files.writeString(release, "go");
        String env = trialEnvironment(id, trial);
        Path reports = nas.resolve("nni-experiments").resolve(id).resolve("channels").resolve(env).resolve("reports");
        await().atMost(Duration.ofSeconds(60)).until(() -> reportFiles(reports).stream().anyMatch(f -> {
            try {
                return Files.readString(f).contains("\"kind\":\"ended\"");
            } catch (java.io.IOException goneMeanwhile) {
                return false;
            }
        }));
        // a torn file, as a storage can show one: named before the keeper's own files, only half its JSON
        String first = reportFiles(reports).get(0).getFileName().toString().substring(0, 20);
        Files.writeString(reports.resolve(first + "-" + first + ".json"), "{\"reports\":[{\"seq\":" + Long.parseLong(first)
                + ",\"kind\":\"metric\",\"trial\":\"" + trial + "\",\"line\":\"{\\\"type\\\": \\\"PERIODI");

        runtime = RuntimeProcess.start(home, experiments, "resume", id); // another port: the keeper needs none
        runtime.assertExit(0, Duration.ofSeconds(200));
        assertTrue(runtime.log(), runtime.log().contains("taken back"));
        try (ExperimentStore store = ExperimentStore.openReadOnly(experiments.resolve(id))) {
            assertEquals(runtime.log(), Map.of("1", "SUCCEEDED", "2", "SUCCEEDED"), CloudRuns.statusBy(store, "x"));
            CloudRuns.assertEveryMetricOnce(store);
            assertEquals("every metric once", 2 * (CloudRuns.STEPS + 1), store.metrics(null, null).size());
        }
        assertEquals("the two jobs ran the trials across the restart", 2, dlc.jobs().size());
        assertEquals("every report file is deleted once acknowledged (the torn one too)", List.of(), reportFiles(reports));
    }

    /** @return the environment running {@code trial}: the one whose folder on the NAS holds the trial's */
    private String trialEnvironment(String id, String trial) throws java.io.IOException {
        try (var environments = Files.list(nas.resolve("nni-experiments").resolve(id).resolve("envs"))) {
            return environments.filter(env -> Files.isDirectory(env.resolve("trials").resolve(trial))).findFirst()
                    .map(env -> env.getFileName().toString()).orElseThrow(() -> new AssertionError("no environment ran " + trial));
        }
    }

    private static List<Path> reportFiles(Path reports) throws java.io.IOException {
        if (!Files.isDirectory(reports)) {
            return List.of();
        }
        try (var files = Files.list(reports)) {
            return files.filter(f -> f.getFileName().toString().matches("\\d{20}-\\d{20}\\.json")).sorted().toList();
        }
    }

    @Test(timeout = 120_000)
    public void aWrongAccessKeySecretStopsTheSessionWithAClearMessageAndIsInNoLog() throws Exception {
        String wrong = "not-the-dlc-secret-77";
        run(config(wrong, "ecs.c6.large", "x: {_type: choice, _value: [1]}", "trialConcurrency: 1\nmaxTrialNumber: 1\ntuner: {name: Random}\n"));
        assertEquals(1, runtime.awaitExit(Duration.ofSeconds(90)));
        String console = runtime.console() + runtime.log();
        assertTrue(console, console.contains("PAI-DLC in region cn-hangzhou (AccessKey " + KEY_ID + ") answered HTTP 400 while checking the "
                + "AccessKey: SignatureDoesNotMatch: Specified signature is not matched with our calculation.; check accessKeyId and accessKeySecret"));
        assertTrue("nothing submitted", dlc.jobs().isEmpty());
        CloudRuns.assertNowhere(wrong, console, runtime.home, experiments, nas);
    }
}
