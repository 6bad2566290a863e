package nni.itest.launcher;

import static org.awaitility.Awaitility.await;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.junit.After;
import org.junit.Assume;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import nni.itest.sshd.SshdHarness;
import nni.itest.sshd.SshdMachine;
import nni.store.ExperimentStore;
import nni.store.MetricRecord;
import nni.store.TrialRecord;

/**
 * Experiments whose algorithms run through NNI's dispatcher ({@code nni.dispatcher}), end to end
 * with the runnable jar: the dispatcher is a stand-in of the {@code nni} package written for these
 * tests (standard library only, {@code src/test/resources/standin}) that speaks NNI's protocol over
 * the WebSocket channel, v3.0's framing or v2.8's, and loads tuner and assessor classes from the
 * experiment's {@code codeDirectory} as NNI does. Where the real {@code nni} package is importable,
 * the first experiment also runs against it.
 */
public class DispatcherIT {

    private static final Pattern STARTED = Pattern.compile("experiment (\\w{8}) started in (\\S+)");

    @Rule
    public TemporaryFolder folder = new TemporaryFolder();

    private RuntimeProcess runtime;

    @After
    public void stop() throws InterruptedException {
        if (runtime != null) {
            runtime.close();
        }
    }

    // ------------------------------------------------------------------ set-up

    /** @return an interpreter that finds the stand-in nni package (and only the dispatcher gets it), with extra environment */
    private Path standIn(String... environment) throws IOException {
        Path root = folder.newFolder("standin").toPath();
        Path nni = Files.createDirectories(root.resolve("nni"));
        for (String file : List.of("__init__.py", "__main__.py", "_ws.py", "tuner.py", "assessor.py")) {
            copy("/standin/nni/" + file, nni.resolve(file));
        }
        Path python = root.resolve("python");
        Files.writeString(python, "#!/bin/sh\nPYTHONPATH=" + root + " " + String.join(" ", environment)
                + " exec python3 \"$@\"\n");
        Files.setPosixFilePermissions(python, PosixFilePermissions.fromString("rwxr-xr-x"));
        return python;
    }

    private static void copy(String resource, Path target) throws IOException {
        try (InputStream in = DispatcherIT.class.getResourceAsStream(resource)) {
            Files.copy(in, target);
        }
    }

    /** @return a runtime home whose nni.dispatcher runs {@code python}, pinged every second, given up after 4 s of silence */
    private Path home(Path python) throws IOException {
        Path home = folder.newFolder("home").toPath();
        Files.createDirectories(home.resolve("etc"));
        Files.writeString(home.resolve("etc").resolve("nni.dispatcher.cfg"), "python.command=" + python
                + "\nping.seconds=1\nsilence.seconds=4\nconnect.seconds=30\nstop.seconds=5\n");
        return home;
    }

    /** @return a code folder with the test's algorithms and trials, and {@code config.yml} of the given text */
    private Path experiment(String config) throws IOException {
        Path code = folder.newFolder("code").toPath();
        for (String file : List.of("algorithms.py", "multiphase_trial.py", "intermediate_trial.py")) {
            copy("/dispatcher/" + file, code.resolve(file));
        }
        Files.writeString(code.resolve("config.yml"), config);
        return code.resolve("config.yml");
    }

    private static Path experimentDirectory(String console) {
        Matcher started = STARTED.matcher(console);
        assertTrue(console, started.find());
        return Path.of(started.group(2));
    }

    /** @return the commands the (last started) stand-in dispatcher of an experiment received, its start record first */
    private static List<JsonNode> commands(Path experiment) throws IOException {
        List<JsonNode> all = new ArrayList<>();
        for (String line : Files.readAllLines(experiment.resolve("log").resolve("standin-commands.jsonl"))) {
            JsonNode command = RuntimeProcess.JSON.readTree(line);
            if (command.get("type").asText().equals("_start_")) {
                all.clear();
            }
            all.add(command);
        }
        return all;
    }

    private static List<String> types(List<JsonNode> commands) {
        return commands.stream().map(c -> c.get("type").asText()).toList();
    }

    private static List<JsonNode> metrics(List<JsonNode> commands, String type) throws IOException {
        List<JsonNode> metrics = new ArrayList<>();
        for (JsonNode command : commands) {
            if (command.get("type").asText().equals("ME")) {
                JsonNode metric = RuntimeProcess.JSON.readTree(command.get("content").asText());
                if (metric.get("type").asText().equals(type)) {
                    metrics.add(metric);
                }
            }
        }
        return metrics;
    }

    private static final String COUNTING = """
            searchSpace:
              x: {_type: factor, _value: [1, 2, 3]}
            trialCommand: python3 intermediate_trial.py
            trialCodeDirectory: .
            trialConcurrency: 2
            maxTrialNumber: 3
            tuner:
              className: algorithms.Counting
              codeDirectory: .
            trainingService:
              platform: local
            """;

