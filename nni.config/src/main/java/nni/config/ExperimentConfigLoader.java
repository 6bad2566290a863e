package nni.config;

import nni.api.experiment.ErrorText;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Supplier;


import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;

import nni.api.config.ConfigConversion;
import nni.api.config.ConfigFormat;
import nni.api.config.ConfigProblem;
import nni.api.experiment.ExperimentUpdate;
import nni.api.config.ConfigReader;
import nni.api.config.SectionCheck;
import nni.api.config.Units;
import nni.api.platform.TrainingPlatform;
import nni.api.searchspace.SearchSpace;
import nni.api.tuner.DispatcherProvider;

/**
 * Loads NNI experiment files (v2, and other formats such as v1 converted to v2 by the
 * {@link ConfigFormat} services installed) exactly as NNI does, and reports every problem at once
 * with file, line, column and key path.
 *
 * <p>The manager checks the common part (top-level fields, tuner and assessor, search space, shared
 * storage); each training-service section is checked by its platform's
 * {@link TrainingPlatform#checkSection}, and the tuner and assessor by what runs them (the Java
 * providers check their {@code classArgs}; a {@link DispatcherProvider} checks the sections and the
 * search space, as far as its algorithms declare what they read). Thread-safe.
 *
 * <p>The manager makes one with what is installed (its platform and algorithm registries) and
 * {@linkplain #addFormat adds the file formats} as their services come and go.
 */
public class ExperimentConfigLoader {

    /** Fields NNI copies from the top level into every training-service section that lacks them. */
    static final List<String> SHORTCUT_FIELDS = List.of("trialCommand", "trialCodeDirectory", "trialGpuNumber",
            "nniManagerIp", "debug");

    /** The order of NNI's {@code ExperimentConfig} fields, which its canonical JSON keeps. */
    private static final List<String> CANONICAL_ORDER = List.of("experimentName", "experimentType", "searchSpaceFile",
            "searchSpace", "trialCommand", "trialCodeDirectory", "trialConcurrency", "trialGpuNumber",
            "maxExperimentDuration", "maxTrialNumber", "maxTrialDuration", "nniManagerIp", "useAnnotation", "debug",
            "logLevel", "experimentWorkingDirectory", "tunerGpuIndices", "tuner", "assessor", "trainingService",
            "sharedStorage");

    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * The platforms NNI knows (v2 names, and the v1-only ones the conversion keeps): a section naming
     * one whose bundle is not installed is "not checked"; any other name is a mistake.
     */
    static final List<String> NNI_PLATFORMS = List.of("local", "remote", "openpai", "kubeflow", "frameworkcontroller",
            "aml", "dlc", "adl", "dlts");
    private static final String ANNOTATION = "expected false: annotation is not supported since NNI v3.0";

    private final Function<String, Optional<TrainingPlatform>> platforms;
    /** What runs a tuner and an assessor (the assessor may be null). */
    private final BiFunction<AlgorithmConfig, AlgorithmConfig, AlgorithmChoice> algorithms;
    private final Supplier<List<String>> installedPlatforms;
    private final ConfigFormats formats = new ConfigFormats();

    /**
     * @param platforms          the installed platform of a name, which checks its sections
     * @param algorithms         what runs a tuner and its assessor (given null when there is none)
     * @param installedPlatforms the installed platforms' names, for messages
     */
    public ExperimentConfigLoader(Function<String, Optional<TrainingPlatform>> platforms,
            BiFunction<AlgorithmConfig, AlgorithmConfig, AlgorithmChoice> algorithms, Supplier<List<String>> installedPlatforms) {
        this.platforms = platforms;
        this.algorithms = algorithms;
        this.installedPlatforms = installedPlatforms;
    }

    /**
     * A format bundle coming or going changes which files load, not a loading under way.
     *
     * @param properties the format service's properties (which bundle, its ranking)
     */
    public void addFormat(ConfigFormat format, Map<String, Object> properties) {
        formats.add(format, properties);
    }

    public void removeFormat(ConfigFormat format) {
        formats.remove(format);
    }

