package nni.itest.cloud;

import static org.awaitility.Awaitility.await;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

import org.junit.After;
import org.junit.Before;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import com.fasterxml.jackson.databind.JsonNode;

import nni.itest.cloud.emulator.CloudEmulator;
import nni.itest.cloud.emulator.TaskProcess;
import nni.itest.cloud.emulator.openpai.OpenpaiEmulator;
import nni.itest.cloud.emulator.openpai.PaiJob;
import nni.itest.launcher.RuntimeProcess;
import nni.store.ExperimentStore;
import nni.store.TrialRecord;

/**
 * Experiments on the {@code openpai} platform of the runnable jar, against the OpenPAI emulator:
 * one job per trial and reuse mode, a two-role {@code openpaiConfig}, cancel and early stop, a job
 * that fails or vanishes, a refused token, and a cluster that answers 503 for a while. Every job
 * the runtime submitted was valid against OpenPAI's published job protocol (the emulator refuses
 * others, and each test checks it refused none).
 */
public class OpenpaiIT {

    private static final String TOKEN = "pai-token-7f3a9c1e5b";
    private static final String STORAGE = "confignfs-data";

    @Rule
    public TemporaryFolder folder = new TemporaryFolder();

    private OpenpaiEmulator pai;
    private Path storage;
    private Path code;
    private Path experiments;
    private RuntimeProcess runtime;

    @Before
    public void startCluster() throws Exception {
        storage = folder.newFolder("storage").toPath();
        pai = new OpenpaiEmulator("alice", TOKEN, Map.of(STORAGE, storage), Set.of("default", "nni"), folder.newFolder("tasks").toPath());
        code = CloudRuns.trialCode(folder.newFolder("code").toPath());
        experiments = folder.newFolder("experiments").toPath();
    }

    @After
    public void stop() throws Exception {
        if (runtime != null) {
            runtime.close();
        }
        pai.close();
    }

    private Path config(String token, String searchSpace, String tail) throws Exception {
        Path config = code.resolve("config.yml");
        Files.writeString(config, """
                searchSpace:
                %s
                trialCommand: python3 trial.py
                trialCodeDirectory: .
                trialGpuNumber: 0
                trainingService:
                  platform: openpai
                  host: %s
                  username: alice
                  token: %s
                  trialCpuNumber: 1
                  trialMemorySize: 1gb
                  storageConfigName: %s
                  virtualCluster: nni
                  localStorageMountPoint: %s
                  containerStorageMountPoint: /mnt/%s
                """.formatted(searchSpace.indent(2).stripTrailing(), pai.host(), token, STORAGE, storage, STORAGE) + tail);
        return config;
    }

    private Path home(Map<String, String> more) throws Exception {
        Map<String, String> settings = new java.util.HashMap<>(Map.of("keeper", "python",
                "status.refresh.seconds", "1", "list.refresh.seconds", "1", "missing.job.seconds", "3", "stop.grace.seconds", "3"));
        settings.putAll(more);
        return CloudRuns.home(folder.newFolder().toPath(), "nni.ts.openpai", settings);
    }

    private RuntimeProcess run(Path config) throws Exception {
        return run(config, Map.of());
    }

    private RuntimeProcess run(Path config, Map<String, String> settings) throws Exception {
        runtime = RuntimeProcess.start(home(settings), experiments, "run", config.toString());
        return runtime;
    }

    private List<CloudEmulator.Request> calls(String method, String pathPart) {
        return pai.requests().stream().filter(r -> r.method().equals(method) && (r.path() + "?" + r.query()).contains(pathPart)).toList();
    }

    private boolean stopped(String job) {
        return pai.requests().stream().anyMatch(r -> r.method().equals("PUT")
                && r.path().equals("/rest-server/api/v2/jobs/alice~" + job + "/executionType") && r.body().contains("\"STOP\""));
    }

