package nni.config;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/** One test per canonicalization rule of NNI's config loading (nni-config.md §1), and the error format. */
public class ExperimentConfigLoaderTest {

    private static final String COMMON = """
            trialCommand: python3 main.py
            trialConcurrency: 2
            tuner: {name: Random}
            """;

    @Rule
    public TemporaryFolder folder = new TemporaryFolder();

    private final ExperimentConfigLoader loader = Loaders.builtIn();

    private Path write(String name, String text) throws Exception {
        Path file = folder.getRoot().toPath().resolve(name);
        Files.createDirectories(file.getParent());
        Files.writeString(file, text);
        return file;
    }

    private ExperimentConfig load(String text) throws Exception {
        return loader.load(write("exp/config.yml", text));
    }

    private List<ConfigError> errors(String text) throws Exception {
        Path file = write("exp/config.yml", text);
        return assertThrows(ConfigException.class, () -> loader.load(file)).errors();
    }

    private Path dir() throws Exception {
        return folder.getRoot().toPath().resolve("exp").toRealPath();
    }

    @Test
    public void minimalLocalConfigIsCanonicalizedAsNniDoes() throws Exception {
        ExperimentConfig config = load("""
                searchSpace: {a: {_type: choice, _value: [1, 2]}}
                trialCommand: python main.py
                trialConcurrency: 2
                tuner: {name: random}
                trainingService: {platform: local}
                """);
        assertEquals(2, config.trialConcurrency());
        assertEquals(dir(), config.trialCodeDirectory());
        assertEquals("info", config.logLevel());
        assertFalse(config.debug());
        // ~ is $HOME (a folder of the build's own when tests run); the folder need not exist, and is not created
        Path home = Files.createDirectories(Path.of(System.getenv("HOME")));
        assertEquals(home.toRealPath().resolve("nni-experiments"), config.experimentWorkingDirectory());
        assertFalse(Files.exists(home.resolve("nni-experiments")));
        assertEquals(Map.of("platform", "local", "trialCommand", "python main.py", "trialCodeDirectory", dir().toString(),
                "debug", false, "maxTrialNumberPerGpu", 1, "reuseMode", false), config.trainingServices().get(0));
        assertEquals(List.of("experimentType", "searchSpace", "trialCommand", "trialCodeDirectory", "trialConcurrency",
                "useAnnotation", "debug", "logLevel", "experimentWorkingDirectory", "tuner", "trainingService"),
                List.copyOf(config.canonical().keySet()));
        assertEquals("hpo", config.canonical().get("experimentType"));
        assertEquals(Map.of("name", "random"), config.canonical().get("tuner"));
        assertEquals("local", config.platform());
    }

    @Test
    public void keysMatchIgnoringCaseAndUnderscoresAtEveryLevel() throws Exception {
        ExperimentConfig config = load("""
                search_space: {a: {_type: choice, _value: [1]}}
                TRIAL_COMMAND: python3 main.py
                _trial_concurrency_: 3
                Tuner: {NAME: TPE, class_args: {optimize_mode: maximize}}
                training_service:
                  PLATFORM: remote
                  machine_list:
                    - HOST: 192.0.2.1
                      user: u
                      pass_word: p
                """);
        assertEquals(3, config.trialConcurrency());
        assertEquals("TPE", config.tuner().name());
        assertEquals(Map.of("optimize_mode", "maximize"), config.tuner().classArgs());
        Map<?, ?> machine = (Map<?, ?>) ((List<?>) config.trainingServices().get(0).get("machineList")).get(0);
        assertEquals("192.0.2.1", machine.get("host"));
        assertEquals("p", machine.get("password"));
    }

    @Test
    public void classArgsAndSearchSpaceKeysAreNotCanonicalized() throws Exception {
        ExperimentConfig config = load("""
                searchSpace: {Learning_Rate: {_type: uniform, _value: [0, 1]}}
                trialCommand: python3 main.py
                trialConcurrency: 1
                tuner: {name: TPE, classArgs: {optimize_mode: minimize}}
                trainingService: {platform: local}
                """);
        assertTrue(config.searchSpace().containsKey("Learning_Rate"));
        List<ConfigError> errors = errors(COMMON.replace("{name: Random}", "{name: TPE, classArgs: {optimizeMode: minimize}}")
                + "searchSpace: {}\ntrainingService: {platform: local}\n");
        assertEquals("tuner.classArgs.optimizeMode", errors.get(0).path());
    }

    @Test
    public void unknownKeysAreErrorsAtEveryLevel() throws Exception {
        List<ConfigError> errors = errors("""
                searchSpace: {}
                trialCommand: python3 main.py
                trialConcurrency: 1
                colour: red
                tuner: {name: Random, size: 3}
                trainingService:
                  platform: remote
                  speed: fast
                  machineList:
                    - {host: h, user: u, password: p, weight: 2}
                """);
        assertEquals(List.of("colour", "tuner.size", "trainingService.speed", "trainingService.machineList[0].weight"),
                errors.stream().map(ConfigError::path).toList());
        assertEquals(List.of(4, 5, 8, 10), errors.stream().map(ConfigError::line).toList());
    }