    /**
     * Loads, canonicalizes and validates an experiment file, hybrid ones (a {@code trainingService}
     * list) included. Every training-service platform it names must be installed.
     *
     * @throws ConfigException listing every problem
     */
    public ExperimentConfig load(Path file) throws ConfigException {
        return config(check(file));
    }

    private ExperimentConfig config(Outcome outcome) throws ConfigException {
        List<ConfigError> errors = new ArrayList<>(outcome.errors);
        for (String section : outcome.unchecked) {
            errors.add(outcome.source.error(section.substring(0, section.indexOf(' ')) + ".platform",
                    "platform \"" + outcome.platformOf.get(section) + "\" is not installed; installed: "
                            + String.join(", ", installedPlatforms.get())));
        }
        if (!errors.isEmpty()) {
            throw new ConfigException(errors);
        }
        return outcome.config;
    }

    /**
     * Checks an experiment file without creating anything, as {@link #load} would load it.
     * Sections of platforms that are not installed are listed as not checked rather than as errors.
     */
    public ValidationReport validate(Path file) {
        try {
            Outcome outcome = check(file);
            List<ConfigError> errors = new ArrayList<>(outcome.errors);
            return new ValidationReport(file, errors, outcome.unchecked, outcome.notes);
        } catch (ConfigException e) {
            return new ValidationReport(file, e.errors(), List.of());
        }
    }

    /** What checking found: errors, sections not checked, and the config when there is no error. */
    private static final class Outcome {
        ConfigSource source;
        final List<ConfigError> errors = new ArrayList<>();
        final List<String> unchecked = new ArrayList<>();
        /** How the algorithms run, when not by Java providers ({@code tuner SMAC: runs through ...}). */
        final List<String> notes = new ArrayList<>();
        final Map<String, String> platformOf = new HashMap<>();
        /** The file asks for NNI annotations: that is its one problem, whatever else it lacks for them. */
        boolean annotation;
        ExperimentConfig config;
    }

    @SuppressWarnings("unchecked")
    private Outcome check(Path file) throws ConfigException {
        Path absolute = file.toAbsolutePath().normalize();
        ConfigSource source = ConfigSource.read(absolute);
        Outcome outcome = new Outcome();
        outcome.source = source;
        if (!(source.root() instanceof Map<?, ?>)) {
            throw new ConfigException(List.of(source.error("", "expected a mapping of experiment settings at the top level, got "
                    + Units.describe(source.root()))));
        }
        Map<String, Object> root = (Map<String, Object>) source.root();
        ConfigConversion converted = convert(root, source);
        if (converted != null) {
            for (ConfigProblem problem : converted.problems()) {
                outcome.errors.add(source.error(problem.path(), problem.message()));
            }
            root = converted.tree();
            source = source.converted(root, converted.origins());
            outcome.source = source;
        }
        Path base = absolute.getParent();
        List<ConfigProblem> problems = new ArrayList<>();
        Map<String, String> redirects = new HashMap<>();
        ExperimentConfig config = read(root, base, problems, outcome, redirects);
        // a top-level value copied into a section is reported at the top level, once
        Set<String> seen = new java.util.HashSet<>();
        for (ConfigProblem problem : problems) {
            String path = redirects.getOrDefault(problem.path(), problem.path());
            if (seen.add(path + "\n" + problem.message())) {
                outcome.errors.add(source.error(path, problem.message()));
            }
        }
        if (outcome.annotation) {
            outcome.errors.clear();
            outcome.unchecked.clear();
            outcome.errors.add(source.error("useAnnotation", ANNOTATION));
        }
        outcome.errors.sort(java.util.Comparator.comparingInt(ConfigError::line).thenComparingInt(ConfigError::column));
        if (outcome.errors.isEmpty()) {
            outcome.config = config;
        }
        return outcome;
    }