    @Test(timeout = 240_000)
    public void oneJobPerTrialRunsToDoneAndAnEarlyStoppedTrialsJobIsStopped() throws Exception {
        Path config = config(TOKEN, """
                x: {_type: choice, _value: [1, 9, 0]}
                """, """
                  reuseMode: false
                trialConcurrency: 1
                maxTrialNumber: 3
                tuner: {name: GridSearch}
                assessor:
                  name: Medianstop
                  classArgs: {optimize_mode: maximize, start_step: 2}
                """);
        run(config);
        runtime.assertExit(0, Duration.ofSeconds(200));
        String id = CloudRuns.experimentId(runtime.console());
        try (ExperimentStore store = ExperimentStore.openReadOnly(experiments.resolve(id))) {
            // one trial at a time in grid order: 1 and 9 complete; 0 is below the median once start_step is reached
            assertEquals(Map.of("1", "SUCCEEDED", "9", "SUCCEEDED", "0", "EARLY_STOPPED"), CloudRuns.statusBy(store, "x"));
            CloudRuns.assertEveryMetricOnce(store);
            for (TrialRecord trial : store.trials()) {
                String job = "nni_exp_" + id + "_trial_" + trial.id();
                PaiJob submitted = pai.job(job);
                assertTrue("no OpenPAI job " + job + " in " + pai.jobs().stream().map(PaiJob::name).toList(), submitted != null);
                assertEquals(runtime.log(), trial.status().equals("EARLY_STOPPED"), stopped(job));
                // the trial's files are on the storage, where the job saw them at /mnt/confignfs-data
                assertTrue(Files.isRegularFile(storage.resolve(id).resolve("trials").resolve(trial.id()).resolve("parameter.cfg")));
            }
            assertEquals("STOPPED", pai.job("nni_exp_" + id + "_trial_" + store.trials().stream()
                    .filter(t -> t.status().equals("EARLY_STOPPED")).findFirst().orElseThrow().id()).state());
        }
        assertTrue(pai.refused().toString(), pai.refused().isEmpty());
        assertEquals(3, pai.submitted().size());
        JsonNode protocol = pai.jobs().get(0).protocol();
        assertEquals("nni", protocol.path("defaults").path("virtualCluster").asText());
        assertEquals(STORAGE, protocol.path("extras").path("storages").get(0).path("name").asText());
        assertEquals(1024, protocol.path("taskRoles").path("taskrole").path("resourcePerInstance").path("memoryMB").asInt());
        assertFalse("the token is not in the command", protocol.path("taskRoles").toString().contains(TOKEN));
        // OpenPAI's images have Python and no JDK: the jobs ran the Python keeper
        String commands = protocol.path("taskRoles").path("taskrole").path("commands").toString();
        assertTrue(commands, commands.contains("nni-trialkeeper.py") && !commands.contains("nni-trialkeeper.jar"));
        // one status request per job and refresh, no list
        assertTrue(calls("GET", "/jobs/alice~").size() >= 3);
        assertTrue(calls("GET", "jobs?username=").isEmpty());
    }

    /**
     * The manager's port is bound to loopback and no nniManagerIp is given: no address the cluster
     * could reach. The keepers report through channel folders on the storage
     * ({@code keeper.transport = auto}, OpenPAI's default, set here all the same): the jobs run cut off from this machine's network, a recorder
     * in their place on the manager's port; no process of theirs connected there, and every metric
     * arrived.
     */
    @Test(timeout = 240_000)
    public void withoutAnAddressTheClusterCouldReachTheKeepersReportThroughTheStorage() throws Exception {
        Path connections = folder.getRoot().toPath().resolve("connections-to-the-manager");
        pai.isolateJobs(new TaskProcess.Isolation(() -> URI.create(runtime.endpoint()).getPort(), connections));
        Path config = config(TOKEN, """
                x: {_type: choice, _value: [1, 9]}
                """, """
                  reuseMode: false
                trialConcurrency: 1
                maxTrialNumber: 2
                tuner: {name: GridSearch}
                """);
        run(config, Map.of("keeper.transport", "auto"));
        runtime.assertExit(0, Duration.ofSeconds(200));
        String id = CloudRuns.experimentId(runtime.console());
        try (ExperimentStore store = ExperimentStore.openReadOnly(experiments.resolve(id))) {
            assertEquals(Map.of("1", "SUCCEEDED", "9", "SUCCEEDED"), CloudRuns.statusBy(store, "x"));
            CloudRuns.assertEveryMetricOnce(store);
        }
        assertTrue(pai.refused().toString(), pai.refused().isEmpty());
        for (PaiJob job : pai.jobs()) {
            String commands = job.protocol().path("taskRoles").toString();
            assertTrue(commands, commands.contains("--channel"));
            assertFalse("the job is never told where the manager listens: " + commands, commands.contains("--manager"));
        }
        assertTrue("the jobs ran cut off, a recorder on the manager's port", Files.isRegularFile(connections));
        assertEquals("connections from the jobs to the manager's port", "", Files.readString(connections));
        assertTrue(runtime.log(), runtime.log().contains("keeper.transport = auto: nniManagerIp is not set"));
    }