    @Test
    public void pathsResolveAgainstTheConfigFilesDirectory() throws Exception {
        Files.createDirectories(folder.getRoot().toPath().resolve("code"));
        ExperimentConfig config = load(COMMON + """
                searchSpace: {}
                trialCodeDirectory: ../code
                experimentWorkingDirectory: ~/somewhere/else
                trainingService: {platform: local}
                """);
        assertEquals(folder.getRoot().toPath().resolve("code").toRealPath(), config.trialCodeDirectory());
        assertEquals(config.trialCodeDirectory().toString(), config.trainingServices().get(0).get("trialCodeDirectory"));
        assertEquals(Files.createDirectories(Path.of(System.getenv("HOME"))).toRealPath().resolve("somewhere").resolve("else"),
                config.experimentWorkingDirectory());
    }

    @Test
    public void searchSpaceFileIsReadAsJsonWithTabsAndExponents() throws Exception {
        write("exp/ss.json", "{\n\t\"lr\": {\"_type\": \"loguniform\", \"_value\": [1e-7, 1e-1]}\n}\n");
        ExperimentConfig config = load(COMMON + "searchSpaceFile: ss.json\ntrainingService: {platform: local}\n");
        assertEquals(List.of(1e-7, 0.1), ((Map<?, ?>) config.searchSpace().get("lr")).get("_value"));
        assertEquals(dir().resolve("ss.json").toString(), config.canonical().get("searchSpaceFile"));
        assertEquals(config.searchSpace(), config.canonical().get("searchSpace"));
    }

    @Test
    public void searchSpaceFileFallsBackToYamlForTrailingCommasAndYaml() throws Exception {
        write("exp/ss.json", "{\"a\": {\"_type\": \"choice\", \"_value\": [1, 2],},}\n");
        assertEquals(List.of(1, 2), ((Map<?, ?>) load(COMMON + "searchSpaceFile: ss.json\ntrainingService: {platform: local}\n")
                .searchSpace().get("a")).get("_value"));
        write("exp/ss.yml", "Größe:\n  _type: randint\n  _value: [1, 5]\n");
        assertTrue(load(COMMON + "searchSpaceFile: ss.yml\ntrainingService: {platform: local}\n").searchSpace()
                .containsKey("Größe"));
    }

    @Test
    public void searchSpaceAndFileAreExclusiveAndOneIsRequired() throws Exception {
        write("exp/ss.json", "{}");
        assertEquals("give either searchSpace or searchSpaceFile, not both",
                errors(COMMON + "searchSpace: {}\nsearchSpaceFile: ss.json\ntrainingService: {platform: local}\n").get(0).message());
        assertEquals("give searchSpace or searchSpaceFile",
                errors(COMMON + "trainingService: {platform: local}\n").get(0).message());
    }

    @Test
    public void durationsAreKeptAsWrittenAndConvertedForUse() throws Exception {
        ExperimentConfig config = load(COMMON + """
                searchSpace: {}
                maxExperimentDuration: 1.5h
                maxTrialDuration: 60
                trainingService: {platform: local}
                """);
        assertEquals(Duration.ofSeconds(5400), config.maxExperimentDuration());
        assertEquals(Duration.ofSeconds(60), config.maxTrialDuration());
        assertEquals("1.5h", config.canonical().get("maxExperimentDuration"));
        assertEquals(60, config.canonical().get("maxTrialDuration"));
        assertNull(config.maxTrialNumber());
    }

    @Test
    public void shortcutFieldsAreCopiedIntoEveryTrainingService() throws Exception {
        ExperimentConfig config = load("""
                searchSpace: {}
                trialCommand: python3 main.py
                trialConcurrency: 2
                trialGpuNumber: 0
                nniManagerIp: 192.0.2.9
                debug: true
                tuner: {name: Random}
                trainingService:
                  - platform: local
                  - platform: remote
                    trialCommand: python3 remote_main.py
                    machineList: [{host: h, user: u, password: p}]
                """);
        assertEquals(2, config.trainingServices().size());
        Map<String, Object> local = config.trainingServices().get(0);
        Map<String, Object> remote = config.trainingServices().get(1);
        assertEquals("python3 main.py", local.get("trialCommand"));
        assertEquals(0, local.get("trialGpuNumber"));
        assertEquals(true, local.get("debug"));
        assertNull("NNI drops the manager IP for local", local.get("nniManagerIp"));
        assertEquals("python3 remote_main.py", remote.get("trialCommand"));
        assertEquals("192.0.2.9", remote.get("nniManagerIp"));
        assertEquals("debug", config.logLevel());
        assertTrue(config.canonical().get("trainingService") instanceof List<?>);
    }