    /**
     * @return the file converted to v2 by the format that recognises it, or null for a v2 file
     * @throws ConfigException for a v1 file without the bundle that reads it, or a format that failed
     */
    private ConfigConversion convert(Map<String, Object> root, ConfigSource source) throws ConfigException {
        Optional<ConfigFormat> format;
        try {
            format = formats.recognising(root);
            if (format.isPresent()) {
                return format.get().convert(root);
            }
        } catch (RuntimeException e) {
            throw new ConfigException(List.of(source.error("", "the experiment file format bundle failed to read this file: "
                    + ErrorText.of(e))));
        }
        if (ConfigFormats.isV1(root)) {
            throw new ConfigException(List.of(source.error("trainingServicePlatform", "this is an NNI v1 experiment file "
                    + "(it has trainingServicePlatform), and no bundle reading v1 files is installed: install bundle "
                    + ConfigFormats.V1_BUNDLE + ", or write the file in the v2 format")));
        }
        return null;
    }

    @SuppressWarnings("unchecked")
    private ExperimentConfig read(Map<String, Object> root, Path base, List<ConfigProblem> problems, Outcome outcome,
            Map<String, String> redirects) {
        ConfigReader reader = ConfigReader.of(root, base);
        String experimentName = reader.string("experimentName");
        String experimentType = reader.string("experimentType", "hpo");
        if (experimentType != null && !experimentType.equals("hpo")) {
            reader.problem("experimentType", "expected \"hpo\" (NAS experiments are not supported), got \""
                    + experimentType + "\"");
        }
        Path searchSpaceFile = reader.path("searchSpaceFile", null, false);
        Object searchSpace = reader.any("searchSpace");
        String trialCommand = reader.string("trialCommand");
        Path trialCodeDirectory = reader.path("trialCodeDirectory", ".", false);
        Integer trialConcurrency = UpdatableFields.trialConcurrency(reader);
        Integer trialGpuNumber = reader.integer("trialGpuNumber", null, 0, Integer.MAX_VALUE);
        Long maxExperimentDuration = UpdatableFields.maxExperimentDuration(reader);
        Integer maxTrialNumber = UpdatableFields.maxTrialNumber(reader);
        Long maxTrialDuration = reader.duration("maxTrialDuration");
        String nniManagerIp = reader.string("nniManagerIp");
        Boolean useAnnotation = reader.bool("useAnnotation", false);
        if (Boolean.TRUE.equals(useAnnotation)) {
            outcome.annotation = true;
        }
        Boolean debug = reader.bool("debug", false);
        String logLevel = reader.oneOf("logLevel", Boolean.TRUE.equals(debug) ? "debug" : "info", false,
                "fatal", "error", "warning", "info", "debug", "trace");
        Path workingDirectory = reader.path("experimentWorkingDirectory", "~/nni-experiments", false);
        reader.indices("tunerGpuIndices");

        AlgorithmConfig tuner = algorithm(reader, "tuner");
        AlgorithmConfig assessor = algorithm(reader, "assessor");
        AlgorithmConfig advisor = algorithm(reader, "advisor");
        if (advisor != null) {
            if (tuner != null) {
                reader.problem("advisor", "give either tuner or advisor (advisor is the deprecated name), not both");
            } else {
                tuner = advisor;
                reader.set("tuner", reader.canonical("advisor"));
            }
            reader.set("advisor", null);
        }
        if (tuner == null && !reader.has("tuner") && !reader.has("advisor")) {
            reader.problem("tuner", "tuner is required");
        }
        sharedStorage(reader);
        List<String> secrets = new ArrayList<>();
        // what runs the algorithms decides what of the search space is checked
        AlgorithmChoice choice = tuner == null ? null : algorithms.apply(tuner, assessor);

        // search space: exactly one of searchSpace and searchSpaceFile
        Map<String, Object> space = Map.of();
        if (searchSpaceFile != null && reader.has("searchSpace")) {
            reader.problem("searchSpace", "give either searchSpace or searchSpaceFile, not both");
        } else if (searchSpaceFile != null) {
            Object loaded = loadSearchSpace(searchSpaceFile, reader);
            if (loaded != null) {
                space = checkSearchSpace(loaded, "searchSpaceFile", " in " + searchSpaceFile, reader, choice, tuner);
                reader.set("searchSpace", loaded);
            }
        } else if (reader.has("searchSpace") && searchSpace != null) {
            space = checkSearchSpace(searchSpace, "searchSpace", "", reader, choice, tuner);
        } else {
            reader.problem("searchSpace", "give searchSpace or searchSpaceFile");
        }
        if (choice != null) {
            checkAlgorithms(choice, tuner, assessor, reader.has("advisor") && !reader.has("tuner") ? "advisor" : "tuner", reader,
                    outcome);
        }

        // training services
        Object services = reader.any("trainingService");
        List<Map<String, Object>> canonicalServices = new ArrayList<>();
        if (services == null) {
            reader.problem("trainingService", "trainingService is required");
        } else if (services instanceof Map<?, ?> single) {
            canonicalServices.add(service((Map<String, Object>) single, "trainingService", root, base, reader, outcome,
                    redirects, secrets));
            reader.set("trainingService", canonicalServices.get(0));
        } else if (services instanceof List<?> list && !list.isEmpty()) {
            for (int i = 0; i < list.size(); i++) {
                String at = "trainingService[" + i + "]";
                if (list.get(i) instanceof Map<?, ?> each) {
                    canonicalServices.add(service((Map<String, Object>) each, at, root, base, reader, outcome, redirects,
                            secrets));
                } else {
                    reader.problem(at, "expected a training service mapping with platform, got " + Units.describe(list.get(i)));
                }
            }
            reader.set("trainingService", canonicalServices);
        } else {
            reader.problem("trainingService", "expected a training service mapping (or a list of them for hybrid mode), got "
                    + Units.describe(services));
        }

        SectionCheck result = reader.check();
        problems.addAll(result.problems());
        secrets.addAll(0, result.secrets());
        if (!problems.isEmpty() || trialConcurrency == null) {
            return null;
        }
        Map<String, Object> canonical = new LinkedHashMap<>();
        for (String key : CANONICAL_ORDER) {
            if (result.section().get(key) != null) {
                canonical.put(key, result.section().get(key));
            }
        }
        return new ExperimentConfig(experimentName, space, trialCommand, trialCodeDirectory, trialConcurrency,
                trialGpuNumber, maxExperimentDuration == null ? null : Duration.ofSeconds(maxExperimentDuration),
                maxTrialNumber, maxTrialDuration == null ? null : Duration.ofSeconds(maxTrialDuration), nniManagerIp,
                Boolean.TRUE.equals(debug), logLevel, workingDirectory, tuner, assessor, List.copyOf(canonicalServices),
                canonical, secrets);
    }

