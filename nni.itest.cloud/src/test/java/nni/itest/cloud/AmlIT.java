package nni.itest.cloud;

import static org.awaitility.Awaitility.await;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.After;
import org.junit.Before;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import com.fasterxml.jackson.databind.JsonNode;

import nni.itest.cloud.emulator.TaskProcess;
import nni.itest.cloud.emulator.aml.AmlEmulator;
import nni.itest.cloud.emulator.aml.AmlJob;
import nni.itest.launcher.RuntimeProcess;
import nni.store.ExperimentStore;
import nni.store.TrialRecord;

/**
 * Experiments on the {@code aml} platform of the runnable jar against the Azure ML emulator, with a
 * service principal from the environment: to DONE with an early-stopped trial, a cancelled trial
 * and a job that fails under its trial, and a wrong client secret refused with a clear message that
 * shows the secret nowhere. Every request was valid against the published jobs API (the emulator
 * refuses others, and each test checks it refused none).
 */
public class AmlIT {

    private static final String TENANT = "72f988bf-86f1-41af-91ab-2d7cd011db47";
    private static final String CLIENT = "0b7e1c2a-5d4f-4e2b-9a61-3c8d7f1e2a90";
    private static final String SECRET = "aml-client-secret~4Zq8Xv1";
    private static final String SUBSCRIPTION = "00000000-1111-2222-3333-444444444444";

    @Rule
    public TemporaryFolder folder = new TemporaryFolder();

    private AmlEmulator aml;
    private Path code;
    private Path experiments;
    private RuntimeProcess runtime;

    @Before
    public void startWorkspace() throws Exception {
        aml = new AmlEmulator(TENANT, CLIENT, SECRET, SUBSCRIPTION, "nni-rg", "nni-ws", "gpu-cluster", folder.newFolder("aml").toPath());
        code = CloudRuns.trialCode(folder.newFolder("code").toPath());
        experiments = folder.newFolder("experiments").toPath();
    }

    @After
    public void stop() throws Exception {
        if (runtime != null) {
            runtime.close();
        }
        aml.close();
    }

    private Path config(String searchSpace, String tail) throws Exception {
        Path config = code.resolve("config.yml");
        Files.writeString(config, """
                searchSpace:
                %s
                trialCommand: python3 trial.py
                trialCodeDirectory: .
                trainingService:
                  platform: aml
                  subscriptionId: %s
                  resourceGroup: nni-rg
                  workspaceName: nni-ws
                  computeTarget: gpu-cluster
                """.formatted(searchSpace.indent(2).stripTrailing(), SUBSCRIPTION) + tail);
        return config;
    }

    private RuntimeProcess run(String secret, Path config) throws Exception {
        return run(secret, config, Map.of());
    }

    private RuntimeProcess run(String secret, Path config, Map<String, String> more) throws Exception {
        Map<String, String> settings = new HashMap<>(Map.of("keeper", "java", "arm.endpoint", aml.address(),
                "status.refresh.seconds", "1", "missing.job.seconds", "5"));
        settings.putAll(more);
        Path home = CloudRuns.home(folder.newFolder().toPath(), "nni.ts.aml", settings);
        runtime = RuntimeProcess.start(Map.of("AZURE_TENANT_ID", TENANT, "AZURE_CLIENT_ID", CLIENT, "AZURE_CLIENT_SECRET", secret,
                "AZURE_AUTHORITY_HOST", aml.address()), home, experiments, "run", config.toString());
        return runtime;
    }