    @Test
    public void remoteMachineDefaultsAndPasswordOverKeyFile() throws Exception {
        ExperimentConfig config = load(COMMON + """
                searchSpace: {}
                trainingService:
                  platform: remote
                  machineList:
                    - {host: h, user: u, password: p, sshKeyFile: /no/such/key, gpuIndices: '0,1', pythonPath: ~/venv}
                """);
        Map<?, ?> machine = (Map<?, ?>) ((List<?>) config.trainingServices().get(0).get("machineList")).get(0);
        assertEquals(22, machine.get("port"));
        assertEquals(false, machine.get("useActiveGpu"));
        assertEquals(1, machine.get("maxTrialNumberPerGpu"));
        assertEquals(List.of(0, 1), machine.get("gpuIndices"));
        assertEquals("~/venv", machine.get("pythonPath"));
        assertFalse(machine.containsKey("sshKeyFile"));
        assertEquals(false, config.trainingServices().get(0).get("reuseMode"));
    }

    @Test
    public void openpaiHostGetsHttps() throws Exception {
        ExperimentConfig config = load(COMMON + """
                searchSpace: {}
                trialGpuNumber: 1
                trainingService:
                  platform: openpai
                  host: pai.example.com
                  username: u
                  token: t
                  trialCpuNumber: 1
                  trialMemorySize: 1gb
                  storageConfigName: s
                  virtualCluster: null
                  localStorageMountPoint: .
                  containerStorageMountPoint: /mnt
                """);
        Map<String, Object> pai = config.trainingServices().get(0);
        assertEquals("https://pai.example.com", pai.get("host"));
        assertEquals("msranni/nni:latest", pai.get("dockerImage"));
        assertEquals(true, pai.get("reuseMode"));
        assertEquals("1gb", pai.get("trialMemorySize"));
    }

    @Test
    public void tunerGpuIndicesAndAdvisorAndNoneAlgorithm() throws Exception {
        ExperimentConfig config = load("""
                searchSpace: {}
                trialCommand: python3 main.py
                trialConcurrency: 1
                tunerGpuIndices: 0
                advisor: {name: TPE}
                assessor: {name: _none_}
                trainingService: {platform: local}
                """);
        assertEquals(List.of(0), config.canonical().get("tunerGpuIndices"));
        assertEquals("TPE", config.tuner().name());
        assertEquals(Map.of("name", "TPE"), config.canonical().get("tuner"));
        assertFalse(config.canonical().containsKey("advisor"));
        assertNull(config.assessor());
        assertEquals("give either tuner or advisor (advisor is the deprecated name), not both",
                errors(COMMON + "advisor: {name: TPE}\nsearchSpace: {}\ntrainingService: {platform: local}\n").get(0).message());
    }

    @Test
    public void customAlgorithmNeedsItsCodeDirectory() throws Exception {
        List<ConfigError> errors = errors("""
                searchSpace: {}
                trialCommand: python3 main.py
                trialConcurrency: 1
                tuner: {className: my.Tuner}
                assessor: {name: Medianstop, codeDirectory: .}
                trainingService: {platform: local}
                """);
        assertEquals(List.of("tuner.codeDirectory: codeDirectory is required with className",
                "assessor.codeDirectory: expected no codeDirectory for a built-in assessor (it goes with className)"),
                errors.stream().map(e -> e.path() + ": " + e.message()).toList());
    }

    @Test
    public void annotationIsRefusedAsInNni3() throws Exception {
        assertEquals("expected false: annotation is not supported since NNI v3.0",
                errors(COMMON + "searchSpace: {}\nuseAnnotation: true\ntrainingService: {platform: local}\n").get(0).message());
    }

    @Test
    public void anAnnotationFileGetsOnlyTheAnnotationMessage() throws Exception {
        // NNI's annotation examples have no search space (annotations were to produce it) and often a v1 layout
        List<ConfigError> v2 = errors("""
                trialCommand: python3 mnist.py
                trialConcurrency: 1
                useAnnotation: true
                tuner: {name: TPE}
                trainingService: {platform: lokal}
                """);
        assertEquals(List.of("useAnnotation: expected false: annotation is not supported since NNI v3.0"),
                v2.stream().map(e -> e.path() + ": " + e.message()).toList());
        assertEquals(3, v2.get(0).line());
        List<ConfigError> v1 = errors("""
                authorName: default
                trialConcurrency: 1
                trainingServicePlatform: local
                useAnnotation: true
                tuner: {builtinTunerName: TPE}
                trial: {command: python3 mnist.py, codeDir: ., gpuNum: 0}
                """);
        assertEquals(List.of("useAnnotation: expected false: annotation is not supported since NNI v3.0"),
                v1.stream().map(e -> e.path() + ": " + e.message()).toList());
        assertEquals(4, v1.get(0).line());
    }

    @Test
    public void aFieldAV1FileLeavesOutIsReportedAtTheV1KeyItBelongsTo() throws Exception {
        List<ConfigError> errors = errors("""
                authorName: default
                trialConcurrency: 1
                trainingServicePlatform: remote
                searchSpacePath: search_space.json
                tuner:
                  builtinTunerName: TPE
                trial:
                  codeDir: .
                """.replace("search_space.json", "../ss.json"));
        List<String> found = errors.stream().map(e -> e.line() + ":" + e.column() + " " + e.path()).toList();
        assertTrue(found.toString(), found.contains("3:26 trainingService.machineList"));
        assertTrue(found.toString(), found.contains("7:1 trainingService.trialCommand"));
    }