    // ------------------------------------------------------------------ tests

    @Test(timeout = 180_000)
    public void aCustomTunerClassFromItsCodeDirectoryRunsToDoneThroughTheDispatcher() throws Exception {
        runCustomTuner(standIn(), "3.0");
    }

    @Test(timeout = 600_000)
    public void theSameExperimentRunsAgainstTheRealNniPackage() throws Exception {
        runCustomTuner(RealNni.python("DispatcherIT"), null);
    }

    private void runCustomTuner(Path python, String version) throws Exception {
        runCustomTuner(python, version, version == null ? RealNni.patientHome(folder.newFolder("home").toPath(), python) : home(python));
    }

    /** @param version the stand-in's nni version; null: {@code python} is the real package's, which the trials use too */
    private void runCustomTuner(Path python, String version, Path home) throws Exception {
        Path config = experiment(version == null ? COUNTING.replace("python3 ", python + " ") : COUNTING);
        runtime = RuntimeProcess.start(home, folder.newFolder("experiments").toPath(), "run", config.toString());
        // the real package's dispatcher and trials import numpy and more: minutes on a loaded machine
        runtime.assertExit(0, Duration.ofSeconds(version == null ? 500 : 150));
        Path experiment = experimentDirectory(runtime.console());
        try (ExperimentStore store = ExperimentStore.openReadOnly(experiment)) {
            List<TrialRecord> trials = store.trials();
            assertEquals(3, trials.size());
            assertTrue(trials.toString(), trials.stream().allMatch(t -> t.status().equals("SUCCEEDED")));
            // the tuner's parameters, verbatim, became the trials' parameter.cfg: the factor values in turn
            Set<Double> finals = store.metrics(null, "FINAL").stream().map(m -> Double.valueOf(m.data().replace("\"", "")))
                    .collect(Collectors.toCollection(TreeSet::new));
            assertEquals(Set.of(1.0, 2.0, 3.0), finals);
        }
        String log = Files.readString(experiment.resolve("log").resolve("dispatcher.log"));
        if (version == null) {
            // the real package: its dispatcher logged the custom tuner's results, and no error
            assertFalse(log, log.contains("Traceback"));
        } else {
            assertTrue(log, log.contains("stand-in dispatcher connected (nni " + version + ")"));
            assertTrue(log, log.contains("stand-in dispatcher: terminated"));
            List<JsonNode> commands = commands(experiment);
            JsonNode start = commands.get(0).get("content");
            assertEquals("start", start.get("mode").asText());
            assertEquals("dispatcher", start.get("sdk_process").asText());
            assertEquals(experiment.resolve("log").toString(), start.get("cwd").asText());
            assertEquals(experiment.resolve("checkpoint").toString(), start.get("checkpoint").asText());
            JsonNode params = start.get("exp_params");
            assertFalse(params.toString(), params.has("searchSpace"));
            assertEquals(config.getParent().toRealPath().toString(), params.get("tuner").get("codeDirectory").asText());
            List<String> types = types(commands);
            assertEquals("IN", types.get(1));
            assertEquals("{\"x\":{\"_type\":\"factor\",\"_value\":[1,2,3]}}", commands.get(1).get("content").asText());
            assertEquals("GE", types.get(2));
            assertEquals("TE", types.get(types.size() - 1));
            assertEquals(3, types.stream().filter("EN"::equals).count());
            // a custom tuner may be an advisor: it gets the intermediate results too
            assertEquals(15, metrics(commands, "PERIODICAL").size());
            assertEquals(3, metrics(commands, "FINAL").size());
        }
    }