    private static AlgorithmConfig algorithm(ConfigReader parent, String key) {
        ConfigReader reader = parent.object(key, false);
        if (reader == null) {
            return null;
        }
        String name = reader.string("name");
        String className = reader.string("className");
        Path codeDirectory = reader.path("codeDirectory", null, false);
        Map<String, Object> classArgs = reader.mapping("classArgs");
        String implementation = reader.string("implementation");
        // NNI v1's key (v2 dropped it; nni-osgi keeps it): the dispatcher tells the tuner of early stops
        reader.bool("includeIntermediateResults", null);
        if ("_none_".equals(name)) {
            parent.set(key, null);
            return null;
        }
        if (className == null) {
            if (name == null || name.isEmpty()) {
                reader.problem("name", "expected the name of a built-in " + key + " (or className and codeDirectory of a custom one)");
            }
            if (codeDirectory != null) {
                reader.problem("codeDirectory", "expected no codeDirectory for a built-in " + key + " (it goes with className)");
            }
        } else {
            if (name != null) {
                reader.problem("name", "expected either name (built-in) or className (custom), not both");
            }
            if (codeDirectory == null) {
                reader.problem("codeDirectory", "codeDirectory is required with className");
            } else if (!Files.isDirectory(codeDirectory)) {
                reader.problem("codeDirectory", "expected an existing directory, got \"" + codeDirectory + "\"");
            }
        }
        return new AlgorithmConfig(name, className, codeDirectory, classArgs == null ? Map.of() : classArgs, implementation);
    }