    @Test
    public void aPlatformNameNoBundleAndNoNniPlatformHasIsAnErrorInValidateToo() throws Exception {
        Path file = write("exp/typo.yml", COMMON + "searchSpace: {}\ntrainingService: {platform: lokal}\n");
        ValidationReport report = loader.validate(file);
        assertFalse(report.ok());
        assertEquals(List.of(), report.unchecked());
        String line = report.lines().get(0);
        assertTrue(line, line.endsWith("trainingService.platform: expected a platform name (local, remote, openpai, kubeflow, "
                + "frameworkcontroller, adl, dlts, aml, dlc), got \"lokal\""));
        assertTrue(line, line.startsWith(file + ":"));
    }

    @Test
    public void unknownAlgorithmsNameWhatIsInstalled() throws Exception {
        ConfigError error = errors(COMMON.replace("Random", "Smack") + "searchSpace: {}\ntrainingService: {platform: local}\n").get(0);
        assertEquals("tuner.name", error.path());
        assertEquals(3, error.line());
        assertTrue(error.message(), error.message().startsWith("no tuner named \"Smack\" is installed; installed: random, gridsearch, tpe"));
        // the names NNI's dispatcher offers come in no fixed order: SMAC may be the last
        List<String> installed = List.of(error.message().substring(error.message().indexOf("installed: ") + "installed: ".length())
                .split(", "));
        assertTrue(error.message(), installed.contains("SMAC") && installed.contains("Hyperband"));
        Path file = write("exp/smac.yml", COMMON.replace("Random", "SMAC") + "searchSpace: {}\ntrainingService: {platform: local}\n");
        ExperimentConfigLoader javaOnly = Loaders.with(Map.of("local", new nni.ts.local.internal.LocalPlatform(
                Loaders.defaults(nni.ts.local.internal.LocalPlatform.Config.class))), Map.of("random",
                new nni.tuners.internal.RandomTunerProvider()), Map.of());
        ConfigError withoutDispatcher = assertThrows(ConfigException.class, () -> javaOnly.load(file)).errors().get(0);
        assertEquals("tuner.name: no tuner named \"SMAC\" is installed; installed: random",
                withoutDispatcher.path() + ": " + withoutDispatcher.message());
    }

    @Test
    public void anNniAlgorithmWithoutJavaImplementationRunsThroughTheDispatcherAndValidateSaysSo() throws Exception {
        Path file = write("exp/smac.yml", COMMON.replace("Random", "SMAC") + """
                assessor: {name: Curvefitting, classArgs: {epoch_num: 20}}
                searchSpace: {lr: {_type: loguniform, _value: [0.0001, 0.1]}}
                trainingService: {platform: local}
                """);
        ValidationReport report = loader.validate(file);
        assertTrue(report.toString(), report.ok());
        assertEquals(List.of("OK: " + file, file + ": tuner SMAC with assessor Curvefitting: runs through NNI's dispatcher"
                + " (needs the nni package)"), report.lines());
        assertEquals("SMAC", loader.load(file).tuner().name());
    }

    @Test
    public void aSearchSpaceNumberNoDoubleHoldsIsRefusedByTheRuleAnUpdatePassesToo() throws Exception {
        // YAML's .inf and a float past a double's range (Infinity once read), in the file and in a search space file,
        // for a Java tuner and one run through the dispatcher alike
        List<ConfigError> inline = errors(COMMON + "searchSpace: {x: {_type: uniform, _value: [.inf, 1.0e+999]}}\n"
                + "trainingService: {platform: local}\n");
        assertEquals(List.of("searchSpace.x._value[0]", "searchSpace.x._value[1]"), inline.stream().map(ConfigError::path).toList());
        assertTrue(inline.get(0).message(), inline.get(0).message().startsWith("expected a finite number"));
        write("exp/ss.json", "{\"x\": {\"_type\": \"uniform\", \"_value\": [0, 1e309]}}");
        List<ConfigError> file = errors(COMMON.replace("Random", "SMAC") + "searchSpaceFile: ss.json\ntrainingService: {platform: local}\n");
        assertEquals("searchSpaceFile", file.get(0).path());
        assertTrue(file.get(0).message(), file.get(0).message().startsWith("x._value[1]: expected a finite number"));
        // the update's rule: the same words, the field named from the root; numbers read exactly are named as written
        IllegalArgumentException update = assertThrows(IllegalArgumentException.class, () -> UpdatableFields.searchSpace(
                Map.of("x", Map.of("_type", "uniform", "_value", List.of(new java.math.BigDecimal("1e309"), 2)))));
        assertEquals("searchSpace.x._value[0]: expected a finite number (at most 1.7976931348623157e308 either way), got 1E+309",
                update.getMessage());
        assertEquals(Map.of("x", Map.of("_type", "uniform", "_value", List.of(0.5, 2))), UpdatableFields.searchSpace(
                Map.of("x", Map.of("_type", "uniform", "_value", List.of(new java.math.BigDecimal("0.5"), 2)))));
    }

