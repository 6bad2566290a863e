package nni.itest.remote;

import static org.awaitility.Awaitility.await;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.junit.Assume.assumeTrue;
import static org.ops4j.pax.exam.CoreOptions.bundle;
import static org.ops4j.pax.exam.CoreOptions.frameworkProperty;
import static org.ops4j.pax.exam.CoreOptions.mavenBundle;

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
        return new Option[] {baseOptions(),
                frameworkProperty("nni.experiments.dir").value(Files.createTempDirectory("nni-remote-it").toString()),
                mavenBundle("com.github.mwiede", "jsch").versionAsInProject(),
                bundle(reactorBundle("nni.ts.remote")),
                bundle(reactorBundle("nni.itest.sshd"))};
    }

    /** Starts the machines once for the class (Pax Exam runs class rules around every method; the harness stops them at JVM exit). */
    @Before
    public void machines() throws Exception {
        if (sshd == null) {
            String unavailable = SshdHarness.unavailableReason();
            assumeTrue("skipped: " + unavailable, unavailable == null);
            // parameter set k is {"x": k}: no tuner bundle needed
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
            sshd = SshdHarness.start(2);
            tools = sshd.toolsDirectory("tools");
            shared = sshd.toolsDirectory("shared");
            Files.setPosixFilePermissions(shared, PosixFilePermissions.fromString("rwxrwxrwx"));
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
        admin.getConfiguration("nni.ts.remote", "?").update(properties);
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            var refs = context.getServiceReferences((String) null, "(&(nni.platform=remote)(known.hosts=" + knownHosts + "))");
            return refs != null && refs.length == 1;
        });
        knownHostsInUse = knownHosts.toString();
    }

    /** Writes the experiment: the trial script reports where it ran and two PERIODICAL metrics and a FINAL one. */
    private Path experiment(String name, boolean reuse, int gpus, int trials, String slowTrialSequence) throws IOException {
        Path code = Files.createDirectories(shared.resolve(name).resolve("code"));
        Files.writeString(code.resolve("trial.sh"), String.join("\n",
                "#!/bin/bash",
                "echo \"$NNI_TRIAL_JOB_ID ${CUDA_VISIBLE_DEVICES:-none} $SSH_CONNECTION\" >> " + shared.resolve(name).resolve("placements"),
                "if [ \"$NNI_TRIAL_SEQ_ID\" = \"" + slowTrialSequence + "\" ]; then echo $$ > " + shared.resolve(name).resolve("slow.pid")
                        + "; sleep 600; fi",
                "id=$(sed -n 's/.*\"parameter_id\": *\\([0-9]*\\).*/\\1/p' \"$NNI_SYS_DIR/parameter.cfg\")",
                "m() { echo \"NNISDK_MEb'{\\\"parameter_id\\\": $id, \\\"trial_job_id\\\": \\\"$NNI_TRIAL_JOB_ID\\\", \\\"type\\\": \\\"$1\\\", \\\"sequence\\\": $2, \\\"value\\\": \\\"$3\\\"}'\"; }",
                "m PERIODICAL 0 0.1", "m PERIODICAL 1 0.2", "m FINAL 0 0.$NNI_TRIAL_SEQ_ID", ""));
        Files.writeString(code.resolve(".nniignore"), "big/\n");
        Files.createDirectories(code.resolve("big"));
        Files.write(code.resolve("big/weights.bin"), new byte[1000]);
        Files.setPosixFilePermissions(shared.resolve(name), PosixFilePermissions.fromString("rwxrwxrwx"));
        SshdMachine a = sshd.machines().get(0);
        SshdMachine b = sshd.machines().get(1);
        String yaml = String.join("\n",
                "experimentName: " + name,
                "searchSpace:",
                "  x: {_type: choice, _value: [1, 2, 3, 4, 5, 6, 7, 8]}",
                "trialCommand: bash trial.sh",
                "trialCodeDirectory: code",
                gpus > 0 ? "trialGpuNumber: " + gpus : "",
                "trialConcurrency: 4",
                "maxTrialNumber: " + trials,
                "maxExperimentDuration: 3m",
                "tuner:",
                "  name: " + TUNER,
                "trainingService:",
                "  platform: remote",
                "  reuseMode: " + reuse,
                "  machineList:",
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
                "      pythonPath: " + tools,
                "");
        Path file = shared.resolve(name).resolve("config.yml");
        Files.writeString(file, yaml);
        return file;
    }

    /** Creates an experiment through the {@code nni:create} command. @return its id */
    private String create(Path config) throws Exception {
        ServiceReference<?>[] refs = context.getServiceReferences((String) null, "(&(osgi.command.scope=nni)(osgi.command.function=create))");
        Object commands = context.getService(refs[0]);
        String answer;
        try {
            answer = (String) commands.getClass().getMethod("create", String.class).invoke(commands, config.toString());
        } catch (InvocationTargetException e) {
            throw (Exception) e.getCause();
        }
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
        Path config = experiment("reuse", true, 0, 8, "none");
        String experiment = create(config);
        awaitDone(experiment);
        assertEveryTrialSucceededWithItsMetrics(experiment, 8);
        List<String> placements = Files.readAllLines(config.resolveSibling("placements"));
        assertEquals(Set.of("127.0.0.2", "127.0.0.3"), machinesUsed(placements));
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
}