    /**
     * Checks the tuner and assessor by what runs them: the Java providers their {@code classArgs},
     * a dispatcher provider the sections (and notes for {@code validate} how they run).
     *
     * @param tunerKey where the tuner is written: {@code tuner}, or the deprecated {@code advisor}
     */
    private static void checkAlgorithms(AlgorithmChoice choice, AlgorithmConfig tuner, AlgorithmConfig assessor,
            String tunerKey, ConfigReader reader, Outcome outcome) {
        if (choice instanceof AlgorithmChoice.JavaAlgorithms java) {
            // as any provider's, without the note: Java algorithms are this runtime's own way
            java.runner().checkAlgorithms(tuner.section(), assessor == null ? null : assessor.section())
                    .forEach(p -> reader.problem(underKey(p.path(), tunerKey), p.message()));
        } else if (choice instanceof AlgorithmChoice.ThroughDispatcher dispatcher) {
            dispatcher.provider().checkAlgorithms(tuner.section(), assessor == null ? null : assessor.section())
                    .forEach(p -> reader.problem(underKey(p.path(), tunerKey), p.message()));
            outcome.notes.add(tunerKey + " " + tuner.section().label()
                    + (assessor == null ? "" : " with assessor " + assessor.section().label())
                    + ": runs through " + dispatcher.provider().runsThrough());
        } else if (choice instanceof AlgorithmChoice.Unavailable missing) {
            reader.problem(underKey(missing.path(), tunerKey), missing.message());
        }
    }

    /** @return a path under {@code tuner} moved under the key the tuner is written with */
    private static String underKey(String path, String tunerKey) {
        return path.equals("tuner") || path.startsWith("tuner.") ? tunerKey + path.substring("tuner".length()) : path;
    }

    private static void sharedStorage(ConfigReader parent) {
        ConfigReader storage = parent.object("sharedStorage", false);
        if (storage == null) {
            return;
        }
        storage.oneOf("storageType", null, true, "NFS", "AzureBlob");
        storage.path("localMountPoint", null, true);
        storage.requiredString("remoteMountPoint");
        storage.requiredString("localMounted");
        storage.string("storageAccountName");
        storage.secret("storageAccountKey", false);
        storage.string("containerName");
        storage.string("nfsServer");
        storage.string("exportedDirectory");
    }