    @Test
    public void theSearchSpaceIsCheckedOnlyAsFarAsTheChosenAlgorithmReadsIt() throws Exception {
        // SMAC declares the types it reads: normal is not one of them
        List<ConfigError> smac = errors(COMMON.replace("Random", "SMAC")
                + "searchSpace: {x: {_type: normal, _value: [0, 1]}}\ntrainingService: {platform: local}\n");
        assertEquals("searchSpace.x._type: SMAC does not read normal; it reads choice, randint, uniform, quniform, loguniform",
                smac.get(0).path() + ": " + smac.get(0).message());
        // a custom class owns its format (the opevo examples' factor and discrete types pass through unchanged)
        Files.createDirectories(folder.getRoot().toPath().resolve("exp/algorithms"));
        ExperimentConfig custom = load("""
                searchSpace: {tile: {_type: factor, _value: [64, [2, 4]]}, order: {_type: discrete, _value: [1, 2]}}
                trialCommand: python3 main.py
                trialConcurrency: 1
                tuner: {className: opevo.GaTuner, codeDirectory: algorithms, classArgs: {optimize_mode: maximize}}
                trainingService: {platform: local}
                """);
        assertEquals(Map.of("_type", "factor", "_value", List.of(64, List.of(2, 4))), custom.searchSpace().get("tile"));
        // a Java tuner reads the whole standard format
        assertEquals("searchSpace.tile._type", errors(COMMON + """
                searchSpace: {tile: {_type: factor, _value: [64, [2, 4]]}}
                trainingService: {platform: local}
                """).get(0).path());
    }

    @Test
    public void theAlgorithmSectionChoosesItsImplementation() throws Exception {
        Path python = write("exp/python.yml", COMMON.replace("{name: Random}", "{name: Random, implementation: python}")
                + "searchSpace: {}\ntrainingService: {platform: local}\n");
        assertEquals(List.of("OK: " + python, python + ": tuner Random: runs through NNI's dispatcher (needs the nni package)"),
                loader.validate(python).lines());
        assertEquals("python", loader.load(python).tuner().implementation());
        assertEquals(List.of("OK: " + write("exp/java.yml", COMMON + "searchSpace: {}\ntrainingService: {platform: local}\n")),
                loader.validate(folder.getRoot().toPath().resolve("exp/java.yml")).lines());
        ConfigError javaSmac = errors(COMMON.replace("{name: Random}", "{name: SMAC, implementation: java}")
                + "searchSpace: {}\ntrainingService: {platform: local}\n").get(0);
        assertEquals("tuner.name", javaSmac.path());
        assertTrue(javaSmac.message(), javaSmac.message().startsWith("no Java tuner named \"SMAC\" is installed; installed: random"));
        ConfigError unknown = errors(COMMON.replace("{name: Random}", "{name: Random, implementation: rust}")
                + "searchSpace: {}\ntrainingService: {platform: local}\n").get(0);
        assertEquals("tuner.implementation: expected java or python, got \"rust\"", unknown.path() + ": " + unknown.message());
        ConfigError wrongKind = errors(COMMON.replace("{name: Random}", "{name: Curvefitting}")
                + "searchSpace: {}\ntrainingService: {platform: local}\n").get(0);
        assertEquals("tuner.name: Curvefitting is an assessor, not a tuner", wrongKind.path() + ": " + wrongKind.message());
    }

    /** Issue 25: Hyperband and BOHB run in Java unless the section asks for NNI's; NNI's example classArgs are valid for both. */
    @Test
    public void advisorsRunInJavaUnlessTheSectionAsksForNnis() throws Exception {
        String hyperband = """
                searchSpace: {x: {_type: uniform, _value: [0, 1]}}
                trialCommand: python3 mnist.py
                trialConcurrency: 2
                advisor:
                  name: Hyperband
                  classArgs: {R: 100, eta: 3, optimize_mode: maximize, exec_mode: parallelism}%s
                trainingService: {platform: local}
                """;
        Path java = write("exp/hyperband.yml", hyperband.formatted(""));
        assertEquals(List.of("OK: " + java, java + ": advisor Hyperband: runs through nni-osgi's Java implementation (no Python needed)"),
                loader.validate(java).lines());
        Path insisted = write("exp/hyperband-java.yml", hyperband.formatted("\n  implementation: java"));
        assertEquals(List.of("OK: " + insisted, insisted + ": advisor Hyperband: runs through nni-osgi's Java implementation (no Python needed)"),
                loader.validate(insisted).lines());
        Path python = write("exp/hyperband-python.yml", hyperband.formatted("\n  implementation: python"));
        assertEquals(List.of("OK: " + python, python + ": advisor Hyperband: runs through NNI's dispatcher (needs the nni package)"),
                loader.validate(python).lines());
        Path bohb = write("exp/bohb.yml", hyperband.replace("Hyperband", "BOHB").formatted("")
                .replace("{R: 100, eta: 3, optimize_mode: maximize, exec_mode: parallelism}", "{max_budget: 27, min_budget: 1, eta: 3,"
                        + " optimize_mode: maximize, min_points_in_model: 7, top_n_percent: 15, num_samples: 64, random_fraction: 0.33,"
                        + " bandwidth_factor: 3.0, min_bandwidth: 0.001}"));
        assertEquals(List.of("OK: " + bohb, bohb + ": advisor BOHB: runs through nni-osgi's Java implementation (no Python needed)"),
                loader.validate(bohb).lines());
        ConfigError wrong = errors(hyperband.formatted("").replace("R: 100", "R: many")).get(0);
        assertEquals("advisor.classArgs.R: expected an integer >= 1, got \"many\"", wrong.path() + ": " + wrong.message());
    }

