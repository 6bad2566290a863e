package nni.itest.remote;

import static org.awaitility.Awaitility.await;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.junit.Assume.assumeTrue;
import static org.ops4j.pax.exam.CoreOptions.bundle;

import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Dictionary;
import java.util.HashSet;
import java.util.Hashtable;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.Before;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;
import org.osgi.framework.ServiceReference;
import org.osgi.service.cm.ConfigurationAdmin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import nni.api.config.ConfigProblem;
import nni.api.searchspace.SearchSpace;
import nni.api.tuner.Tuner;
import nni.api.tuner.TunerProvider;
import nni.itest.RuntimeTestSupport;
import nni.itest.sshd.SshdHarness;
import nni.itest.sshd.SshdMachine;

/**
 * The remote platform end to end: experiments with {@code platform: remote} on two real OpenSSH
 * servers on 127.0.0.2 and 127.0.0.3 (root with a key, {@code nnitest} with a password), trials run
 * by the trial keeper over SSH, metrics through the shared endpoint, a fake {@code nvidia-smi} on
 * each machine's {@code pythonPath} driving GPU placement.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class RemotePlatformIT extends RuntimeTestSupport {

    private static final Duration EXPERIMENT_WAIT = Duration.ofMinutes(3);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static SshdHarness sshd;
    private static Path shared;
    private static Path tools;
    private static String knownHostsInUse;
    private static final String TUNER = "RemoteItCounter";

    @Configuration
    public Option[] config() throws IOException {
        // nni.tuners runs the test's own Java tuner: every TunerProvider runs through its runner
        return new Option[] {baseOptions(), bundle(reactorBundle("nni.tuners")),
                bundle(reactorBundle("nni.ts.remote")),
                bundle(reactorBundle("nni.itest.sshd"))};
    }

    /** Starts the machines once for the class (Pax Exam runs class rules around every method; the harness stops them at JVM exit). */
    @Before
    public void machines() throws Exception {
        if (sshd == null) {
            String unavailable = SshdHarness.unavailableReason();
            assumeTrue("skipped: " + unavailable, unavailable == null);
            // parameter set k is {"x": k}, from a tuner of this test bundle (a third party's, to the runtime)
            Dictionary<String, Object> algorithm = new Hashtable<>();
            algorithm.put(TunerProvider.ALGORITHM, TUNER);
            context.registerService(TunerProvider.class, new TunerProvider() {
                @Override
                public List<ConfigProblem> checkArguments(Map<String, Object> classArgs) {
                    return List.of();
                }

                @Override
                public Tuner create(Map<String, Object> classArgs, SearchSpace searchSpace) {
                    return new Tuner() {
                        @Override
                        public Optional<Map<String, Object>> generateParameters(long parameterId) {
                            return Optional.of(Map.of("x", parameterId));
                        }

                        @Override
                        public void receiveTrialResult(long parameterId, Map<String, Object> parameters, double value) {
                        }
                    };
                }
            }, algorithm);
            sshd = SshdHarness.start(3, 1); // 127.0.0.4 has no Java
            tools = sshd.toolsDirectory("tools");
            shared = sshd.toolsDirectory("shared");
            Files.setPosixFilePermissions(shared, PosixFilePermissions.fromString("rwxrwxrwx"));
            // the machines' experiment root: both users of the one host write below it
            Files.setPosixFilePermissions(sshd.toolsDirectory("remote"), PosixFilePermissions.fromString("rwxrwxrwx"));
            // nvidia-smi as each machine sees it: two idle GPUs
            Path smi = tools.resolve("nvidia-smi");
            Files.writeString(smi, "#!/bin/sh\ncat <<'XML'\n<?xml version=\"1.0\" ?>\n<!DOCTYPE nvidia_smi_log SYSTEM \"nvsmi_device_v12.dtd\">\n"
                    + "<nvidia_smi_log><attached_gpus>2</attached_gpus>"
                    + "<gpu id=\"0\"><minor_number>0</minor_number><utilization><gpu_util>0 %</gpu_util></utilization><processes></processes></gpu>"
                    + "<gpu id=\"1\"><minor_number>1</minor_number><utilization><gpu_util>0 %</gpu_util></utilization><processes></processes></gpu>"
                    + "</nvidia_smi_log>\nXML\n");
            Files.setPosixFilePermissions(smi, PosixFilePermissions.fromString("rwxr-xr-x"));
        }
        configure(sshd.knownHosts());
    }

    /** Points the remote platform at a known_hosts file and waits until the component runs with it. */
    private void configure(Path knownHosts) throws Exception {
        if (knownHosts.toString().equals(knownHostsInUse)) {
            return;
        }
        ConfigurationAdmin admin = context.getService(context.getServiceReference(ConfigurationAdmin.class));
        Dictionary<String, Object> properties = new Hashtable<>();
        properties.put("known.hosts", knownHosts.toString());
        properties.put("check.interval.seconds", 1);
        properties.put("machine.lost.seconds", 5);
        properties.put("kill.grace.seconds", 2);
        properties.put("remote.directory", sshd.directory().resolve("remote").toString());
        admin.getConfiguration("nni.ts.remote", "?").update(properties);
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            var refs = context.getServiceReferences((String) null, "(&(nni.platform=remote)(known.hosts=" + knownHosts + "))");
            return refs != null && refs.length == 1;
        });
        knownHostsInUse = knownHosts.toString();
    }

    /** Writes the experiment: the trial script reports where it ran and two PERIODICAL metrics and a FINAL one. */
    private Path experiment(String name, boolean reuse, int gpus, int trials, String slowTrialSequence) throws IOException {
        return experiment(name, reuse, gpus, trials, slowTrialSequence, 4);
    }

    /**
     * @param slowTrialSequence a sequence-id pattern (bash {@code case}): those trials write their pid and
     *                          wait (at most 10 min) for the file {@code release} next to the config
     */
    private Path experiment(String name, boolean reuse, int gpus, int trials, String slowTrialSequence, int concurrency)
            throws IOException {
        SshdMachine a = sshd.machines().get(0);
        SshdMachine b = sshd.machines().get(1);
        return experiment(name, reuse, gpus, trials, slowTrialSequence, concurrency, String.join("\n",
                "    - host: " + a.host(),
                "      port: " + a.port(),
                "      user: root",
                "      sshKeyFile: " + sshd.passphraseKey(),
                "      sshPassphrase: \"" + SshdHarness.PASSPHRASE + "\"",
                "      pythonPath: " + tools,
                "    - host: " + b.host(),
                "      port: " + b.port(),
                "      user: " + SshdHarness.USER,
                "      password: \"" + sshd.password() + "\"",
                "      pythonPath: " + tools));
    }

    /** @param machineList the YAML lines of {@code trainingService.machineList}'s entries */
    private Path experiment(String name, boolean reuse, int gpus, int trials, String slowTrialSequence, int concurrency,
                            String machineList) throws IOException {
        Path code = Files.createDirectories(shared.resolve(name).resolve("code"));
        Files.writeString(code.resolve("trial.sh"), String.join("\n",
                "#!/bin/bash",
                "echo \"$NNI_TRIAL_JOB_ID ${CUDA_VISIBLE_DEVICES:-none} $SSH_CONNECTION java=$(command -v java || echo none)\" >> "
                        + shared.resolve(name).resolve("placements"),
                "case \"$NNI_TRIAL_SEQ_ID\" in " + slowTrialSequence + ") echo $$ > " + shared.resolve(name).resolve("slow.pid")
                        + "; n=0; while [ ! -e " + shared.resolve(name).resolve("release") + " ] && [ $n -lt 6000 ]; do sleep 0.1; n=$((n+1)); done;; esac",
                "id=$(sed -n 's/.*\"parameter_id\": *\\([0-9]*\\).*/\\1/p' \"$NNI_SYS_DIR/parameter.cfg\")",
                "m() { echo \"NNISDK_MEb'{\\\"parameter_id\\\": $id, \\\"trial_job_id\\\": \\\"$NNI_TRIAL_JOB_ID\\\", \\\"type\\\": \\\"$1\\\", \\\"sequence\\\": $2, \\\"value\\\": \\\"$3\\\"}'\"; }",
                "m PERIODICAL 0 0.1", "m PERIODICAL 1 0.2", "m FINAL 0 0.$NNI_TRIAL_SEQ_ID", ""));
        Files.writeString(code.resolve(".nniignore"), "big/\n");
        Files.createDirectories(code.resolve("big"));
        Files.write(code.resolve("big/weights.bin"), new byte[1000]);
        Files.setPosixFilePermissions(shared.resolve(name), PosixFilePermissions.fromString("rwxrwxrwx"));
        // trials of both users append here
        Path placements = Files.writeString(shared.resolve(name).resolve("placements"), "");
        Files.setPosixFilePermissions(placements, PosixFilePermissions.fromString("rw-rw-rw-"));
        String yaml = String.join("\n",
                "experimentName: " + name,
                "searchSpace:",
                "  x: {_type: choice, _value: [1, 2, 3, 4, 5, 6, 7, 8]}",
                "trialCommand: bash trial.sh",
                "trialCodeDirectory: code",
                gpus > 0 ? "trialGpuNumber: " + gpus : "",
                "trialConcurrency: " + concurrency,
                "maxTrialNumber: " + trials,
                "maxExperimentDuration: 3m",
                "experimentWorkingDirectory: " + Path.of(System.getProperty("nni.bundles.dir"), "nni.itest", "target", "remote-it-experiments")
                        .toAbsolutePath().normalize(),
                "tuner:",
                "  name: " + TUNER,
                "trainingService:",
                "  platform: remote",
                "  reuseMode: " + reuse,
                "  machineList:",
                machineList,
                "");
        Path file = shared.resolve(name).resolve("config.yml");
        Files.writeString(file, yaml);
        return file;
    }

    /** Runs the Gogo command {@code nni:<function> <argument>} as the console would. */
    @SuppressWarnings("unchecked")
    private <T> T command(String function, String argument) throws Exception {
        ServiceReference<?>[] refs = context.getServiceReferences((String) null,
                "(&(osgi.command.scope=nni)(osgi.command.function=" + function + "))");
        Object commands = context.getService(refs[0]);
        try {
            return (T) commands.getClass().getMethod(function, String.class).invoke(commands, argument);
        } catch (InvocationTargetException e) {
            throw (Exception) e.getCause();
        }
    }

    /** Creates an experiment through the {@code nni:create} command. @return its id */
    private String create(Path config) throws Exception {
        String answer = command("create", config.toString());
        Matcher id = Pattern.compile("experiment (\\S+) ").matcher(answer);
        assertTrue(answer, id.find());
        return id.group(1);
    }

    private JsonNode api(String path, String experiment) throws Exception {
        HttpResponse<String> response = get("api/v1/nni/" + path + (path.contains("?") ? "&" : "?") + "experiment_id=" + experiment);
        assertEquals(response.body(), 200, response.statusCode());
        return JSON.readTree(response.body());
    }

    private void awaitDone(String experiment) {
        await().atMost(EXPERIMENT_WAIT).until(() -> {
            String status = api("check-status", experiment).path("status").asText();
            assertFalse("experiment ended in ERROR: " + api("check-status", experiment), status.equals("ERROR"));
            return status.equals("DONE");
        });
    }

    /** @return the SSH server addresses trials ran on, from their placement lines */
    private static Set<String> machinesUsed(List<String> placements) {
        Set<String> servers = new HashSet<>();
        for (String line : placements) {
            String[] parts = line.split(" ");
            servers.add(parts[4]); // SSH_CONNECTION: client address, client port, server address, server port
        }
        return servers;
    }

    /**
     * Where the keeper ran is shown by {@code nni:trial} and in the trial's REST record: the machine
     * as host, the keeper and its interpreter's version as attribute {@code keeper}.
     *
     * @param machine the machine every trial ran on, or null when they ran on several
     */
    private void assertKeeperShown(String experiment, SshdMachine machine, String keeperPattern) throws Exception {
        for (JsonNode job : api("trial-jobs", experiment)) {
            String keeper = job.path("attributes").path("keeper").asText();
            assertTrue(job.toString(), keeper.matches(keeperPattern));
            String host = job.path("host").asText();
            assertTrue(job.toString(), machine == null ? host.startsWith("127.0.0.") : host.equals(machine.host() + ":" + machine.port()));
            Map<String, Object> shown = command("trial", job.path("trialJobId").asText());
            assertEquals(shown.toString(), Map.of("keeper", keeper), shown.get("attributes"));
            assertEquals(shown.toString(), host, shown.get("host"));
        }
    }

    private void assertEveryTrialSucceededWithItsMetrics(String experiment, int trials) throws Exception {
        JsonNode jobs = api("trial-jobs", experiment);
        assertEquals(jobs.toString(), trials, jobs.size());
        for (JsonNode job : jobs) {
            assertEquals(job.toString(), "SUCCEEDED", job.path("status").asText());
            JsonNode metrics = api("metric-data/" + job.path("trialJobId").asText(), experiment);
            assertEquals(metrics.toString(), 3, metrics.size());
        }
    }

    @Test(timeout = 240_000)
    public void perTrialModeRunsTrialsOnBothMachinesWithGpusFromNvidiaSmi() throws Exception {
        Path config = experiment("per-trial", false, 1, 6, "none");
        String experiment = create(config);
        awaitDone(experiment);
        assertEveryTrialSucceededWithItsMetrics(experiment, 6);
        assertKeeperShown(experiment, null, "java (1[7-9]|[2-9]\\d)");
        List<String> placements = Files.readAllLines(config.resolveSibling("placements"));
        assertEquals(placements.toString(), 6, placements.size());
        assertEquals(Set.of("127.0.0.2", "127.0.0.3"), machinesUsed(placements));
        for (String line : placements) {
            String gpu = line.split(" ")[1];
            assertTrue(line, gpu.equals("0") || gpu.equals("1"));
        }
    }

    @Test(timeout = 240_000)
    public void reuseModeRunsTrialsOnBothMachinesThroughLongLivedKeepers() throws Exception {
        // the first two trials hold their environments until both run, so that both machines get one
        Path config = experiment("reuse", true, 0, 8, "0|1", 2);
        String experiment = create(config);
        Path placementsFile = config.resolveSibling("placements");
        await().atMost(Duration.ofSeconds(60)).until(() -> Files.readAllLines(placementsFile).size() == 2);
        assertEquals(Set.of("127.0.0.2", "127.0.0.3"), machinesUsed(Files.readAllLines(placementsFile)));
        Files.writeString(config.resolveSibling("release"), "");
        awaitDone(experiment);
        assertEveryTrialSucceededWithItsMetrics(experiment, 8);
        List<String> placements = Files.readAllLines(placementsFile);
        assertEquals(8, placements.size());
        // trials ran one after another in the two long-lived keepers: each keeper's directory saw several
        Set<String> keeperDirectories = new HashSet<>();
        for (JsonNode job : api("trial-jobs", experiment)) {
            keeperDirectories.add(job.path("logPath").asText());
        }
        assertEquals(keeperDirectories.toString(), 2, keeperDirectories.size());
    }

    @Test(timeout = 240_000)
    public void cancelKillsTheTrialsProcessesOnItsMachine() throws Exception {
        Path config = experiment("cancel", false, 0, 2, "0");
        String experiment = create(config);
        Path pidFile = config.resolveSibling("slow.pid");
        await().atMost(Duration.ofSeconds(60)).until(() -> Files.exists(pidFile) && !Files.readString(pidFile).isBlank());
        long pid = Long.parseLong(Files.readString(pidFile).strip());
        assertTrue(ProcessHandle.of(pid).isPresent());
        String slowTrial = null;
        for (JsonNode job : api("trial-jobs", experiment)) {
            if (job.path("sequenceId").asInt() == 0) {
                slowTrial = job.path("trialJobId").asText();
            }
        }
        HttpResponse<String> cancel = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                endpoint().resolve(URI.create("api/v1/nni/trial-jobs/" + slowTrial + "?experiment_id=" + experiment))).DELETE().build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(cancel.body(), 200, cancel.statusCode());
        await().atMost(Duration.ofSeconds(30)).until(() -> ProcessHandle.of(pid).map(p -> !p.isAlive()).orElse(true));
        assertFalse(Files.exists(config.resolveSibling("release"))); // it ended by the cancel, not by itself
        String trial = slowTrial;
        await().atMost(EXPERIMENT_WAIT).until(() -> {
            for (JsonNode job : api("trial-jobs", experiment)) {
                if (job.path("trialJobId").asText().equals(trial)) {
                    return job.path("status").asText().equals("USER_CANCELED");
                }
            }
            return false;
        });
        awaitDone(experiment);
    }

    @Test(timeout = 120_000)
    public void badCredentialsAndWrongHostKeysGiveClearErrorsAndTheRuntimeGoesOn() throws Exception {
        Path config = experiment("bad-password", false, 0, 1, "none");
        String yaml = Files.readString(config).replace(sshd.password(), "wrong-password-77")
                .replace("sshPassphrase: \"" + SshdHarness.PASSPHRASE + "\"", "sshPassphrase: \"wrong-passphrase-88\"");
        Files.writeString(config, yaml);
        Exception refused = org.junit.Assert.assertThrows(Exception.class, () -> create(config));
        String message = refused.getMessage();
        assertTrue(message, message.contains("root@127.0.0.2:") && message.contains("nnitest@127.0.0.3:"));
        assertTrue(message, message.contains("authentication failed"));
        assertFalse(message, message.contains("wrong-password-77") || message.contains("wrong-passphrase-88"));

        configure(sshd.wrongKnownHosts());
        try {
            Exception mismatch = org.junit.Assert.assertThrows(Exception.class, () -> create(experiment("bad-host-key", false, 0, 1, "none")));
            assertTrue(mismatch.getMessage(), mismatch.getMessage().contains("host key mismatch"));
        } finally {
            configure(sshd.knownHosts());
        }
        assertEquals(200, get("api/v1/nni/platforms").statusCode());
        assertTrue(get("api/v1/nni/platforms").body().contains("remote"));
    }

    private JsonNode trialBy(String experiment, String trialId) throws Exception {
        for (JsonNode job : api("trial-jobs", experiment)) {
            if (job.path("trialJobId").asText().equals(trialId)) {
                return job;
            }
        }
        return null;
    }

    /** @return the trial id of the placement line on {@code server} */
    private static String trialOn(List<String> placements, String server) {
        return placements.stream().filter(l -> l.split(" ")[4].equals(server)).map(l -> l.split(" ")[0]).findFirst().orElse(null);
    }

    @Test(timeout = 240_000)
    public void aLostMachinesTrialFailsWithTheReasonOthersWaitSayingWhyAndTheMachineIsUsedAgainWhenBack() throws Exception {
        // two GPUs per machine, two per trial: one trial per machine at a time
        Path config = experiment("lost-machine", false, 2, 4, "0|1|2", 2);
        String experiment = create(config);
        Path placementsFile = config.resolveSibling("placements");
        await().atMost(Duration.ofSeconds(60)).until(() -> Files.readAllLines(placementsFile).size() == 2);
        List<String> placements = Files.readAllLines(placementsFile);
        assertEquals(Set.of("127.0.0.2", "127.0.0.3"), machinesUsed(placements));
        String onB = trialOn(placements, "127.0.0.3");
        SshdMachine b = sshd.machines().get(1);
        b.stop();
        try {
            await().atMost(Duration.ofSeconds(60)).until(() -> "FAILED".equals(trialBy(experiment, onB).path("status").asText()));
            String why = trialBy(experiment, onB).path("message").asText();
            assertTrue(why, why.contains("machine 127.0.0.3:" + b.port() + " unreachable") && why.contains("connection refused"));
            // the next trial waits: the other machine's GPUs are taken, this one is gone
            String expected = "needs 2 GPUs; 127.0.0.2:" + sshd.machines().get(0).port() + ": 0 free; 127.0.0.3:" + b.port()
                    + ": unreachable (connection refused)";
            await().atMost(Duration.ofSeconds(60)).until(() -> {
                for (JsonNode job : api("trial-jobs", experiment)) {
                    if (job.path("status").asText().equals("WAITING")) {
                        return expected.equals(this.<Map<String, Object>>command("trial", job.path("trialJobId").asText()).get("waiting"));
                    }
                }
                return false;
            });
        } finally {
            b.start();
        }
        // back: the waiting trial goes there
        await().atMost(Duration.ofSeconds(60)).until(() -> Files.readAllLines(placementsFile).size() == 3);
        assertEquals("127.0.0.3", Files.readAllLines(placementsFile).get(2).split(" ")[4]);
        Files.writeString(config.resolveSibling("release"), "");
        awaitDone(experiment);
        JsonNode jobs = api("trial-jobs", experiment);
        assertEquals(jobs.toString(), 4, jobs.size());
        int succeeded = 0;
        for (JsonNode job : jobs) {
            succeeded += job.path("status").asText().equals("SUCCEEDED") ? 1 : 0;
        }
        assertEquals(jobs.toString(), 3, succeeded);
    }

    @Test(timeout = 120_000)
    public void aTrialNoMachineCanEverHoldFailsSayingWhy() throws Exception {
        String experiment = create(experiment("too-many-gpus", false, 3, 1, "none"));
        await().atMost(Duration.ofSeconds(60)).until(() -> {
            JsonNode jobs = api("trial-jobs", experiment);
            return jobs.size() == 1 && jobs.get(0).path("status").asText().equals("FAILED");
        });
        String why = api("trial-jobs", experiment).get(0).path("message").asText();
        assertTrue(why, why.contains("no machine can ever run it: needs 3 GPUs; 127.0.0.2:"));
        assertTrue(why, why.contains("has only 2 usable GPUs"));
    }

    /** @return the machineList entry logging in to {@code machine} as root, with {@code pythonPath} first on PATH */
    private String rootOn(SshdMachine machine, Path pythonPath) {
        return String.join("\n",
                "    - host: " + machine.host(),
                "      port: " + machine.port(),
                "      user: root",
                "      sshKeyFile: " + sshd.userKey(),
                "      pythonPath: " + pythonPath);
    }

    @Test(timeout = 300_000)
    public void aMachineWithoutJavaRunsTrialsThroughThePythonKeeperPerTrialAndInReuseMode() throws Exception {
        SshdMachine noJava = sshd.machines().get(2);
        assertFalse(noJava.hasJava());
        for (boolean reuse : new boolean[] {false, true}) {
            Path config = experiment(reuse ? "no-java-reuse" : "no-java-per-trial", reuse, 0, 3, "none", 2, rootOn(noJava, tools));
            String experiment = create(config);
            awaitDone(experiment);
            assertEveryTrialSucceededWithItsMetrics(experiment, 3);
            assertKeeperShown(experiment, noJava, "python 3\\.\\d+");
            List<String> placements = Files.readAllLines(config.resolveSibling("placements"));
            assertEquals(placements.toString(), 3, placements.size());
            for (String line : placements) {
                assertTrue("the trial ran on the machine without Java: " + line, line.contains(" " + noJava.host() + " ") && line.endsWith("java=none"));
            }
            Path machineDirectory = sshd.directory().resolve("remote").resolve(experiment).resolve("root@" + noJava.host() + "_" + noJava.port());
            assertTrue(Files.exists(machineDirectory.resolve("nni-trialkeeper.py")));
            assertFalse("no keeper jar is uploaded where it cannot run", Files.exists(machineDirectory.resolve("nni-trialkeeper.jar")));
            List<Path> keepers;
            try (var environments = Files.list(machineDirectory.resolve("envs"))) {
                keepers = environments.map(e -> e.resolve("keeper.stderr")).toList();
            }
            // one keeper per trial, or at most trialConcurrency long-lived ones
            assertTrue(keepers.toString(), reuse ? keepers.size() >= 1 && keepers.size() <= 2 : keepers.size() == 3);
            for (Path stderr : keepers) {
                String said = Files.readString(stderr);
                assertTrue(said, said.contains("(protocol 1, Python 3.") && said.contains("connected to manager"));
            }
        }
    }

    @Test(timeout = 120_000)
    public void aMachineWithNeitherJava17NorPython37IsRefusedNamingItAndBothRequirements() throws Exception {
        Path oldPython = sshd.toolsDirectory("old-python");
        Path python3 = Files.writeString(oldPython.resolve("python3"), "#!/bin/sh\necho 'Python 3.6.9'\n");
        Files.setPosixFilePermissions(python3, PosixFilePermissions.fromString("rwxr-xr-x"));
        SshdMachine noJava = sshd.machines().get(2);
        Exception refused = org.junit.Assert.assertThrows(Exception.class,
                () -> create(experiment("neither", false, 0, 1, "none", 1, rootOn(noJava, oldPython))));
        assertTrue(refused.getMessage(), refused.getMessage().contains("machine " + noJava.host() + ":" + noJava.port()
                + " can run no trial keeper: it needs Java 17 or newer (`java -version`: not found) or Python 3.7 or newer"
                + " (`python3 --version`: Python 3.6.9)"));
    }

    /**
     * The web UI's machines route shows both machines of a remote experiment with the GPUs their
     * nvidia-smi reports, and the running trial on the GPU its keeper was given.
     */
    @Test(timeout = 240_000)
    public void theMachinesViewShowsEachMachinesGpusAndTheTrialOnOne() throws Exception {
        Path config = experiment("machines", false, 1, 1, "0", 1);
        String experiment = create(config);
        await().atMost(Duration.ofSeconds(60)).until(() -> Files.exists(config.resolveSibling("slow.pid")));
        String trial = api("trial-jobs", experiment).get(0).path("trialJobId").asText();

        JsonNode session = await().atMost(Duration.ofSeconds(60)).until(() -> {
            for (JsonNode row : JSON.readTree(get("api/v1/nni-ui/machines").body()).path("sessions")) {
                if (row.path("experiment").asText().equals(experiment)) {
                    return row;
                }
            }
            return null;
        }, row -> row != null && row.path("machines").size() == 2 && row.path("machines").findValues("trials").stream()
                .anyMatch(trials -> trials.toString().contains(trial)));
        assertEquals(session.toString(), "remote", session.path("platform").asText());
        assertEquals(session.toString(), "open", session.path("state").asText());
        int holding = 0;
        for (JsonNode machine : session.path("machines")) {
            assertEquals(machine.toString(), 2, machine.path("gpus").size());
            for (JsonNode gpu : machine.path("gpus")) {
                assertEquals(gpu.toString(), 0, gpu.path("utilization").asInt(-1));
                holding += gpu.path("trials").toString().contains(trial) ? 1 : 0;
            }
        }
        assertEquals(session.toString(), 1, holding);
        Files.writeString(config.resolveSibling("release"), "");
        awaitDone(experiment);
    }
}