    @Test(timeout = 240_000)
    public void reuseModeRunsTrialsInTwoRoleJobsWithOneListCallPerRefresh() throws Exception {
        Path config = config(TOKEN, """
                x: {_type: randint, _value: [0, 100]}
                """, """
                  openpaiConfig:
                    protocolVersion: 2
                    name: replaced-by-nni
                    type: job
                    prerequisites:
                      - {type: dockerimage, uri: 'msranni/nni:latest', name: image}
                    parameters: {greeting: hello}
                    taskRoles:
                      worker:
                        instances: 1
                        completion: {minFailedInstances: 1, minSucceededInstances: 1}
                        dockerImage: image
                        resourcePerInstance: {cpu: 1, memoryMB: 2048, gpu: 0}
                        commands:
                          - python3 trial.py
                      ps:
                        instances: 1
                        completion: {minFailedInstances: 1, minSucceededInstances: -1}
                        dockerImage: image
                        resourcePerInstance: {cpu: 1, memoryMB: 1024, gpu: 0}
                        commands:
                          - echo "<% $parameters.greeting %> from $PAI_CURRENT_TASK_ROLE_NAME" > ps-ran.txt
                          - sleep 600
                trialConcurrency: 2
                maxTrialNumber: 5
                tuner: {name: Random}
                """);
        run(config);
        runtime.assertExit(0, Duration.ofSeconds(200));
        String id = CloudRuns.experimentId(runtime.console());
        try (ExperimentStore store = ExperimentStore.openReadOnly(experiments.resolve(id))) {
            assertEquals(5, store.trials().size());
            assertTrue(store.trials().stream().allMatch(t -> t.status().equals("SUCCEEDED")));
            CloudRuns.assertEveryMetricOnce(store);
        }
        assertTrue(pai.refused().toString(), pai.refused().isEmpty());
        List<PaiJob> jobs = pai.jobs();
        assertTrue(jobs.size() + " environments for 2 trials at a time", jobs.size() >= 1 && jobs.size() <= 2);
        for (PaiJob job : jobs) {
            assertTrue(job.name(), job.name().matches("nni_exp_" + id + "_env_\\w{5}"));
            assertEquals(List.of("worker", "ps"), iterable(job.protocol().path("taskRoles").fieldNames()));
            String env = job.name().substring(job.name().lastIndexOf('_') + 1);
            // the second role ran its own commands, rendered by OpenPAI, in a copy of the code on the storage
            Path ran = storage.resolve(id).resolve("envs").resolve(env).resolve("roles").resolve("ps_0").resolve("ps-ran.txt");
            assertEquals("hello from ps", Files.readString(ran).strip());
            assertTrue(Files.isRegularFile(ran.resolveSibling("trial.py")));
            // the experiment's end stopped the environments
            assertTrue(job.name(), stopped(job.name()));
            // no environment outlives the experiment: stopped, or ended by its keeper told to leave before the STOP arrived
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertTrue(job.name() + " is " + job.state(),
                    Set.of("STOPPED", "SUCCEEDED").contains(job.state())));
        }
        assertFalse(calls("GET", "jobs?username=alice").isEmpty());
        assertTrue("reuse mode asks for the list, not for each job", calls("GET", "/jobs/alice~").isEmpty());
    }

    @Test(timeout = 240_000)
    public void aCancelledTrialsJobIsStoppedAFailedJobGivesItsExitCodeAVanishedJobFailsItsTrial() throws Exception {
        Path config = config(TOKEN, """
                mode: {_type: choice, _value: [cancel, fail, vanish]}
                """, """
                  reuseMode: false
                  openpaiConfig:
                    protocolVersion: 2
                    name: replaced-by-nni
                    type: job
                    prerequisites:
                      - {type: dockerimage, uri: 'msranni/nni:latest', name: image}
                    taskRoles:
                      worker:
                        dockerImage: image
                        completion: {minFailedInstances: 1, minSucceededInstances: 1}
                        resourcePerInstance: {cpu: 1, memoryMB: 2048, gpu: 0}
                        commands: [python3 trial.py]
                      ps:
                        dockerImage: image
                        completion: {minFailedInstances: 1, minSucceededInstances: -1}
                        resourcePerInstance: {cpu: 1, memoryMB: 1024, gpu: 0}
                        commands: [python3 ps.py]
                trialConcurrency: 1
                maxTrialNumber: 3
                tuner: {name: GridSearch}
                """);
        run(config);
        await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> runtime.get("trial-jobs?status=RUNNING").size() == 1);
        String cancelled = runtime.get("trial-jobs?status=RUNNING").get(0).get("trialJobId").asText();
        String id = runtime.get("experiment").get("id").asText();
        assertEquals(200, runtime.request("DELETE", "trial-jobs/" + cancelled, null).statusCode());
        await().atMost(Duration.ofSeconds(30)).until(() -> stopped("nni_exp_" + id + "_trial_" + cancelled));

        // the second trial's ps role exits 7: OpenPAI fails the job; the third one's job vanishes.
        // The running and the failed trials come from one reading: read apart, the failing trial
        // could still run in the first and have failed in the second, and its job would vanish.
        AtomicReference<String> third = new AtomicReference<>();
        await().atMost(Duration.ofSeconds(90)).until(() -> {
            List<JsonNode> trials = iterable(runtime.get("trial-jobs").elements());
            List<String> running = trials.stream().filter(t -> t.get("status").asText().equals("RUNNING"))
                    .map(t -> t.get("trialJobId").asText()).toList();
            long failed = trials.stream().filter(t -> t.get("status").asText().equals("FAILED")).count();
            if (running.size() != 1 || running.get(0).equals(cancelled) || failed != 1) {
                return false;
            }
            third.set(running.get(0));
            return true;
        });
        String vanishing = third.get();
        // vanish the job once OpenPAI has it: were it not there yet, nothing would vanish and the trial would run on
        await().atMost(Duration.ofSeconds(30)).until(() -> pai.vanish("nni_exp_" + id + "_trial_" + vanishing));
        // DONE with no trial that succeeded: run says so with its exit code 5
        runtime.assertExit(5, Duration.ofSeconds(120));
        try (ExperimentStore store = ExperimentStore.openReadOnly(experiments.resolve(id))) {
            assertEquals(Map.of("cancel", "USER_CANCELED", "fail", "FAILED", "vanish", "FAILED"), CloudRuns.statusBy(store, "mode"));
            for (TrialRecord trial : store.trials()) {
                JsonNode mode = RuntimeProcess.JSON.readTree(trial.parameters()).get("parameters").get("mode");
                if (mode.asText().equals("fail")) {
                    assertTrue(trial.message(), trial.message().contains("FAILED with exit code 7"));
                } else if (mode.asText().equals("vanish")) {
                    assertTrue(trial.message(), trial.message().contains("no longer exists"));
                }
            }
        }
        assertEquals("FAILED", pai.jobs().get(1).state());
        assertEquals(7, pai.jobs().get(1).exitCode().intValue());
        assertTrue(pai.refused().toString(), pai.refused().isEmpty());
    }

    @Test(timeout = 120_000)
    public void aRefusedTokenStopsTheSessionWithAClearMessageAndTheTokenIsInNoLog() throws Exception {
        String wrong = "wrong-token-0d9e8f7a6b";
        run(config(wrong, "x: {_type: choice, _value: [1]}", "trialConcurrency: 1\nmaxTrialNumber: 1\ntuner: {name: Random}\n"));
        int exit = runtime.awaitExit(Duration.ofSeconds(90));
        String console = runtime.console() + runtime.log();
        assertEquals(console, 1, exit);
        assertTrue(console, console.contains("OpenPAI at " + pai.host() + " (user alice) answered HTTP 401"));
        assertTrue(console, console.contains("the token is wrong, expired or not user alice's"));
        assertTrue("nothing submitted", calls("POST", "/jobs").isEmpty());
        CloudRuns.assertNowhere(wrong, console, runtime.home, experiments);
    }

    @Test(timeout = 240_000)
    public void answers503ForAWhileAreWaitedOutAndNoTrialIsLost() throws Exception {
        Path config = config(TOKEN, "x: {_type: randint, _value: [0, 100]}", """
                trialConcurrency: 2
                maxTrialNumber: 4
                tuner: {name: Random}
                """);
        pai.faults().failFor(Duration.ofSeconds(8), 503);
        run(config);
        runtime.assertExit(0, Duration.ofSeconds(200));
        // the refused submissions waited with their reason: the log keeps it (a trial shows it only while it waits)
        String log = runtime.log();
        assertTrue(log, log.lines().anyMatch(line -> line.contains("retrying in") && line.contains("answered HTTP 503")));
        String id = CloudRuns.experimentId(runtime.console());
        try (ExperimentStore store = ExperimentStore.openReadOnly(experiments.resolve(id))) {
            assertEquals(4, store.trials().size());
            assertTrue(store.trials().stream().allMatch(t -> t.status().equals("SUCCEEDED")));
            CloudRuns.assertEveryMetricOnce(store);
        }
        assertTrue(pai.requests().stream().anyMatch(r -> r.method().equals("POST")));
        assertTrue(pai.refused().toString(), pai.refused().isEmpty());
        try (Stream<Path> logs = Files.list(runtime.home.resolve("log"))) {
            assertTrue(logs.findAny().isPresent());
        }
        CloudRuns.assertNowhere(TOKEN, runtime.console(), runtime.home, experiments);
    }

    @Test(timeout = 240_000)
    public void afterAKillMinus9ResumeFindsTheJobsAgainByNameAndLosesNoMetric() throws Exception {
        Path release = folder.getRoot().toPath().resolve("release");
        Path config = config(TOKEN, """
                x: {_type: choice, _value: [10, 20]}
                release: {_type: choice, _value: ['%s']}
                """.formatted(release), """
                trialConcurrency: 2
                maxTrialNumber: 2
                tuner: {name: GridSearch}
                """);
        Path home = home(Map.of());
        int port;
        try (java.net.ServerSocket socket = new java.net.ServerSocket(0, 1, java.net.InetAddress.getByName("127.0.0.1"))) {
            port = socket.getLocalPort();
        }
        runtime = RuntimeProcess.start(Map.of(), port, home, experiments, "run", config.toString());
        await().atMost(Duration.ofSeconds(90)).ignoreExceptions().until(() -> runtime.get("trial-jobs?status=RUNNING").size() == 2
                && runtime.get("metric-data").size() == 6);
        String id = runtime.get("experiment").get("id").asText();
        runtime.kill9();

        // the jobs and their keepers go on while no runtime listens; the keepers keep what they cannot send
        Files.writeString(release, "go");
        runtime = RuntimeProcess.start(Map.of(), port, home, experiments, "resume", id);
        runtime.assertExit(0, Duration.ofSeconds(180));
        String log = runtime.log();
        assertTrue(log, log.contains("found again"));
        try (ExperimentStore store = ExperimentStore.openReadOnly(experiments.resolve(id))) {
            assertEquals(2, store.trials().size());
            assertTrue(store.trials().stream().allMatch(t -> t.status().equals("SUCCEEDED")));
            CloudRuns.assertEveryMetricOnce(store);
        }
        List<PaiJob> jobs = pai.jobs();
        assertEquals("the environments ran through the restart: none was submitted again", 2, jobs.size());
        for (PaiJob job : jobs) {
            assertTrue(job.name(), calls("GET", "/jobs/alice~" + job.name()).size() >= 1); // looked up by name on resume
            // no environment outlives the experiment: stopped, or ended by its keeper told to leave before the STOP arrived
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertTrue(job.name() + " is " + job.state(),
                    Set.of("STOPPED", "SUCCEEDED").contains(job.state())));
        }
        assertTrue(pai.refused().toString(), pai.refused().isEmpty());
    }

    private static <T> List<T> iterable(java.util.Iterator<T> iterator) {
        List<T> list = new java.util.ArrayList<>();
        iterator.forEachRemaining(list::add);
        return list;
    }
}