    /** Reads a search-space file as NNI does: JSON first, then YAML (which accepts trailing commas). */
    private static Object loadSearchSpace(Path file, ConfigReader reader) {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            reader.problem("searchSpaceFile", "cannot read the search space file \"" + file + "\": "
                    + (e instanceof java.nio.file.NoSuchFileException ? "no such file" : ErrorText.of(e)));
            return null;
        }
        try {
            return JSON.readValue(text, Object.class);
        } catch (JsonProcessingException jsonError) {
            try {
                return new org.yaml.snakeyaml.Yaml(new org.yaml.snakeyaml.constructor.SafeConstructor(
                        new org.yaml.snakeyaml.LoaderOptions())).load(text);
            } catch (RuntimeException yamlError) {
                reader.problem("searchSpaceFile", "the search space file \"" + file + "\" is neither JSON nor YAML: "
                        + jsonError.getOriginalMessage());
                return null;
            }
        }
    }

    /** Checks the search space by {@link #searchSpaceProblems}, each problem put at its key. */
    @SuppressWarnings("unchecked")
    private static Map<String, Object> checkSearchSpace(Object json, String key, String where, ConfigReader reader,
            AlgorithmChoice choice, AlgorithmConfig tuner) {
        List<ConfigProblem> found = searchSpaceProblems(json, choice, tuner);
        if (!found.isEmpty()) {
            for (ConfigProblem problem : found) {
                if (key.equals("searchSpace")) {
                    reader.problem(problem.path().isEmpty() ? key : key + "." + problem.path(), problem.message());
                } else {
                    reader.problem(key, (problem.path().isEmpty() ? "" : problem.path() + ": ") + problem.message() + where);
                }
            }
            return Map.of();
        }
        return (Map<String, Object>) json;
    }

    /**
     * The rule of a search space, for a config file and for a stored definition resumed: numbers any
     * reader can take ({@link ExperimentUpdate#nonFiniteNumbers}; a tuner's checks take Infinity for a number),
     * then as far as what runs the tuner reads it: all of it for the Java providers, what a dispatcher
     * provider's algorithm declares for it. An update passes the same two through
     * {@link UpdatableFields#searchSpace} and the running algorithm.
     *
     * @return the problems, with paths relative to the space
     */
    public static List<ConfigProblem> searchSpaceProblems(Object json, AlgorithmChoice choice, AlgorithmConfig tuner) {
        List<ConfigProblem> found = ExperimentUpdate.nonFiniteNumbers(json);
        if (!found.isEmpty()) {
            return found;
        }
        if (choice instanceof AlgorithmChoice.JavaAlgorithms java) {
            return java.runner().checkSearchSpace(tuner.section(), json);
        }
        if (choice instanceof AlgorithmChoice.ThroughDispatcher dispatcher) {
            return json instanceof Map<?, ?> ? dispatcher.provider().checkSearchSpace(tuner.section(), json)
                    : List.of(new ConfigProblem("", "expected a search space mapping parameter names to their specs, got "
                    + Units.describe(json)));
        }
        return SearchSpace.check(json);
    }

    /**
     * One training-service section: root shortcuts copied in, then checked by its platform, whose
     * secrets are added to {@code secrets} as key paths from the root.
     */
    private Map<String, Object> service(Map<String, Object> section, String at, Map<String, Object> root, Path base,
            ConfigReader reader, Outcome outcome, Map<String, String> redirects, List<String> secrets) {
        Map<String, Object> filled = new LinkedHashMap<>(section);
        Set<String> present = new java.util.HashSet<>();
        section.keySet().forEach(k -> present.add(ConfigReader.normalize(k)));
        for (String field : SHORTCUT_FIELDS) {
            if (!present.contains(ConfigReader.normalize(field))) {
                Object value = valueOf(root, field);
                if (value != null) {
                    filled.put(field, value);
                    redirects.put(at + "." + field, field);
                }
            }
        }
        Object platform = valueOf(section, "platform");
        if (!(platform instanceof String name) || name.isEmpty()) {
            reader.problem(at + ".platform", platform == null ? "platform is required"
                    : "expected a platform name, got " + Units.describe(platform));
            return filled;
        }
        Optional<TrainingPlatform> found = platforms.apply(name);
        if (found.isEmpty() && !NNI_PLATFORMS.contains(name)) {
            List<String> names = new ArrayList<>(installedPlatforms.get());
            NNI_PLATFORMS.stream().filter(p -> !names.contains(p)).forEach(names::add);
            reader.problem(at + ".platform", "expected a platform name (" + String.join(", ", names) + "), got \""
                    + name + "\"");
            return filled;
        }
        if (found.isEmpty()) {
            String label = at + " (platform " + name + ")";
            outcome.unchecked.add(label);
            outcome.platformOf.put(label, name);
            return filled;
        }
        SectionCheck check;
        try {
            check = found.get().checkSection(filled, base);
        } catch (RuntimeException e) {
            reader.problem(at, "the " + name + " platform failed to check this section: " + ErrorText.of(e));
            return filled;
        }
        check.problems().forEach(p -> reader.problem(p.path().isEmpty() ? at
                : p.path().startsWith("[") ? at + p.path() : at + "." + p.path(), p.message()));
        check.secrets().forEach(path -> secrets.add(path.startsWith("[") ? at + path : at + "." + path));
        Map<String, Object> canonical = new LinkedHashMap<>(check.section());
        canonical.putIfAbsent("platform", name);
        return canonical;
    }

    private static Object valueOf(Map<String, Object> map, String field) {
        String normal = ConfigReader.normalize(field);
        for (Map.Entry<String, Object> entry : map.entrySet()) {
            if (ConfigReader.normalize(entry.getKey()).equals(normal)) {
                return entry.getValue();
            }
        }
        return null;
    }
}