    @Test(timeout = 180_000)
    public void noMoreTrialsWaitsInTunerNoMoreTrialUntilTheTunerHasMore() throws Exception {
        Path config = experiment(COUNTING.replace("[1, 2, 3]", "[1, 2]").replace("maxTrialNumber: 3", "maxTrialNumber: 3")
                .replace("intermediate_trial.py", "intermediate_trial.py"));
        runtime = RuntimeProcess.start(home(standIn()), folder.newFolder("experiments").toPath(), "run", config.toString());
        // two values: two trials, then NO; the experiment waits (NNI's TUNER_NO_MORE_TRIAL), it does not end
        await().atMost(Duration.ofSeconds(90)).ignoreExceptions().until(() -> runtime.get("trial-jobs?status=SUCCEEDED").size() == 2);
        await().atMost(Duration.ofSeconds(30)).until(() -> runtime.get("check-status").get("status").asText()
                .equals("TUNER_NO_MORE_TRIAL"));
        assertTrue(runtime.process.isAlive());
        // nnictl experiment import: the results reach the dispatcher as NNI's FD
        var imported = runtime.request("POST", "experiment/import-data", "[{\"parameter\": {\"x\": 7}, \"value\": 0.5}]");
        assertEquals(imported.body(), 200, imported.statusCode());
        Path running = experimentDirectory(runtime.console());
        await().atMost(Duration.ofSeconds(30)).until(() -> types(commands(running)).contains("FD"));
        JsonNode data = RuntimeProcess.JSON.readTree(commands(running).stream().filter(c -> c.get("type").asText().equals("FD"))
                .findFirst().orElseThrow().get("content").asText());
        assertEquals(7, data.get(0).get("parameter").get("x").asInt());
        // a third value: the tuner has more, the experiment runs again and reaches maxTrialNumber
        JsonNode profile = runtime.get("experiment");
        ObjectNode space = (ObjectNode) profile.get("params").get("searchSpace");
        ((ObjectNode) space.get("x")).putArray("_value").add(1).add(2).add(3);
        var updated = runtime.request("PUT", "experiment?update_type=SEARCH_SPACE", profile.toString());
        assertEquals(updated.body(), 200, updated.statusCode());
        runtime.assertExit(0, Duration.ofSeconds(90));
        Path experiment = experimentDirectory(runtime.console());
        List<String> types = types(commands(experiment));
        assertTrue(types.toString(), types.contains("SS"));
        try (ExperimentStore store = ExperimentStore.openReadOnly(experiment)) {
            assertEquals(3, store.trials().size());
        }
    }

    @Test(timeout = 180_000)
    public void anAssessorStopsTrialsEarlyOverTheOlderFraming() throws Exception {
        Path config = experiment("""
                searchSpace:
                  x: {_type: randint, _value: [0, 100]}
                trialCommand: python3 intermediate_trial.py
                trialCodeDirectory: .
                trialConcurrency: 2
                maxTrialNumber: 2
                tuner:
                  name: Random
                  implementation: python
                assessor:
                  className: algorithms.StopsAtThree
                  codeDirectory: .
                trainingService:
                  platform: local
                """);
        runtime = RuntimeProcess.start(home(standIn("STANDIN_NNI_VERSION=2.9")), folder.newFolder("experiments").toPath(),
                "run", config.toString());
        runtime.assertExit(0, Duration.ofSeconds(150));
        Path experiment = experimentDirectory(runtime.console());
        try (ExperimentStore store = ExperimentStore.openReadOnly(experiment)) {
            List<TrialRecord> trials = store.trials();
            assertEquals(2, trials.size());
            assertTrue(trials.toString(), trials.stream().allMatch(t -> t.status().equals("EARLY_STOPPED")));
        }
        String log = Files.readString(experiment.resolve("log").resolve("dispatcher.log"));
        assertTrue(log, log.contains("stand-in dispatcher connected (nni 2.9)"));
        assertEquals("false", commands(experiment).get(0).get("content").get("intermediate").asText());
        assertTrue(runtime.log(), runtime.log().contains("v2.8 framing"));
        assertTrue(metrics(commands(experiment), "PERIODICAL").size() >= 6);
    }

    @Test(timeout = 300_000)
    public void aRunningTrialReceivesItsNextParametersOnTheLocalPlatform() throws Exception {
        multiPhase("platform: local", home(standIn()), false);
    }

    @Test(timeout = 300_000)
    public void aRunningTrialReceivesItsNextParametersThroughAKeeper() throws Exception {
        multiPhase("platform: local\n  reuseMode: true", home(standIn()), true);
    }

    @Test(timeout = 360_000)
    public void aRunningTrialReceivesItsNextParametersOnARemoteMachine() throws Exception {
        String unavailable = SshdHarness.unavailableReason();
        if (unavailable != null) {
            System.out.println("DispatcherIT: SKIPPED the remote multi-phase run: " + unavailable);
        }
        Assume.assumeTrue(unavailable, unavailable == null);
        try (SshdHarness sshd = SshdHarness.start(1)) {
            SshdMachine machine = sshd.machines().get(0);
            Path home = home(standIn());
            Files.writeString(home.resolve("etc").resolve("nni.ts.remote.cfg"), "known.hosts=" + sshd.knownHosts()
                    + "\nremote.directory=" + folder.newFolder("remote") + "\ncheck.interval.seconds=1\n");
            multiPhase(String.join("\n", "platform: remote", "  machineList:", "    - host: " + machine.host(),
                    "      port: " + machine.port(), "      user: root", "      sshKeyFile: " + sshd.userKey()), home, false);
        }
    }

