package nni.itest.cloud;

import static org.awaitility.Awaitility.await;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.After;
import org.junit.Before;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import com.fasterxml.jackson.databind.JsonNode;

import nni.itest.cloud.emulator.CloudEmulator;
import nni.itest.cloud.emulator.dlts.DltsEmulator;
import nni.itest.cloud.emulator.dlts.DltsJob;
import nni.itest.launcher.RuntimeProcess;
import nni.store.ExperimentStore;

/**
 * NNI v1 experiment files on {@code trainingServicePlatform: dlts}, run by the runnable jar against
 * the DLTS emulator: to DONE with credentials from DLTS's environment variables, cancelled trials'
 * jobs killed, and a wrong password refused with a clear message that shows it nowhere. Run inside
 * a DLTS job ({@code DLTS_JOB_ID}) without {@code nniManagerIp}, the manager's port is exposed
 * through that job's endpoints and the keepers call it where DLTS says.
 */
public class DltsIT {

    private static final String PASSWORD = "dlts-password-5c2b9e";

    @Rule
    public TemporaryFolder folder = new TemporaryFolder();

    private DltsEmulator dlts;
    private Path code;
    private Path experiments;
    private RuntimeProcess runtime;

    @Before
    public void startCluster() throws Exception {
        dlts = new DltsEmulator("alice@example.com", PASSWORD, "t1", "c1", folder.newFolder("tasks").toPath());
        code = CloudRuns.trialCode(folder.newFolder("code").toPath());
        experiments = folder.newFolder("experiments").toPath();
    }

    @After
    public void stop() throws Exception {
        if (runtime != null) {
            runtime.close();
        }
        dlts.close();
    }

    /** NNI's v1 file, as {@code examples/trials/mnist-tfv1/config_dlts.yml} has it. */
    private Path v1Config(String credentials) throws Exception {
        Files.writeString(code.resolve("search_space.json"), """
                {"mode": {"_type": "choice", "_value": ["ok", "cancel"]}, "x": {"_type": "choice", "_value": [2, 5]}}
                """);
        Path config = code.resolve("config.yml");
        Files.writeString(config, """
                authorName: default
                experimentName: example_mnist
                trialConcurrency: 2
                maxExecDuration: 1h
                maxTrialNum: 4
                trainingServicePlatform: dlts
                searchSpacePath: search_space.json
                useAnnotation: false
                tuner:
                  builtinTunerName: GridSearch
                trial:
                  command: python3 trial.py
                  codeDir: .
                  gpuNum: 0
                  image: msranni/nni:latest
                dltsConfig:
                  dashboard: %s
                  cluster: c1
                %s""".formatted(dlts.dashboard(), credentials.indent(2)));
        return config;
    }

    private RuntimeProcess run(Map<String, String> environment, Path config) throws Exception {
        Path home = CloudRuns.home(folder.newFolder().toPath(), "nni.ts.dlts", Map.of("keeper", "java",
                "status.refresh.seconds", "1", "stop.grace.seconds", "3"));
        runtime = RuntimeProcess.start(environment, home, experiments, "run", config.toString());
        return runtime;
    }

    @Test(timeout = 240_000)
    public void aV1ExperimentRunsToDoneWithCredentialsFromTheEnvironmentAndCancelledTrialsJobsAreKilled() throws Exception {
        run(Map.of("DLWS_USER_EMAIL", "alice@example.com", "DLTS_JOB_TOKEN", PASSWORD), v1Config("team: t1"));
        Set<String> cancelled = new HashSet<>();
        await().atMost(Duration.ofSeconds(200)).pollInterval(Duration.ofMillis(300)).ignoreExceptions().until(() -> {
            if (!runtime.process.isAlive()) {
                return true;
            }
            for (JsonNode trial : runtime.get("trial-jobs?status=RUNNING")) {
                String id = trial.get("trialJobId").asText();
                if (trial.get("hyperParameters").get(0).asText().contains("\"mode\":\"cancel\"") && cancelled.add(id)) {
                    assertEquals(200, runtime.request("DELETE", "trial-jobs/" + id, null).statusCode());
                }
            }
            return false;
        });
        runtime.assertExit(0, Duration.ofSeconds(30));
        String id = CloudRuns.experimentId(runtime.console());
        try (ExperimentStore store = ExperimentStore.openReadOnly(experiments.resolve(id))) {
            assertEquals(4, store.trials().size());
            assertEquals(2, cancelled.size());
            store.trials().forEach(t -> assertEquals(t.id(), cancelled.contains(t.id()) ? "USER_CANCELED" : "SUCCEEDED", t.status()));
            CloudRuns.assertEveryMetricOnce(store);
        }
        assertTrue(dlts.refused().toString(), dlts.refused().isEmpty());
        assertEquals(4, dlts.submitted().size());
        for (DltsJob job : dlts.jobs()) {
            JsonNode body = job.body();
            assertEquals("alice@example.com", body.get("userName").asText());
            assertEquals("t1", body.get("vcName").asText());
            assertEquals("P40", body.get("gpuType").asText());
            assertEquals("msranni/nni:latest", body.get("image").asText());
            assertTrue(body.get("jobName").asText(), body.get("jobName").asText().matches("nni_exp_" + id + "_trial_\\w{5}"));
            assertFalse("no password in the job", body.toString().contains(PASSWORD));
            String trial = body.get("jobName").asText().substring(body.get("jobName").asText().lastIndexOf('_') + 1);
            boolean killed = dlts.requests().stream().anyMatch(r -> r.method().equals("PUT")
                    && r.path().equals("/api/clusters/c1/jobs/" + job.id() + "/status") && r.body().contains("killing"));
            assertEquals(trial, cancelled.contains(trial), killed);
            assertEquals(trial, cancelled.contains(trial) ? "killed" : "finished", job.status());
        }
        CloudRuns.assertNowhere(PASSWORD, runtime.console() + runtime.log(), runtime.home, experiments);
    }

