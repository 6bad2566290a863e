package nni.api.config;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Reads one mapping of an experiment configuration by NNI's rules, so that a platform's section check
 * is a list of field declarations: keys match ignoring case and underscores ({@code machine_list} is
 * {@code machineList}), every key must be declared (an undeclared one is a problem), values are
 * type-checked, defaults are filled in, paths are resolved against the config file's directory.
 *
 * <p>Each accessor reads one field, records it in the canonical mapping under its camelCase name and
 * returns the value (or null). Problems are collected, never thrown, with paths relative to the
 * section ({@code machineList[1].port}); after the last field call {@link #check()}.
 *
 * <pre>
 * ConfigReader reader = ConfigReader.of(section, baseDirectory);
 * reader.trainingServiceFields();
 * for (ConfigReader machine : reader.objects("machineList", true)) {
 *     machine.requiredString("host");
 *     machine.integer("port", 22, 1, 65535);
 * }
 * return reader.check();
 * </pre>
 *
 * <p>Messages never contain the value of a field read with {@link #secret}. Not thread-safe; one
 * reader per check.
 */
public final class ConfigReader {

    /** The longest duration accepted: what still fits in milliseconds. */
    private static final long MAX_DURATION_SECONDS = Long.MAX_VALUE / 1000;

    private final Map<String, Object> raw;
    private final Map<String, String> rawKeys = new LinkedHashMap<>();
    private final Set<String> declared = new HashSet<>();
    private final List<String> declaredNames = new ArrayList<>();
    private final Map<String, Object> canonical = new LinkedHashMap<>();
    private final List<ConfigReader> children = new ArrayList<>();
    private final List<ConfigProblem> problems;
    private final List<String> secrets;
    private final String path;
    private final Path baseDirectory;

    private ConfigReader(Map<String, Object> raw, String path, List<ConfigProblem> problems, List<String> secrets,
            Path baseDirectory) {
        this.raw = raw;
        this.path = path;
        this.problems = problems;
        this.secrets = secrets;
        this.baseDirectory = baseDirectory;
        for (String key : raw.keySet()) {
            rawKeys.put(normalize(key), key);
        }
    }

    /**
     * @param section       the mapping as parsed (String keys; values String, Integer/Long, Double,
     *                      Boolean, null, List, Map)
     * @param baseDirectory where relative paths start: the config file's directory
     */
    public static ConfigReader of(Map<String, Object> section, Path baseDirectory) {
        return new ConfigReader(section, "", new ArrayList<>(), new ArrayList<>(), baseDirectory);
    }

    /** @return the key as NNI compares it: lower case, without underscores */
    public static String normalize(String key) {
        return key.toLowerCase(Locale.ROOT).replace("_", "");
    }

    /** @return the key path of {@code key} in this reader, relative to the section checked */
    public String pathOf(String key) {
        return path.isEmpty() ? key : path + "." + key;
    }

    /** Records a problem at {@code key} of this mapping ({@code ""} for the mapping itself). */
    public void problem(String key, String message) {
        problems.add(new ConfigProblem(key.isEmpty() ? path : pathOf(key), message));
    }

    /** @return whether the file gave the field (even as null) */
    public boolean has(String key) {
        return rawKeys.containsKey(normalize(key));
    }

    /** @return the value as written, declaring the field without type checks or canonical entry */
    public Object peek(String key) {
        String rawKey = rawKeys.get(normalize(key));
        return rawKey == null ? null : raw.get(rawKey);
    }

    private Object take(String key) {
        String normal = normalize(key);
        if (declared.add(normal)) {
            declaredNames.add(key);
        }
        String rawKey = rawKeys.get(normal);
        return rawKey == null ? null : raw.get(rawKey);
    }

    /** Puts {@code value} into the canonical mapping (null removes the field), as NNI's canonicalization does. */
    public void set(String key, Object value) {
        if (value == null) {
            canonical.remove(key);
        } else {
            canonical.put(key, value);
        }
    }

    /** @return the canonical value recorded so far for {@code key} */
    public Object canonical(String key) {
        return canonical.get(key);
    }

    private Object missing(String key, boolean required, Object defaultValue) {
        if (required) {
            problem(key, key + " is required");
        }
        set(key, defaultValue);
        return defaultValue;
    }

    private void wrongType(String key, String expected, Object value, boolean secret) {
        problem(key, "expected " + expected + ", got " + (secret ? kind(value) : Units.describe(value)));
    }

    private static String kind(Object value) {
        if (value instanceof String) {
            return "a string";
        }
        if (value instanceof Number) {
            return "a number";
        }
        if (value instanceof Boolean) {
            return "a boolean";
        }
        return Units.describe(value);
    }

    // ---- scalars ---------------------------------------------------------------------------------

    /** An optional string field without default. */
    public String string(String key) {
        return string(key, false, null, false);
    }

    /** An optional string field with a default. */
    public String string(String key, String defaultValue) {
        return string(key, false, defaultValue, false);
    }

    /** A string field that must be given. */
    public String requiredString(String key) {
        return string(key, true, null, false);
    }

    /**
     * A string field holding a secret (password, token, key): its value never appears in a problem,
     * and its key path is listed in {@link SectionCheck#secrets()} so that the manager keeps it out
     * of its store, its REST API and its logs.
     */
    public String secret(String key, boolean required) {
        return string(key, required, null, true);
    }

    private String string(String key, boolean required, String defaultValue, boolean secret) {
        Object value = take(key);
        if (value == null) {
            return (String) missing(key, required, defaultValue);
        }
        if (!(value instanceof String text)) {
            wrongType(key, "a string", value, secret);
            return null;
        }
        if (secret) {
            secrets.add(pathOf(key));
        }
        set(key, text);
        return text;
    }

    /** A string field restricted to {@code allowed} values (compared exactly, as NNI does). */
    public String oneOf(String key, String defaultValue, boolean required, String... allowed) {
        Object value = take(key);
        if (value == null) {
            return (String) missing(key, required, defaultValue);
        }
        if (!(value instanceof String text) || !List.of(allowed).contains(text)) {
            wrongType(key, "one of " + String.join(", ", allowed), value, false);
            return null;
        }
        set(key, text);
        return text;
    }

    /** An integer field; {@code defaultValue} may be null (then absent stays absent). */
    public Integer integer(String key, Integer defaultValue, long min, long max) {
        return integer(key, false, defaultValue, min, max);
    }

    /** An integer field that must be given. */
    public Integer requiredInteger(String key, long min, long max) {
        return integer(key, true, null, min, max);
    }

    private Integer integer(String key, boolean required, Integer defaultValue, long min, long max) {
        Object value = take(key);
        if (value == null) {
            return (Integer) missing(key, required, defaultValue);
        }
        String expected = range("an integer", min, max);
        if (!(value instanceof Integer || value instanceof Long)) {
            wrongType(key, expected, value, false);
            return null;
        }
        long number = ((Number) value).longValue();
        if (number < min || number > max) {
            wrongType(key, expected, value, false);
            return null;
        }
        set(key, (int) number);
        return (int) number;
    }

    /** A TCP port field, 1-65535. */
    public Integer port(String key, Integer defaultValue) {
        Object value = take(key);
        if (value == null) {
            return (Integer) missing(key, false, defaultValue);
        }
        if (!(value instanceof Integer number) || number < 1 || number > 65535) {
            wrongType(key, "a port number 1-65535", value, false);
            return null;
        }
        set(key, number);
        return number;
    }

    private static String range(String what, long min, long max) {
        if (min == Long.MIN_VALUE && max == Long.MAX_VALUE) {
            return what;
        }
        if (max >= Integer.MAX_VALUE) {
            return what + " >= " + min;
        }
        return what + " " + min + "-" + max;
    }

    /** A boolean field; {@code defaultValue} may be null. */
    public Boolean bool(String key, Boolean defaultValue) {
        Object value = take(key);
        if (value == null) {
            return (Boolean) missing(key, false, defaultValue);
        }
        if (!(value instanceof Boolean flag)) {
            wrongType(key, "true or false", value, false);
            return null;
        }
        set(key, flag);
        return flag;
    }

    /**
     * A path field: {@code ~} expanded, resolved against the base directory, normalized. The
     * canonical value is the absolute path as a string.
     *
     * @param defaultValue a path as the file would write it, or null
     */
    public Path path(String key, String defaultValue, boolean required) {
        Object value = take(key);
        if (value == null) {
            if (required) {
                problem(key, key + " is required");
            }
            if (defaultValue == null) {
                return null;
            }
            value = defaultValue;
        }
        if (!(value instanceof String text)) {
            wrongType(key, "a path", value, false);
            return null;
        }
        Path resolved = resolve(text);
        set(key, resolved.toString());
        return resolved;
    }

    /** @return {@code text} as NNI resolves a path field: {@code ~} expanded, relative to the base directory */
    public Path resolve(String text) {
        String expanded = text;
        if (text.equals("~") || text.startsWith("~/")) {
            expanded = userHome() + text.substring(1);
        }
        return realPath(baseDirectory.resolve(expanded).toAbsolutePath().normalize());
    }

    /**
     * @return the home directory {@code ~} stands for, as Python's {@code os.path.expanduser} finds
     *         it: the {@code HOME} environment variable, else the account's home ({@code user.home})
     */
    public static String userHome() {
        String home = System.getenv("HOME");
        return home == null || home.isEmpty() ? System.getProperty("user.home") : home;
    }

    /**
     * NNI's {@code os.path.realpath}: symbolic links resolved in the part of the path that exists,
     * the rest appended as written.
     */
    private static Path realPath(Path absolute) {
        Path existing = absolute;
        while (existing != null) {
            try {
                Path real = existing.toRealPath();
                return existing == absolute ? real : real.resolve(existing.relativize(absolute));
            } catch (java.io.IOException e) {
                existing = existing.getParent();
            }
        }
        return absolute;
    }

    /** A path field that must name an existing directory when given. */
    public Path directory(String key, String defaultValue, boolean required) {
        Path directory = path(key, defaultValue, required);
        if (directory != null && !java.nio.file.Files.isDirectory(directory)) {
            problem(key, "expected an existing directory, got \"" + directory + "\"");
        }
        return directory;
    }

    /** A duration ({@code 1.5h}, or a number of seconds) that must be positive; kept as written. */
    public Long duration(String key) {
        Object value = take(key);
        if (value == null) {
            return null;
        }
        if (!(value instanceof String || value instanceof Integer || value instanceof Long)) {
            wrongType(key, "a duration such as 1.5h, 30m, 10s, 2d or a number of seconds", value, false);
            return null;
        }
        try {
            long seconds = Units.seconds(value);
            if (seconds <= 0 || seconds > MAX_DURATION_SECONDS) {
                wrongType(key, seconds <= 0 ? "a positive duration" : "a duration of at most " + MAX_DURATION_SECONDS + " seconds",
                        value, false);
                return null;
            }
            set(key, value);
            return seconds;
        } catch (IllegalArgumentException e) {
            problem(key, e.getMessage());
            return null;
        }
    }

    /** A memory size ({@code 8gb}, or a number of megabytes); kept as written. */
    public Long size(String key, boolean required) {
        Object value = take(key);
        if (value == null) {
            missing(key, required, null);
            return null;
        }
        if (!(value instanceof String || value instanceof Integer || value instanceof Long)) {
            wrongType(key, "a size such as 8gb, 512mb or a number of megabytes", value, false);
            return null;
        }
        try {
            long megabytes = Units.megabytes(value);
            set(key, value);
            return megabytes;
        } catch (IllegalArgumentException e) {
            problem(key, e.getMessage());
            return null;
        }
    }

    /**
     * GPU indices as NNI accepts them: a list of integers, one integer, or {@code "1,2"}; canonical
     * form is a list, without duplicates or negatives.
     */
    public List<Integer> indices(String key) {
        Object value = take(key);
        if (value == null) {
            return null;
        }
        List<Integer> indices = new ArrayList<>();
        String expected = "GPU indices: a list of integers, an integer or a string such as \"0,1\"";
        if (value instanceof Integer number) {
            indices.add(number);
        } else if (value instanceof String text) {
            for (String part : text.split(",")) {
                try {
                    indices.add(Integer.parseInt(part.strip()));
                } catch (NumberFormatException e) {
                    wrongType(key, expected, value, false);
                    return null;
                }
            }
        } else if (value instanceof List<?> list) {
            for (Object element : list) {
                if (!(element instanceof Integer number)) {
                    wrongType(key, expected, value, false);
                    return null;
                }
                indices.add(number);
            }
        } else {
            wrongType(key, expected, value, false);
            return null;
        }
        if (indices.stream().anyMatch(i -> i < 0)) {
            problem(key, "expected non-negative GPU indices, got " + indices);
        } else if (new HashSet<>(indices).size() != indices.size()) {
            problem(key, "expected GPU indices without duplicates, got " + indices);
        }
        set(key, indices);
        return indices;
    }

    /** A free-form value (NNI does not look inside: {@code classArgs}, {@code openpaiConfig}), kept as is. */
    public Object any(String key) {
        Object value = take(key);
        set(key, value);
        return value;
    }

    /** A free-form mapping (keys not canonicalized); null when absent. */
    @SuppressWarnings("unchecked")
    public Map<String, Object> mapping(String key) {
        Object value = take(key);
        if (value == null) {
            return null;
        }
        if (!(value instanceof Map<?, ?>)) {
            wrongType(key, "a mapping", value, false);
            return null;
        }
        set(key, value);
        return (Map<String, Object>) value;
    }

    // ---- nested ----------------------------------------------------------------------------------

    /**
     * A nested config mapping, read by the same rules.
     *
     * @return its reader, or null when absent (a problem is recorded if required) or not a mapping
     */
    public ConfigReader object(String key, boolean required) {
        Object value = take(key);
        if (value == null) {
            missing(key, required, null);
            return null;
        }
        if (!(value instanceof Map<?, ?>)) {
            wrongType(key, "a mapping", value, false);
            return null;
        }
        ConfigReader child = child(value, pathOf(key));
        set(key, child.canonical);
        return child;
    }

    /**
     * A list of nested config mappings ({@code machineList}).
     *
     * @param required the list must be given and not be empty
     * @return a reader per element that is a mapping (problems recorded for the others)
     */
    public List<ConfigReader> objects(String key, boolean required) {
        Object value = take(key);
        List<ConfigReader> readers = new ArrayList<>();
        if (value == null) {
            missing(key, required, null);
            return readers;
        }
        if (!(value instanceof List<?> list)) {
            wrongType(key, "a list of mappings", value, false);
            return readers;
        }
        if (required && list.isEmpty()) {
            problem(key, "expected at least one entry, got an empty list");
        }
        List<Object> canonicalList = new ArrayList<>();
        for (int i = 0; i < list.size(); i++) {
            String elementPath = pathOf(key) + "[" + i + "]";
            if (list.get(i) instanceof Map<?, ?>) {
                ConfigReader child = child(list.get(i), elementPath);
                readers.add(child);
                canonicalList.add(child.canonical);
            } else {
                problems.add(new ConfigProblem(elementPath, "expected a mapping, got " + Units.describe(list.get(i))));
            }
        }
        set(key, canonicalList);
        return readers;
    }

    @SuppressWarnings("unchecked")
    private ConfigReader child(Object value, String childPath) {
        ConfigReader child = new ConfigReader((Map<String, Object>) value, childPath, problems, secrets, baseDirectory);
        children.add(child);
        return child;
    }

    // ---- NNI's common training-service fields ------------------------------------------------------

    /**
     * Reads the fields every NNI training-service section has ({@code platform}, {@code trialCommand},
     * {@code trialCodeDirectory}, {@code trialGpuNumber}, {@code nniManagerIp}, {@code debug}); the
     * manager has copied the top-level values into the section already.
     *
     * @param commandRequired whether the platform needs {@code trialCommand}
     */
    public void trainingServiceFields(boolean commandRequired) {
        string("platform");
        if (commandRequired && take("trialCommand") == null) {
            problem("trialCommand", "trialCommand is required (at the top level or in the training service)");
        }
        string("trialCommand");
        directory("trialCodeDirectory", ".", false);
        integer("trialGpuNumber", null, 0, Integer.MAX_VALUE);
        string("nniManagerIp");
        bool("debug", false);
    }

    // ---- result ----------------------------------------------------------------------------------

    /** Runs {@code rule} for every element of a list field read with {@link #objects}. */
    public static void each(List<ConfigReader> readers, Consumer<ConfigReader> rule) {
        readers.forEach(rule);
    }

    /**
     * Finishes the check: every key of this mapping and its nested ones that no field declared is a
     * problem, as in NNI.
     *
     * @return the canonical section, every problem found and the key paths of the secrets read
     */
    public SectionCheck check() {
        reportUnknownKeys();
        return new SectionCheck(canonical, problems, secrets);
    }

    /** @return the problems found so far */
    public List<ConfigProblem> problems() {
        return problems;
    }

    private void reportUnknownKeys() {
        for (Map.Entry<String, String> key : rawKeys.entrySet()) {
            if (!declared.contains(key.getKey())) {
                problems.add(new ConfigProblem(pathOf(key.getValue()),
                        "unknown key \"" + key.getValue() + "\"; expected one of: " + String.join(", ", declaredNames)));
            }
        }
        children.forEach(ConfigReader::reportUnknownKeys);
    }
}