    /**
     * Two trials of a tuner that gives x = the parameter id each ask for a second parameter set with
     * {@code nni.get_next_parameter()} (the SDK nni-osgi ships); the REST record shows both sets
     * while they run, and their results are made of both.
     */
    private void multiPhase(String trainingService, Path home, boolean keeper) throws Exception {
        Path config = experiment("""
                searchSpace: {}
                trialCommand: python3 multiphase_trial.py %s
                trialCodeDirectory: .
                trialConcurrency: 2
                maxTrialNumber: 2
                tuner:
                  className: algorithms.MultiPhase
                  codeDirectory: .
                trainingService:
                  %s
                """.formatted(folder.getRoot().toPath().resolve("release"), trainingService));
        runtime = RuntimeProcess.start(home, folder.newFolder("experiments").toPath(), "run", config.toString());
        // NNI's TrialJobInfo: hyperParameters holds every set, one JSON text per parameter_index
        try {
            // (a remote machine's first set-up may take a minute on a loaded host)
            await().atMost(Duration.ofSeconds(200)).ignoreExceptions().until(() -> {
                JsonNode trials = runtime.get("trial-jobs");
                return trials.size() == 2 && trials.get(0).get("hyperParameters").size() == 2
                        && trials.get(1).get("hyperParameters").size() == 2;
            });
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            StringBuilder files = new StringBuilder();
            try (Stream<Path> all = Files.walk(folder.getRoot().toPath())) {
                for (Path file : all.filter(p -> p.toString().matches(".*(\\.log|stderr|stdout)$") && Files.isRegularFile(p)).toList()) {
                    String text = new String(Files.readAllBytes(file), java.nio.charset.StandardCharsets.ISO_8859_1);
                    files.append("\n--- ").append(file).append("\n").append(text.substring(Math.max(0, text.length() - 3000)));
                }
            }
            throw new AssertionError("the trials did not get their second parameter sets: " + runtime.get("trial-jobs")
                    + "\n" + runtime.log() + files, e);
        }
        for (JsonNode trial : runtime.get("trial-jobs")) {
            JsonNode sets = trial.get("hyperParameters");
            assertEquals(sets, runtime.get("trial-jobs/" + trial.get("trialJobId").asText()).get("hyperParameters"));
            JsonNode first = RuntimeProcess.JSON.readTree(sets.get(0).asText());
            JsonNode second = RuntimeProcess.JSON.readTree(sets.get(1).asText());
            assertEquals(sets.toString(), 0, first.get("parameter_index").asInt());
            assertEquals(sets.toString(), 1, second.get("parameter_index").asInt());
            assertEquals(sets.toString(), trial.get("trialJobId").asText(), second.get("trial_job_id").asText());
            assertEquals(sets.toString(), second.get("parameter_id").asInt(), second.get("parameters").get("x").asInt());
        }
        Files.writeString(folder.getRoot().toPath().resolve("release"), "");
        runtime.assertExit(0, Duration.ofSeconds(120));
        Path experiment = experimentDirectory(runtime.console());
        if (keeper) {
            List<Path> secondFiles;
            try (Stream<Path> files = Files.walk(experiment)) {
                secondFiles = files.filter(p -> p.getFileName().toString().equals("parameter_1.cfg")).toList();
            }
            assertEquals(secondFiles.toString(), 2, secondFiles.size());
            assertTrue(secondFiles.toString(), secondFiles.stream().allMatch(p -> p.toString().contains("/environments/")));
        }
        try (ExperimentStore store = ExperimentStore.openReadOnly(experiment)) {
            // the first set had x = 0 or 1 (parameter ids 0 and 1), the second one x = 2 or 3: the trial got both
            Set<Double> finals = store.metrics(null, "FINAL").stream().map(MetricRecord::data)
                    .map(d -> Double.valueOf(d.replace("\"", ""))).collect(Collectors.toCollection(TreeSet::new));
            assertEquals(finals.toString(), 2, finals.size());
            for (double value : finals) {
                assertTrue(finals.toString(), value == 2 || value == 3 || value == 1002 || value == 1003);
            }
            long recorded = store.events().stream().filter(e -> e.event().equals("ADD_HYPERPARAMETER")).count();
            assertEquals(2, recorded);
        }
        // the SDK asked as NNI's does: a REQUEST_PARAMETER report for parameter_index 1, forwarded as ME
        List<JsonNode> requests = metrics(commands(experiment), "REQUEST_PARAMETER");
        assertEquals(2, requests.size());
        assertEquals(1, requests.get(0).get("parameter_index").asInt());
    }

