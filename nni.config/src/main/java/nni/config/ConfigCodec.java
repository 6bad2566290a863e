package nni.config;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;


/**
 * Writes an {@link ExperimentConfig} as JSON into the experiment's store and reads it back on
 * resume, so that a resumed experiment runs with exactly the definition (and run-time updates) it
 * had, without the original file. Secrets are written masked, with their key paths; the real values
 * live in the experiment's {@link SecretsFile} and are put back by whoever reads the definition.
 */
public final class ConfigCodec {

    private static final ObjectMapper JSON = new ObjectMapper();

    private ConfigCodec() {
    }

    /** @return the definition as JSON, secrets masked */
    public static String write(ExperimentConfig real) {
        ExperimentConfig config = real.masked();
        Map<String, Object> map = new LinkedHashMap<>();
        map.put("experimentName", config.experimentName());
        map.put("searchSpace", config.searchSpace());
        map.put("trialCommand", config.trialCommand());
        map.put("trialCodeDirectory", string(config.trialCodeDirectory()));
        map.put("trialConcurrency", config.trialConcurrency());
        map.put("trialGpuNumber", config.trialGpuNumber());
        map.put("maxExperimentDuration", millis(config.maxExperimentDuration()));
        map.put("maxTrialNumber", config.maxTrialNumber());
        map.put("maxTrialDuration", millis(config.maxTrialDuration()));
        map.put("nniManagerIp", config.nniManagerIp());
        map.put("debug", config.debug());
        map.put("logLevel", config.logLevel());
        map.put("experimentWorkingDirectory", string(config.experimentWorkingDirectory()));
        map.put("tuner", algorithm(config.tuner()));
        map.put("assessor", algorithm(config.assessor()));
        map.put("trainingServices", config.trainingServices());
        map.put("canonical", config.canonical());
        map.put("secrets", config.secrets());
        try {
            return JSON.writeValueAsString(map);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("the experiment definition cannot be written as JSON: " + e.getMessage(), e);
        }
    }

    /**
     * A stored definition as read back.
     *
     * @param config   the definition, its secrets still masked ({@link ExperimentConfig#secrets()} names
     *                 them); a run-time value of the wrong type is replaced by a harmless one
     * @param problems each run-time value (concurrency, limits, search space) of the wrong type, as
     *                 {@code field: reason}: what a hand-edited store or an older runtime may hold. The
     *                 experiment can still be opened, its trials taken back and stopped, but it must
     *                 not run on with the replacement
     */
    public record Stored(ExperimentConfig config, List<String> problems) {
        public Stored {
            problems = List.copyOf(problems);
        }
    }

    /**
     * @return the stored definition
     * @throws IllegalArgumentException naming the field, when the JSON is broken or a value the
     *                                  experiment cannot be opened without has the wrong type
     */
    public static Stored read(String json) {
        Map<String, Object> map;
        try {
            map = JSON.readValue(json, new TypeReference<Map<String, Object>>() { });
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("the stored experiment definition is not valid JSON: " + e.getOriginalMessage(), e);
        }
        StoredFields fields = new StoredFields(map);
        ExperimentConfig config = new ExperimentConfig(fields.required("experimentName", String.class, null),
                fields.runTime(UpdatableFields.SEARCH_SPACE, Map.class, "a mapping", Map.of()), fields.required("trialCommand", String.class, null),
                path(fields.required("trialCodeDirectory", String.class, null)),
                fields.runTime(UpdatableFields.TRIAL_CONCURRENCY, Integer.class, "a whole number", 1),
                fields.required("trialGpuNumber", Integer.class, null),
                duration(fields.runTime(UpdatableFields.MAX_EXPERIMENT_DURATION, Long.class, "a whole number of milliseconds", null)),
                fields.runTime(UpdatableFields.MAX_TRIAL_NUMBER, Integer.class, "a whole number", null),
                duration(fields.required("maxTrialDuration", Long.class, null)),
                fields.required("nniManagerIp", String.class, null), Boolean.TRUE.equals(fields.required("debug", Boolean.class, false)),
                fields.required("logLevel", String.class, null), path(fields.required("experimentWorkingDirectory", String.class, null)),
                algorithm(fields.required("tuner", Map.class, null), "tuner"), algorithm(fields.required("assessor", Map.class, null), "assessor"),
                fields.required("trainingServices", List.class, null), fields.required("canonical", Map.class, null),
                fields.required("secrets", List.class, null));
        return new Stored(config, fields.problems);
    }