    @Test
    public void errorsAreListedOnePerLineAsFileLineColumnPathMessage() throws Exception {
        Path file = write("exp/bad.yml", """
                searchSpace: {}
                trialCommand: python3 main.py
                trialConcurrency: -1
                tuner: {name: Random}
                trainingService:
                  platform: remote
                  machineList:
                    - host: a
                      user: u
                      password: s3cr3t-value
                      port: 22a
                """);
        ConfigException e = assertThrows(ConfigException.class, () -> loader.load(file));
        String abs = file.toAbsolutePath().toString();
        assertEquals(abs + ":3:19: trialConcurrency: expected an integer >= 1, got -1\n"
                + abs + ":11:13: trainingService.machineList[0].port: expected a port number 1-65535, got \"22a\"", e.getMessage());
        assertFalse(e.getMessage().contains("s3cr3t-value"));
    }

    @Test
    public void validateReportsPlatformsWithoutBundleAsNotChecked() throws Exception {
        Path file = write("exp/x.yml", COMMON + "searchSpace: {}\ntrainingService: [{platform: dlts, whatever: 1}]\n");
        // every NNI platform has a bundle here: a runtime with only the local one installed
        ExperimentConfigLoader loader = Loaders.with(
                Map.of("local", new nni.ts.local.internal.LocalPlatform(Loaders.defaults(nni.ts.local.internal.LocalPlatform.Config.class))),
                Map.of("random", new nni.tuners.internal.RandomTunerProvider()), Map.of());
        ValidationReport report = loader.validate(file);
        assertTrue(report.ok());
        assertEquals(List.of("trainingService[0] (platform dlts)"), report.unchecked());
        assertEquals(List.of("OK: " + file, file + ": trainingService[0] (platform dlts): not checked, the platform is not installed"),
                report.lines());
        ConfigException e = assertThrows(ConfigException.class, () -> loader.load(file));
        assertEquals("trainingService[0].platform", e.errors().get(0).path());
    }

    /** Issue 15: a hybrid list validates and loads as one member per element, each checked by its own platform. */
    @Test
    public void hybridExperimentsValidateAndLoadOneMemberPerService() throws Exception {
        Path file = write("exp/hybrid.yml", COMMON + "searchSpace: {}\ntrainingService:\n  - platform: local\n"
                + "  - platform: remote\n    machineList: [{host: 127.0.0.2, user: u, password: p}]\n");
        assertTrue(loader.validate(file).lines().toString(), loader.validate(file).ok());
        ExperimentConfig loaded = loader.load(file);
        assertEquals(List.of("local", "remote"), loaded.trainingServices().stream().map(s -> s.get("platform")).toList());
        Path bad = write("exp/hybrid-bad.yml", COMMON + "searchSpace: {}\ntrainingService:\n  - platform: local\n"
                + "  - platform: remote\n    machineList: [{host: 127.0.0.2, user: u, password: p, port: 22a}]\n");
        ConfigError error = assertThrows(ConfigException.class, () -> loader.load(bad)).errors().get(0);
        assertEquals("trainingService[1].machineList[0].port", error.path());
        Path single = write("exp/single.yml", COMMON + "searchSpace: {}\ntrainingService: [{platform: local}]\n");
        assertTrue(loader.validate(single).ok());
        assertEquals("local", loader.load(single).platform());
    }

    @Test
    public void jsonFilesLoadThroughTheSameParserEvenWithTabs() throws Exception {
        Path file = write("exp/config.json", "{\n\t\"searchSpace\": {},\n\t\"trialCommand\": \"python3 main.py\",\n"
                + "\t\"trialConcurrency\": 1,\n\t\"tuner\": {\"name\": \"Random\"},\n"
                + "\t\"trainingService\": {\"platform\": \"local\", \"reuseMode\": \"no\"}\n}\n");
        ConfigError error = assertThrows(ConfigException.class, () -> loader.load(file)).errors().get(0);
        assertEquals("trainingService.reuseMode", error.path());
        assertEquals(6, error.line());
        assertEquals(56, error.column());
    }

    @Test
    public void aBadTopLevelValueCopiedIntoSectionsIsReportedOnceAtTheTop() throws Exception {
        List<ConfigError> errors = errors(COMMON + """
                searchSpace: {}
                trialGpuNumber: two
                trainingService: [{platform: local}, {platform: aml, subscriptionId: s, resourceGroup: r, workspaceName: w, computeTarget: c}]
                """);
        assertEquals(1, errors.size());
        assertEquals("trialGpuNumber", errors.get(0).path());
        assertEquals(5, errors.get(0).line());
    }