    /**
     * NNI's example configs that name an algorithm nni-osgi runs through NNI's dispatcher (kept with
     * their search spaces in {@code src/test/resources/dispatcher/nni-examples}, as in NNI's
     * {@code examples/} folder; all of them validate): each starts its algorithm in the dispatcher,
     * which gets the example's algorithm sections and is asked for trials, and the first trial comes. The
     * stand-in runs Random in place of each (the algorithms themselves are NNI's business); the
     * examples' trial code and data are not here, so their trials fail, and each experiment is
     * stopped once its first trial came. The three Hyperband and BOHB examples run in Java by default
     * (nni.itest's AdvisorsIT). Left out: the 14 opevo configs (their code directories are
     * absolute paths under /root) and the NAS ones (a search space path placeholder), which do not
     * validate as NNI ships them.
     */
    @Test(timeout = 480_000)
    public void nniExampleConfigsWhoseAlgorithmsRunThroughTheDispatcherStartThem() throws Exception {
        Path examples = folder.newFolder("nni-examples").toPath();
        Path source = Path.of(DispatcherIT.class.getResource("/dispatcher/nni-examples").toURI());
        try (Stream<Path> files = Files.walk(source)) {
            for (Path file : files.filter(Files::isRegularFile).toList()) {
                Files.createDirectories(examples.resolve(source.relativize(file)).getParent());
                Files.copy(file, examples.resolve(source.relativize(file)));
            }
        }
        // what a user has beside these files: efficientnet's submodule, ga_squad's tuner folder
        Files.createDirectories(examples.resolve("trials/efficientnet/EfficientNet-PyTorch"));
        Files.createDirectories(examples.resolve("tuners/ga_customer_tuner"));
        // (an advisor section reaches NNI's dispatcher as the tuner, as NNI v3 passes it)
        Map<String, String> algorithms = new java.util.LinkedHashMap<>();
        algorithms.put("trials/auto-gbdt/config_metis.yml", "tuner MetisTuner");
        // (the Hyperband and BOHB examples run in Java, without the dispatcher: AdvisorsIT in nni.itest; with
        // implementation: python, NNI's Hyperband runs with the real package below)
        algorithms.put("trials/mnist-batch-tune-keras/config.yml", "tuner BatchTuner");
        algorithms.put("trials/mnist-pbt-tuner-pytorch/config.yml", "tuner PBTTuner");
        algorithms.put("trials/mnist-pytorch/config_assessor.yml", "tuner TPE, assessor Curvefitting");
        algorithms.put("trials/mnist-tfv1/config_assessor.yml", "tuner TPE, assessor Curvefitting");
        algorithms.put("trials/mnist-tfv2/config_assessor.yml", "tuner TPE, assessor Curvefitting");
        algorithms.put("trials/network_morphism/cifar10/config.yml", "tuner NetworkMorphism");
        algorithms.put("trials/network_morphism/FashionMNIST/config.yml", "tuner NetworkMorphism");
        algorithms.put("trials/systems_auto_tuning/rocksdb-fillrandom/config_smac.yml", "tuner SMAC");
        algorithms.put("trials/efficientnet/config.yml", "tuner tuner.FixedProductTuner");
        algorithms.put("trials/ga_squad/config.yml", "tuner customer_tuner.CustomerTuner");
        algorithms.put("tuners/mnist_keras_customized_advisor/config.yml", "tuner dummy_advisor.DummyAdvisor");
        Path experiments = folder.newFolder("experiments").toPath();
        runtime = RuntimeProcess.startWithShell(home(standIn("STANDIN_ANY_ALGORITHM=1")), experiments);
        runtime.endpoint();
        for (Map.Entry<String, String> example : algorithms.entrySet()) {
            Set<Path> before;
            try (Stream<Path> listing = Files.list(experiments)) {
                before = listing.collect(Collectors.toSet());
            }
            Path[] started = new Path[1];
            // FileInstall applies etc/nni.dispatcher.cfg (the stand-in) shortly after the shell is up: until
            // then a create is refused naming the plain python3, and is typed again (at most 30 times)
            for (int attempt = 0; started[0] == null && attempt < 30; attempt++) {
                int typedAt = runtime.console().length();
                runtime.type("nni:create " + examples.resolve(example.getKey()));
                boolean[] refused = new boolean[1];
                try {
                    await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> {
                        refused[0] = runtime.console().substring(typedAt).contains("could not start");
                        try (Stream<Path> listing = Files.list(experiments)) {
                            started[0] = listing.filter(p -> !before.contains(p) && Files.isDirectory(p)
                                    && Files.exists(p.resolve("log/standin-commands.jsonl"))).findFirst().orElse(null);
                        }
                        if (started[0] == null || !types(commands(started[0])).contains("GE")) {
                            started[0] = null;
                            return refused[0];
                        }
                        // the dispatcher was asked for trials and gave one: it became a trial folder
                        try (Stream<Path> trials = Files.list(started[0].resolve("trials"))) {
                            return trials.findAny().isPresent();
                        }
                    });
                } catch (org.awaitility.core.ConditionTimeoutException e) {
                    throw new AssertionError(example.getKey() + " did not start its algorithm:\n" + runtime.console(), e);
                }
                assertTrue(runtime.console(), started[0] != null || runtime.console().substring(typedAt).contains("cannot import it"));
            }
            assertTrue(example.getKey() + " was refused every time:\n" + runtime.console(), started[0] != null);
            List<JsonNode> commands = commands(started[0]);
            JsonNode params = commands.get(0).get("content").get("exp_params");
            List<String> sections = new ArrayList<>();
            for (String kind : List.of("tuner", "assessor")) {
                JsonNode section = params.path(kind);
                if (!section.isMissingNode() && !section.isNull()) {
                    sections.add(kind + " " + section.path("name").asText(section.path("className").asText()));
                }
            }
            assertEquals(example.getKey(), example.getValue(), String.join(", ", sections));
            assertEquals(example.getKey(), List.of("IN", "GE"), types(commands).subList(1, 3));
            runtime.type("nni:halt " + started[0].getFileName());
            await().atMost(Duration.ofSeconds(60)).until(() -> types(commands(started[0])).contains("TE"));
        }
    }

    /** @return NNI 3.0's package launcher ({@code shared/nni-3.0/python3-nni} beside the checkout or above it), or null */
    private static Path realNni() {
        String given = System.getProperty("nni.real.python");
        if (given != null && !given.isBlank()) {
            return Files.isExecutable(Path.of(given)) ? Path.of(given) : null;
        }
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            Path launcher = dir.resolve("shared/nni-3.0/python3-nni");
            if (Files.isExecutable(launcher)) {
                return launcher;
            }
        }
        return null;
    }

    private static final String BUDGET_TRIAL = """
            import nni
            params = nni.get_next_parameter()
            budget, x = params['TRIAL_BUDGET'], params['x']
            for step in range(min(budget, 3)):
                nni.report_intermediate_result(x * (step + 1) / 6)
            nni.report_final_result(x)
            """;

    /** @return NNI 3.0's package launcher; skips the test, saying so, where it is not beside the checkout */
    private static Path assumeRealNni() {
        Path python = realNni();
        if (python == null) {
            System.out.println("DispatcherIT: SKIPPED NNI's Hyperband against the real package: no shared/nni-3.0/python3-nni"
                    + " beside or above " + Path.of("").toAbsolutePath() + " (or -Dnni.real.python)");
        }
        Assume.assumeTrue("NNI 3.0's package is not here", python != null);
        return python;
    }

    /**
     * Issue 25: NNI's own Hyperband, through NNI's dispatcher and the real nni 3.0 package, runs a
     * whole bracket with real budgets: the trials, NNI's SDK, read TRIAL_BUDGET and report results
     * under the advisor's string parameter ids, which NNI 3.0 alone fails on at the first result
     * (microsoft/nni#5263). Skipped, saying so, where the package is not beside the checkout.
     */
    @Test(timeout = 480_000)
    public void nnisOwnHyperbandRunsAWholeBracketWithTheRealPackage() throws Exception {
        Path python = assumeRealNni();
        Path code = folder.newFolder("hyperband").toPath();
        Files.writeString(code.resolve("trial.py"), BUDGET_TRIAL);
        Path config = Files.writeString(code.resolve("config.yml"), """
                searchSpace:
                  x: {_type: uniform, _value: [0, 1]}
                trialCommand: %s trial.py
                trialCodeDirectory: .
                trialConcurrency: 3
                maxTrialNumber: 13
                advisor:
                  name: Hyperband
                  implementation: python
                  classArgs: {R: 9, eta: 3, optimize_mode: maximize, exec_mode: serial}
                trainingService:
                  platform: local
                """.formatted(python));
        runtime = RuntimeProcess.start(home(python), folder.newFolder("experiments").toPath(), "run", config.toString());
        runtime.assertExit(0, Duration.ofSeconds(420));
        Path experiment = experimentDirectory(runtime.console());
        List<Integer> budgets = new ArrayList<>();
        List<Double> xs = new ArrayList<>();
        try (ExperimentStore store = ExperimentStore.openReadOnly(experiment)) {
            List<TrialRecord> trials = new ArrayList<>(store.trials());
            trials.sort(java.util.Comparator.comparing(TrialRecord::sequenceId));
            assertEquals(13, trials.size());
            for (TrialRecord trial : trials) {
                assertEquals(trial.toString(), "SUCCEEDED", trial.status());
                JsonNode packed = RuntimeProcess.JSON.readTree(trial.parameters());
                assertTrue(packed.toString(), packed.get("parameter_id").asText().matches("0-2_\\d_\\d+")); // NNI's own ids
                budgets.add(packed.get("parameters").get("TRIAL_BUDGET").asInt());
                xs.add(packed.get("parameters").get("x").asDouble());
            }
            // NNI's SDK reported each result under the advisor's id
            assertEquals(13, store.metrics(null, "FINAL").size());
        }
        assertEquals(List.of(1, 1, 1, 1, 1, 1, 1, 1, 1, 3, 3, 3, 9), budgets);
        List<Double> firstBest = xs.subList(0, 9).stream().sorted(java.util.Comparator.reverseOrder()).limit(3).toList();
        assertEquals(firstBest, xs.subList(9, 12).stream().sorted(java.util.Comparator.reverseOrder()).toList());
        assertEquals(firstBest.get(0), xs.get(12));
        String log = Files.readString(experiment.resolve("log").resolve("dispatcher.log"));
        assertFalse(log, log.contains("Traceback"));
    }

    /**
     * NNI's mnist-advisor Hyperband example, its classArgs as shipped (R 100: the first round's
     * budget is 1), asking for NNI's implementation, runs to DONE with the real package.
     */
    @Test(timeout = 420_000)
    public void nnisHyperbandExampleRunsToDoneWithTheRealPackage() throws Exception {
        Path python = assumeRealNni();
        Path example = folder.newFolder("mnist-advisor").toPath();
        Path source = Path.of(DispatcherIT.class.getResource("/dispatcher/nni-examples/trials/mnist-advisor").toURI());
        Files.copy(source.resolve("search_space.json"), example.resolve("search_space.json"));
        Files.writeString(example.resolve("mnist.py"), BUDGET_TRIAL.replace("params['x']", "params['dropout_rate']"));
        String shipped = Files.readString(source.resolve("config_hyperband.yml"));
        Files.writeString(example.resolve("config_hyperband.yml"), shipped
                .replace("trialCommand: python3 mnist.py", "trialCommand: " + python + " mnist.py")
                .replace("maxTrialNumber: 10000", "maxTrialNumber: 4")
                .replace("  name: Hyperband\n", "  name: Hyperband\n  implementation: python\n"));
        runtime = RuntimeProcess.start(home(python), folder.newFolder("experiments").toPath(), "run",
                example.resolve("config_hyperband.yml").toString());
        runtime.assertExit(0, Duration.ofSeconds(360));
        try (ExperimentStore store = ExperimentStore.openReadOnly(experimentDirectory(runtime.console()))) {
            assertEquals(4, store.trials().size());
            for (TrialRecord trial : store.trials()) {
                assertEquals(trial.toString(), "SUCCEEDED", trial.status());
                assertEquals(trial.toString(), 1, RuntimeProcess.JSON.readTree(trial.parameters()).get("parameters")
                        .get("TRIAL_BUDGET").asInt());
            }
            assertEquals(4, store.metrics(null, "FINAL").size());
        }
    }

    /** @return the console of a run whose tuner is {@code tuner}, once it ended in ERROR (exit code 1) */
    private String failedRun(String tuner) throws Exception {
        Path config = experiment(COUNTING.replace("algorithms.Counting", tuner));
        runtime = RuntimeProcess.start(home(standIn()), folder.newFolder("experiments").toPath(), "run", config.toString());
        runtime.assertExit(1, Duration.ofSeconds(90));
        String console = runtime.console();
        assertTrue(console, console.contains(" ERROR ") && !console.contains("\tat "));
        return console;
    }

    @Test(timeout = 120_000)
    public void aDispatcherErrorFailsTheExperimentWithItsMessage() throws Exception {
        String console = failedRun("algorithms.FailsOnResults");
        // the stand-in sends its error and exits at once: the experiment fails by whichever the engine
        // meets first, the error frame ("reported an error") or the exit with the traceback in its log
        // ("ended after its algorithm raised an error"); both give the algorithm's own error
        assertTrue(console, (console.contains("reported an error") || console.contains("ended after its algorithm raised an error"))
                && console.contains("ValueError: the tuner cannot take result"));
    }

    @Test(timeout = 120_000)
    public void aDispatcherThatDiesFailsTheExperimentWithTheEndOfItsLog() throws Exception {
        String console = failedRun("algorithms.Dies");
        assertTrue(console, console.contains("exited with code 3") && console.contains("log/dispatcher.log")
                && console.contains("the tuner is about to die"));
    }

    @Test(timeout = 120_000)
    public void aDispatcherThatStopsAnsweringFailsTheExperimentInsteadOfHangingIt() throws Exception {
        String console = failedRun("algorithms.Hangs");
        assertTrue(console, console.contains("stopped answering: nothing heard for 4 s") && console.contains("the tuner hangs"));
    }

    @Test(timeout = 180_000)
    public void includeIntermediateResultsGivesTheTunerTheLastResultOfAnEarlyStoppedTrial() throws Exception {
        Path config = experiment("""
                searchSpace: {}
                trialCommand: python3 intermediate_trial.py
                trialCodeDirectory: .
                trialConcurrency: 2
                maxTrialNumber: 2
                tuner:
                  className: algorithms.RecordsResults
                  codeDirectory: .
                  includeIntermediateResults: true
                assessor:
                  className: algorithms.StopsAtThree
                  codeDirectory: .
                trainingService:
                  platform: local
                """);
        runtime = RuntimeProcess.start(home(standIn()), folder.newFolder("experiments").toPath(), "run", config.toString());
        runtime.assertExit(0, Duration.ofSeconds(150));
        Path experiment = experimentDirectory(runtime.console());
        List<JsonNode> commands = commands(experiment);
        JsonNode start = commands.get(0).get("content");
        assertEquals("true", start.get("intermediate").asText());
        // NNI's exp_params carry it where NNI's manager reads it; the tuner section has NNI's keys only
        assertTrue(start.toString(), start.get("exp_params").get("deprecated").get("includeIntermediateResults").asBoolean());
        assertFalse(start.toString(), start.get("exp_params").get("tuner").has("includeIntermediateResults"));
        // both trials were stopped at their third result (value 2): the tuner got that as their final result
        // (a result reported before the stop took effect may follow, as with NNI: the first one counts here)
        List<String> results = Files.readAllLines(experiment.resolve("log").resolve("tuner-results.jsonl"));
        Map<Integer, Double> firstResults = new java.util.TreeMap<>();
        for (String line : results) {
            JsonNode result = RuntimeProcess.JSON.readTree(line);
            firstResults.putIfAbsent(result.get("parameter_id").asInt(), result.get("value").asDouble());
        }
        assertEquals(results.toString(), Map.of(0, 2.0, 1, 2.0), firstResults);
        try (ExperimentStore store = ExperimentStore.openReadOnly(experiment)) {
            assertTrue(store.trials().toString(), store.trials().stream().allMatch(t -> t.status().equals("EARLY_STOPPED")));
        }
    }

    @Test(timeout = 240_000)
    public void aResumedExperimentTellsTheNewDispatcherItsHistory() throws Exception {
        Path config = experiment("""
                searchSpace:
                  x: {_type: randint, _value: [0, 100]}
                trialCommand: python3 intermediate_trial.py release
                trialCodeDirectory: .
                trialConcurrency: 1
                maxTrialNumber: 3
                tuner:
                  name: Random
                  implementation: python
                trainingService:
                  platform: local
                """);
        Path home = home(standIn());
        Path experiments = folder.newFolder("experiments").toPath();
        runtime = RuntimeProcess.start(Map.of(), 0, home, experiments, "run", config.toString());
        // trial 0 ends, trial 1 waits for the release file: then the runtime is killed
        await().atMost(Duration.ofSeconds(90)).ignoreExceptions().until(() -> runtime.get("trial-jobs?status=SUCCEEDED").size() == 1
                && runtime.get("trial-jobs?status=RUNNING").size() == 1);
        Path experiment = experimentDirectory(runtime.console());
        List<JsonNode> first = commands(experiment);
        // Random without an assessor reads no intermediate results: none were sent
        assertEquals(0, metrics(first, "PERIODICAL").size());
        assertEquals(1, metrics(first, "FINAL").size());
        runtime.kill9();

        runtime = RuntimeProcess.start(Map.of(), 0, home, experiments, "resume", experiment.getFileName().toString());
        await().atMost(Duration.ofSeconds(60)).until(() -> commands(experiment).size() > 1
                && types(commands(experiment)).contains("GE"));
        Files.writeString(config.getParent().resolve("release"), "");
        runtime.assertExit(0, Duration.ofSeconds(120));
        List<JsonNode> resumed = commands(experiment);
        assertEquals("resume", resumed.get(0).get("content").get("mode").asText());
        List<String> types = types(resumed);
        // after ID: the finished result (FD), then the trials the experiment has (AD), then requests
        assertEquals(types.toString(), List.of("IN", "FD", "AD"), types.subList(1, 4));
        JsonNode imported = RuntimeProcess.JSON.readTree(resumed.get(2).get("content").asText());
        assertEquals(1, imported.size());
        assertTrue(imported.toString(), imported.get(0).has("parameter") && imported.get(0).has("value"));
        // AD as NNI v3 sends it: only the trial that was running (it continues), repacked as "resumed"
        JsonNode added = RuntimeProcess.JSON.readTree(resumed.get(3).get("content").asText());
        assertEquals(added.toString(), 1, added.size());
        assertEquals(added.toString(), 1, added.get(0).get("parameter_id").asInt());
        assertEquals(added.toString(), "resumed", added.get(0).get("parameter_source").asText());
        assertEquals(added.toString(), 0, added.get(0).get("parameter_index").asInt());
        assertTrue(added.toString(), added.get(0).get("parameters").has("x"));
        try (ExperimentStore store = ExperimentStore.openReadOnly(experiment)) {
            List<TrialRecord> trials = store.trials();
            assertEquals(3, trials.size());
            assertTrue(trials.toString(), trials.stream().allMatch(t -> t.status().equals("SUCCEEDED")));
            // the new trial's parameters come after the old ones': AD made the dispatcher continue its ids
            assertTrue(trials.get(2).parameters(), trials.get(2).parameters().contains("\"parameter_id\": 2"));
        }
    }
}