    /** The stored map's values, each checked for its type as it is taken, naming its key. */
    private static final class StoredFields {
        private final Map<String, Object> map;
        final List<String> problems = new ArrayList<>();

        StoredFields(Map<String, Object> map) {
            this.map = map;
        }

        /** @return the value, {@code absent} when there is none; a value of another type is refused */
        <T> T required(String key, Class<?> type, T absent) {
            Object value = map.get(key);
            if (value == null) {
                return absent;
            }
            T typed = typed(value, type);
            if (typed == null) {
                throw new IllegalArgumentException("the stored experiment definition's " + key + " is " + described(value)
                        + ", not " + type.getSimpleName());
            }
            return typed;
        }

        /** @return the value, or {@code replacement} (noting the problem) when it has another type */
        <T> T runTime(String key, Class<?> type, String expected, T replacement) {
            Object value = map.get(key);
            if (value == null) {
                return replacement;
            }
            T typed = typed(value, type);
            if (typed == null) {
                problems.add(key + ": expected " + expected + ", got " + described(value));
                return replacement;
            }
            return typed;
        }

        @SuppressWarnings("unchecked")
        private static <T> T typed(Object value, Class<?> type) {
            if (type == Integer.class || type == Long.class) {
                if (!(value instanceof Integer || value instanceof Long)) {
                    return null;
                }
                long number = ((Number) value).longValue();
                if (type == Integer.class && (number < Integer.MIN_VALUE || number > Integer.MAX_VALUE)) {
                    return null;
                }
                return (T) (type == Integer.class ? (Object) (int) number : (Object) number);
            }
            return type.isInstance(value) ? (T) value : null;
        }

        private static String described(Object value) {
            String text;
            try {
                text = JSON.writeValueAsString(value);
            } catch (JsonProcessingException e) {
                text = String.valueOf(value);
            }
            return text.length() > 80 ? text.substring(0, 77) + "..." : text;
        }
    }

    private static Map<String, Object> algorithm(AlgorithmConfig algorithm) {
        if (algorithm == null) {
            return null;
        }
        Map<String, Object> map = new LinkedHashMap<>();
        map.put("name", algorithm.name());
        map.put("className", algorithm.className());
        map.put("codeDirectory", string(algorithm.codeDirectory()));
        map.put("classArgs", algorithm.classArgs());
        map.put("implementation", algorithm.implementation());
        return map;
    }

    @SuppressWarnings("unchecked")
    private static AlgorithmConfig algorithm(Map<String, Object> map, String key) {
        if (map == null) {
            return null;
        }
        StoredFields fields = new StoredFields(map);
        try {
            return new AlgorithmConfig(fields.required("name", String.class, null), fields.required("className", String.class, null),
                    path(fields.required("codeDirectory", String.class, null)), fields.required("classArgs", Map.class, null),
                    fields.required("implementation", String.class, null));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(e.getMessage().replace("definition's ", "definition's " + key + "."), e);
        }
    }

    private static String string(Path path) {
        return path == null ? null : path.toString();
    }

    private static Path path(String value) {
        return value == null ? null : Path.of(value);
    }

    private static Long millis(Duration duration) {
        return duration == null ? null : duration.toMillis();
    }

    private static Duration duration(Long millis) {
        return millis == null ? null : Duration.ofMillis(millis);
    }
}