    @Test(timeout = 240_000)
    public void anExperimentRunsToDoneInCommandJobsAndAnEarlyStoppedTrialLeavesItsJobForTheNext() throws Exception {
        run(SECRET, config("x: {_type: choice, _value: [1, 9, 0]}", """
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
            store.trialPlatforms().forEach((trial, platform) ->
                    assertTrue(trial + " ran in " + platform.host(), platform.host().startsWith("Azure ML job nni_exp_" + id + "_env_")));
            assertEquals(3, store.trialPlatforms().size());
        }
        assertTrue(aml.refused().toString(), aml.refused().isEmpty());
        List<AmlJob> jobs = aml.jobs();
        assertEquals("one environment for the three trials, one after another (reuse mode)", 1, jobs.size());
        AmlJob job = jobs.get(0);
        assertTrue(job.name(), job.name().matches("nni_exp_" + id + "_env_\\w+"));
        JsonNode properties = job.properties();
        assertEquals("Command", properties.path("jobType").asText());
        assertEquals("nni_exp_" + id, properties.path("experimentName").asText());
        assertEquals(aml.workspaceId() + "/computes/gpu-cluster", properties.path("computeId").asText());
        assertEquals(List.of("msranni/nni:latest"), aml.images());
        assertTrue(properties.path("codeId").asText(), properties.path("codeId").asText().startsWith(aml.workspaceId() + "/codes/nni-exp-" + id + "/versions/"));
        assertTrue(properties.path("environmentVariables").has("NNI_KEEPER_TOKEN"));
        assertFalse("the keeper's token is not on the command line",
                properties.path("command").asText().contains(properties.path("environmentVariables").path("NNI_KEEPER_TOKEN").asText()));
        // the experiment's end cancelled the environment's job (or its keeper, told to leave, ended it first)
        await().atMost(Duration.ofSeconds(30)).until(() -> Set.of("Canceled", "Completed").contains(job.status()));
        assertTrue(aml.requests().stream().anyMatch(r -> r.method().equals("POST") && r.path().endsWith("/jobs/" + job.name() + "/cancel")));
        CloudRuns.assertNowhere(SECRET, runtime.console() + runtime.log(), runtime.home, experiments);
    }

    /**
     * The manager's port is bound to loopback and no nniManagerIp is given: no address the compute
     * could reach. With the workspace's file share mounted here ({@code datastore.mount}), the
     * keepers report through it ({@code keeper.transport = auto}): the job mounts the share's
     * experiment folder as an output, its keeper has a channel folder there and is never told the
     * manager's address. The job runs cut off from this machine's network, a recorder in its place
     * on the manager's port: no process of the job connected there, and every metric arrived. While
     * the first trial runs, the platforms view says the session reports over files, and why.
     */
    @Test(timeout = 240_000)
    public void withoutAnAddressTheComputeCouldReachTheKeepersReportThroughTheWorkspacesFileShare() throws Exception {
        Path share = folder.newFolder("workspacefilestore").toPath();
        aml.datastore("workspacefilestore", share);
        Path connections = folder.getRoot().toPath().resolve("connections-to-the-manager");
        aml.isolateJobs(new TaskProcess.Isolation(() -> URI.create(runtime.endpoint()).getPort(), connections));
        Path release = folder.getRoot().toPath().resolve("release");
        run(SECRET, config("x: {_type: choice, _value: [1, 9]}\nrelease: {_type: choice, _value: ['" + release + "']}",
                "trialConcurrency: 1\nmaxTrialNumber: 2\ntuner: {name: GridSearch}\n"), Map.of("datastore.mount", share.toString()));
        String port = ":" + URI.create(runtime.endpoint()).getPort();
        // the first trial waits for the release file: its session is open
        try {
            await().atMost(Duration.ofSeconds(120)).ignoreExceptions()
                    .until(() -> runtime.get("trial-jobs?status=RUNNING").size() == 1);
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            throw new AssertionError("no trial runs: " + runtime.console() + "\njobs' stderr: "
                    + aml.jobs().stream().map(AmlJob::stderr).toList(), e);
        }
        JsonNode reports = aml(uiPlatforms()).path("reports");
        Files.createFile(release);
        assertEquals(reports.toString(), 1, reports.size());
        assertEquals("files", reports.get(0).path("transport").asText());
        String why = reports.get(0).path("why").asText();
        assertTrue(why, why.startsWith("keeper.transport = auto: nniManagerIp is not set and the port is bound to "));
        assertTrue(why, why.contains(share.resolve("nni-experiments").toString()));
        runtime.assertExit(0, Duration.ofSeconds(200));
        String id = CloudRuns.experimentId(runtime.console());
        try (ExperimentStore store = ExperimentStore.openReadOnly(experiments.resolve(id))) {
            assertEquals(Map.of("1", "SUCCEEDED", "9", "SUCCEEDED"), CloudRuns.statusBy(store, "x"));
            CloudRuns.assertEveryMetricOnce(store);
        }
        assertTrue(aml.refused().toString(), aml.refused().isEmpty());
        assertEquals(1, aml.jobs().size());
        AmlJob job = aml.jobs().get(0);
        JsonNode output = job.properties().path("outputs").path("nni_channels");
        assertEquals(job.properties().toString(), "azureml://datastores/workspacefilestore/paths/nni-experiments/" + id + "/",
                output.path("uri").asText());
        assertEquals("ReadWriteMount", output.path("mode").asText());
        String env = job.name().substring(("nni_exp_" + id + "_env_").length());
        String command = job.properties().path("command").asText();
        assertTrue(command, command.contains("'--channel' '${{outputs.nni_channels}}/channels/" + env + "'"));
        String told = command + job.properties().path("environmentVariables");
        assertFalse("the job is never told where the manager listens: " + told, told.contains("--manager") || told.contains(port));
        Path channel = share.resolve("nni-experiments").resolve(id).resolve("channels").resolve(env);
        assertEquals(channel.getParent().getParent(), job.mounts().get("nni_channels"));
        assertTrue("the keeper's handshake went through the share", Files.isRegularFile(channel.resolve("hello.json")));
        assertTrue(Files.readString(channel.resolve("acked")).strip().matches("\\d+"));
        String log = runtime.log();
        assertTrue(log, log.contains("reports files on azureml://datastores/workspacefilestore/paths/nni-experiments/" + id));
        assertTrue("the job ran cut off, a recorder on the manager's port", Files.isRegularFile(connections));
        assertEquals("connections from the job to the manager's port", "", Files.readString(connections));
    }

    private static JsonNode aml(JsonNode platforms) {
        for (JsonNode platform : platforms.path("platforms")) {
            if (platform.path("name").asText().equals("aml")) {
                return platform;
            }
        }
        throw new AssertionError("no aml platform in " + platforms);
    }

    /** @return what the web UI's platforms view shows */
    private JsonNode uiPlatforms() throws Exception {
        java.net.http.HttpResponse<String> response = java.net.http.HttpClient.newHttpClient().send(java.net.http.HttpRequest
                .newBuilder(URI.create(runtime.endpoint() + "api/v1/nni-ui/platforms")).timeout(Duration.ofSeconds(60)).build(),
                java.net.http.HttpResponse.BodyHandlers.ofString());
        assertEquals(response.body(), 200, response.statusCode());
        return RuntimeProcess.JSON.readTree(response.body());
    }

    @Test(timeout = 240_000)
    public void aCancelledTrialIsKilledAJobFailingUnderItsTrialFailsItAndTheNextTrialGetsANewJob() throws Exception {
        run(SECRET, config("mode: {_type: choice, _value: [cancel, fail, ok]}", """
                trialConcurrency: 1
                maxTrialNumber: 3
                tuner: {name: GridSearch}
                """));
        String[] trials = CloudRuns.cancelTheFirstTrialAndAwaitTheNext(runtime);
        String failing = trials[1];
        AmlJob first = aml.jobs().get(0);
        first.fail();
        runtime.assertExit(0, Duration.ofSeconds(150));
        String id = CloudRuns.experimentId(runtime.console());
        try (ExperimentStore store = ExperimentStore.openReadOnly(experiments.resolve(id))) {
            assertEquals(Map.of("cancel", "USER_CANCELED", "fail", "FAILED", "ok", "SUCCEEDED"), CloudRuns.statusBy(store, "mode"));
            TrialRecord failed = store.trials().stream().filter(t -> t.id().equals(failing)).findFirst().orElseThrow();
            assertTrue(failed.message(), failed.message().contains("Azure ML job " + first.name() + " Failed"));
            CloudRuns.assertEveryMetricOnce(store);
        }
        assertEquals("Failed", first.status());
        assertEquals("a new environment for the last trial", 2, aml.jobs().size());
        assertTrue(aml.refused().toString(), aml.refused().isEmpty());
    }

    @Test(timeout = 120_000)
    public void aWrongClientSecretStopsTheSessionWithEntraIdsReasonAndIsInNoLog() throws Exception {
        String wrong = "not-the-secret~9Tw3";
        run(wrong, config("x: {_type: choice, _value: [1]}", "trialConcurrency: 1\nmaxTrialNumber: 1\ntuner: {name: Random}\n"));
        int exit = runtime.awaitExit(Duration.ofSeconds(90));
        String console = runtime.console() + runtime.log();
        assertEquals(console, 1, exit);
        assertTrue(console, console.contains("Microsoft Entra ID at " + aml.address() + " answered HTTP 401 while getting a token for "
                + "service principal " + CLIENT + " of tenant " + TENANT + ": invalid_client: AADSTS7000215: Invalid client secret provided"));
        assertTrue(console, console.contains("check AZURE_TENANT_ID, AZURE_CLIENT_ID and AZURE_CLIENT_SECRET"));
        assertTrue("nothing submitted", aml.jobs().isEmpty());
        CloudRuns.assertNowhere(wrong, console, runtime.home, experiments);
        CloudRuns.assertNowhere(SECRET, console, runtime.home, experiments);
    }
}