    @Test
    public void aMissingTrialCodeDirectoryIsReportedAtTheTopLevelKey() throws Exception {
        List<ConfigError> errors = errors(COMMON + "searchSpace: {}\ntrialCodeDirectory: nowhere\ntrainingService: {platform: local}\n");
        assertEquals(1, errors.size());
        assertEquals("trialCodeDirectory", errors.get(0).path());
        assertEquals(5, errors.get(0).line());
        assertTrue(errors.get(0).message().startsWith("expected an existing directory"));
    }

    @Test
    public void aMissingFileIsOneClearError() throws Exception {
        Path file = folder.getRoot().toPath().resolve("nope.yml");
        ValidationReport report = loader.validate(file);
        assertEquals(List.of(file + ":1:1: no such file"), report.lines());
    }

    @Test
    public void v1KubeflowIsConvertedAsNnisConverterDoes() throws Exception {
        write("exp/ss.json", "{}");
        ExperimentConfig config = load("""
                authorName: me
                experimentName: kf
                trialConcurrency: 1
                trainingServicePlatform: kubeflow
                searchSpacePath: ss.json
                useAnnotation: false
                maxExecDuration: 2h
                maxTrialNum: 5
                tuner: {builtinTunerName: TPE, classArgs: {optimize_mode: maximize}, gpuIndices: 1}
                trial:
                  codeDir: .
                  worker: {replicas: 1, command: python3 a.py, gpuNum: 0, cpuNum: 1, memoryMB: 8192, image: img}
                kubeflowConfig:
                  operator: tf-operator
                  apiVersion: v1alpha2
                  storage: nfs
                  nfs: {server: 192.0.2.1, path: /exports}
                """);
        Map<String, Object> service = config.trainingServices().get(0);
        assertEquals("kubeflow", service.get("platform"));
        assertEquals("tf-operator", service.get("operator"));
        assertEquals(Map.of("storageType", "nfs", "server", "192.0.2.1", "path", "/exports"), service.get("storage"));
        assertEquals(Map.of("replicas", 1, "command", "python3 a.py", "gpuNumber", 0, "cpuNumber", 1, "memorySize", 8192,
                "dockerImage", "img", "codeDirectory", "."), service.get("worker"));
        assertEquals("", service.get("trialCommand"));
        assertEquals("kf", config.experimentName());
        assertEquals(Duration.ofHours(2), config.maxExperimentDuration());
        assertEquals(Integer.valueOf(5), config.maxTrialNumber());
        assertEquals(List.of(1), config.canonical().get("tunerGpuIndices"));
        assertEquals(Map.of("optimize_mode", "maximize"), config.tuner().classArgs());
    }

    @Test
    public void v1IncludeIntermediateResultsIsKeptInTheTunerSection() throws Exception {
        write("exp/ss.json", "{}");
        ExperimentConfig config = load("""
                authorName: me
                experimentName: early
                trialConcurrency: 1
                trainingServicePlatform: local
                searchSpacePath: ss.json
                useAnnotation: false
                tuner: {builtinTunerName: TPE, includeIntermediateResults: true}
                assessor: {builtinAssessorName: Medianstop}
                trial: {command: python3 a.py, codeDir: .}
                """);
        assertEquals(Boolean.TRUE, ((Map<?, ?>) config.canonical().get("tuner")).get("includeIntermediateResults"));
    }

    @Test
    public void includeIntermediateResultsMustBeABoolean() throws Exception {
        List<ConfigError> errors = errors("""
                searchSpace: {}
                trialCommand: python3 a.py
                trialConcurrency: 1
                tuner: {name: TPE, includeIntermediateResults: maybe}
                trainingService: {platform: local}
                """);
        assertEquals(errors.toString(), "tuner.includeIntermediateResults", errors.get(0).path());
    }

    @Test
    public void v1ErrorsPointIntoTheV1File() throws Exception {
        List<ConfigError> errors = errors("""
                authorName: me
                experimentName: remote
                trialConcurrency: 1
                trainingServicePlatform: remote
                searchSpacePath: ss.json
                useAnnotation: false
                tuner: {builtinTunerName: Random}
                trial: {command: python3 a.py, codeDir: .}
                machineList:
                  - {ip: 192.0.2.1, username: u, passwd: p, port: 99999}
                """);
        assertEquals("searchSpaceFile", errors.get(0).path());
        assertEquals(5, errors.get(0).line());
        assertEquals("trainingService.machineList[0].port", errors.get(1).path());
        assertEquals(10, errors.get(1).line());
        assertEquals(51, errors.get(1).column());
    }

    @Test
    public void aV1FileWithoutTheV1FormatBundleIsOneErrorNamingTheFileAndTheBundle() throws Exception {
        Path file = write("exp/v1.yml", """
                authorName: me
                trialConcurrency: 1
                trainingServicePlatform: local
                tuner: {builtinTunerName: Random}
                trial: {command: python3 a.py, codeDir: .}
                """);
        ValidationReport report = Loaders.withoutFormats().validate(file);
        assertEquals(List.of(file + ":3:26: trainingServicePlatform: this is an NNI v1 experiment file (it has "
                + "trainingServicePlatform), and no bundle reading v1 files is installed: install bundle nni.config.v1, "
                + "or write the file in the v2 format"), report.lines());
    }