    @Test(timeout = 240_000)
    public void inADltsJobWithoutNniManagerIpTheManagerIsExposedThroughTheJobsEndpointsAndKeepersCallItThere() throws Exception {
        dlts.runningJob("manager-job-7");
        dlts.nodeName("localhost"); // a name for this machine that is not the address the port is bound to (127.0.0.1)
        Path config = v1Config("team: t1");
        Files.writeString(code.resolve("search_space.json"), """
                {"x": {"_type": "choice", "_value": [2, 5]}}
                """);
        run(Map.of("DLWS_USER_EMAIL", "alice@example.com", "DLTS_JOB_TOKEN", PASSWORD, "DLTS_JOB_ID", "manager-job-7"), config);
        int port = URI.create(runtime.endpoint()).getPort();
        runtime.assertExit(0, Duration.ofSeconds(200));
        String id = CloudRuns.experimentId(runtime.console());
        try (ExperimentStore store = ExperimentStore.openReadOnly(experiments.resolve(id))) {
            assertEquals(2, store.trials().size());
            store.trials().forEach(t -> assertEquals(t.id(), "SUCCEEDED", t.status()));
            CloudRuns.assertEveryMetricOnce(store);
        }
        String route = "/api/clusters/c1/jobs/manager-job-7/endpoints";
        List<CloudEmulator.Request> asked = dlts.requests().stream().filter(r -> r.path().equals(route)).toList();
        assertTrue(asked.toString(), asked.size() >= 3); // listed, asked for, listed until running
        assertEquals("GET", asked.get(0).method());
        assertEquals("POST", asked.get(1).method());
        assertEquals(1, asked.stream().filter(r -> r.method().equals("POST")).count());
        JsonNode endpoint = RuntimeProcess.JSON.readTree(asked.get(1).body()).get("endpoints").get(0);
        assertEquals("nni-rest-server", endpoint.get("name").asText());
        assertEquals(port, endpoint.get("podPort").asInt());
        assertEquals(2, dlts.jobs().size());
        for (DltsJob job : dlts.jobs()) {
            String command = job.body().get("cmd").asText();
            assertTrue(command, command.contains("http://localhost:" + port + "/"));
            assertFalse(command, command.contains("127.0.0.1:" + port));
            assertEquals("finished", job.status());
        }
        CloudRuns.assertNowhere(PASSWORD, runtime.console() + runtime.log(), runtime.home, experiments);
    }

    @Test(timeout = 120_000)
    public void aWrongPasswordStopsTheSessionWithAClearMessageAndIsInNoLog() throws Exception {
        String wrong = "not-the-password-81d0";
        run(Map.of(), v1Config("team: t1\nemail: alice@example.com\npassword: " + wrong));
        String console;
        assertEquals(1, runtime.awaitExit(Duration.ofSeconds(90)));
        console = runtime.console() + runtime.log();
        assertTrue(console, console.contains("DLTS at " + dlts.dashboard() + " (alice@example.com, team t1) answered HTTP 403"));
        assertTrue(console, console.contains("the email or password is wrong"));
        assertTrue(dlts.submitted().isEmpty());
        CloudRuns.assertNowhere(wrong, console, runtime.home, experiments);
    }

    @Test(timeout = 120_000)
    public void missingCredentialsAreNamedWithTheirVariables() throws Exception {
        run(Map.of(), v1Config(""));
        assertEquals(1, runtime.awaitExit(Duration.ofSeconds(90)));
        String console = runtime.console() + runtime.log();
        assertTrue(console, console.contains("email (or the environment variable DLWS_USER_EMAIL)"));
        assertTrue(console, console.contains("password (or the environment variable DLTS_JOB_TOKEN)"));
        assertTrue(console, console.contains("team (or the environment variable DLWS_VC_NAME)"));
    }
}