    @Test
    public void aV2FileNeedsNoFormatBundle() throws Exception {
        ExperimentConfig config = Loaders.withoutFormats().load(write("exp/config.yml",
                COMMON + "searchSpace: {}\ntrainingService: {platform: local}\n"));
        assertEquals("local", config.platform());
    }

    /** A format's origins are where the manager's own problems with the converted file point. */
    @Test
    public void problemsInAConvertedFileAreLocatedByTheFormatsOrigins() throws Exception {
        ExperimentConfigLoader loader = Loaders.withoutFormats();
        loader.addFormat(new nni.api.config.ConfigFormat() {
            @Override
            public boolean recognises(Map<String, Object> root) {
                return root.containsKey("legacy");
            }

            @Override
            @SuppressWarnings("unchecked")
            public nni.api.config.ConfigConversion convert(Map<String, Object> root) {
                Map<String, Object> legacy = (Map<String, Object>) root.get("legacy");
                Map<String, Object> v2 = new java.util.LinkedHashMap<>(Map.of("searchSpace", Map.of(),
                        "trialCommand", "python3 a.py", "tuner", Map.of("name", "Random"),
                        "trainingService", Map.of("platform", "local")));
                v2.put("trialConcurrency", legacy.get("workers"));
                return nni.api.config.ConfigConversion.builder(v2).origin("trialConcurrency", "legacy.workers")
                        .problem(new nni.api.config.ConfigProblem("legacy.colour", "unknown key")).build();
            }
        }, Map.of());
        List<ConfigError> errors = assertThrows(ConfigException.class, () -> loader.load(write("exp/legacy.yml", """
                legacy:
                  colour: blue
                  workers: -1
                """))).errors();
        assertEquals(List.of("2:11 legacy.colour", "3:12 trialConcurrency"),
                errors.stream().map(e -> e.line() + ":" + e.column() + " " + e.path()).toList());
        assertEquals("unknown key", errors.get(0).message());
        assertTrue(errors.get(1).message(), errors.get(1).message().startsWith("expected"));
    }

    @Test
    public void aFormatThatFailsIsOneErrorWithTheFileNotAnException() throws Exception {
        ExperimentConfigLoader loader = Loaders.withoutFormats();
        loader.addFormat(new nni.api.config.ConfigFormat() {
            @Override
            public boolean recognises(Map<String, Object> root) {
                return true;
            }

            @Override
            public nni.api.config.ConfigConversion convert(Map<String, Object> root) {
                throw new IllegalStateException("broken converter");
            }
        }, Map.of());
        Path file = write("exp/any.yml", "trialConcurrency: 1\n");
        assertEquals(List.of(file + ":1:1: the experiment file format bundle failed to read this file: broken converter"),
                loader.validate(file).lines());
    }

    /** Each platform's secrets, as its section check marks them, are listed and masked for storing and serving. */
    @Test
    public void secretsOfEveryPlatformAreListedAndMasked() throws Exception {
        Map<String, Map<String, String>> corpus = new java.util.LinkedHashMap<>();
        corpus.put("v2-remote.yml", Map.of("trainingService.machineList[0].password", "not-shown-anywhere",
                "trainingService.machineList[1].sshPassphrase", "also-secret"));
        corpus.put("v1-remote.yml", Map.of("trainingService.machineList[0].password", "not-shown-anywhere",
                "trainingService.machineList[1].sshPassphrase", "also-secret"));
        corpus.put("v2-hybrid.yml", Map.of("trainingService[1].machineList[0].password", "not-shown-anywhere"));
        corpus.put("v2-openpai.yml", Map.of("trainingService.token", "some-jwt"));
        corpus.put("v1-pai.yml", Map.of("trainingService.token", "some-token"));
        corpus.put("v2-dlc.yml", Map.of("trainingService.accessKeySecret", "not-shown-anywhere"));
        corpus.put("v2-frameworkcontroller.yml", Map.of("trainingService.storage.keyVaultKey", "nnikey"));
        com.fasterxml.jackson.databind.ObjectMapper json = new com.fasterxml.jackson.databind.ObjectMapper();
        for (Map.Entry<String, Map<String, String>> file : corpus.entrySet()) {
            ExperimentConfig config = loader.load(Path.of(ExperimentConfigLoaderTest.class
                    .getResource("/configs/valid/" + file.getKey()).toURI()));
            assertEquals(file.getKey(), file.getValue(), config.secretValues());
            ExperimentConfig masked = config.masked();
            String shown = json.writeValueAsString(masked.canonical()) + json.writeValueAsString(masked.trainingServices())
                    + config;
            for (String secret : file.getValue().values()) {
                assertFalse(file.getKey() + " shows " + secret + ": " + shown, shown.contains(secret));
            }
            masked.secretValues().values().forEach(value -> assertEquals(ExperimentConfig.MASK, value));
            ExperimentConfig restored = masked.withSecretValues(config.secretValues());
            assertEquals(file.getKey(), config.secretValues(), restored.secretValues());
            assertEquals(file.getKey(), config.trainingServices(), restored.trainingServices());
            assertEquals(file.getKey(), config.canonical(), restored.canonical());
        }
    }
}
