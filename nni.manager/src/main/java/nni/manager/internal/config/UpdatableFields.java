package nni.manager.internal.config;

import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

import nni.api.config.ConfigProblem;
import nni.api.config.ConfigReader;

/**
 * The experiment fields that can change while it runs ({@code nnictl update}), each with one rule
 * that decides what a valid value is, whether it comes from a file ({@link ExperimentConfigLoader})
 * or from a request or the console ({@link #trialConcurrency(Object)} and the others). Values are
 * as parsed: Integer, Long, BigInteger, BigDecimal or Double, String; a number is never converted
 * to fit ({@code 4294967297} is not 1, {@code 1e309} is not 2147483647): out of range is an error
 * naming the field and the range. A search space is checked here for what every reader of it needs
 * ({@link #searchSpace(Object)}: numbers JSON can hold), then by what runs the tuner.
 */
public final class UpdatableFields {

    public static final String TRIAL_CONCURRENCY = "trialConcurrency";
    public static final String MAX_TRIAL_NUMBER = "maxTrialNumber";
    public static final String MAX_EXPERIMENT_DURATION = "maxExperimentDuration";
    public static final String SEARCH_SPACE = "searchSpace";

    private UpdatableFields() {
    }

    static Integer trialConcurrency(ConfigReader reader) {
        return reader.requiredInteger(TRIAL_CONCURRENCY, 1, Integer.MAX_VALUE);
    }

    static Integer maxTrialNumber(ConfigReader reader) {
        return reader.integer(MAX_TRIAL_NUMBER, null, 1, Integer.MAX_VALUE);
    }

    /** @return whole seconds */
    static Long maxExperimentDuration(ConfigReader reader) {
        return reader.duration(MAX_EXPERIMENT_DURATION);
    }

    /** @throws IllegalArgumentException naming the field and its range */
    public static int trialConcurrency(Object value) {
        return check(TRIAL_CONCURRENCY, value, UpdatableFields::trialConcurrency);
    }

    /** @throws IllegalArgumentException naming the field and its range */
    public static int maxTrialNumber(Object value) {
        return check(MAX_TRIAL_NUMBER, value, UpdatableFields::maxTrialNumber);
    }

    /** @throws IllegalArgumentException naming the field and what a duration is */
    public static Duration maxExperimentDuration(Object value) {
        return Duration.ofSeconds(check(MAX_EXPERIMENT_DURATION, value, UpdatableFields::maxExperimentDuration));
    }

    /**
     * @param value a search space as parsed (decimals as Double, or exactly as BigDecimal)
     * @return the space with its decimals as Double, as a file gives them to the tuner
     * @throws IllegalArgumentException naming the field ({@code searchSpace.lr._value[1]}) when it is no
     *         mapping or holds a number no double can hold
     */
    public static Map<String, Object> searchSpace(Object value) {
        if (!(value instanceof Map<?, ?> space)) {
            throw new IllegalArgumentException(SEARCH_SPACE + ": expected a JSON object, got " + nni.api.config.Units.describe(value));
        }
        List<ConfigProblem> problems = nonFinite(space);
        if (!problems.isEmpty()) {
            throw new IllegalArgumentException(problems.stream().map(p -> SEARCH_SPACE + "." + p.path() + ": " + p.message())
                    .collect(Collectors.joining("; ")));
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> doubles = (Map<String, Object>) withDoubles(space);
        return doubles;
    }

    /**
     * @return every number of a search space that is not finite (1e309 read as Infinity, YAML's .inf,
     *         NaN), with paths relative to the space: stored as JSON it would come back as a string
     *         ("Infinity"), which no tuner reads, and the experiment could not be resumed
     */
    static List<ConfigProblem> nonFinite(Object json) {
        List<ConfigProblem> problems = new ArrayList<>();
        nonFinite(json, "", problems);
        return problems;
    }

    private static void nonFinite(Object json, String path, List<ConfigProblem> problems) {
        if (json instanceof Map<?, ?> map) {
            map.forEach((key, value) -> nonFinite(value, path.isEmpty() ? String.valueOf(key) : path + "." + key, problems));
        } else if (json instanceof List<?> list) {
            for (int i = 0; i < list.size(); i++) {
                nonFinite(list.get(i), path + "[" + i + "]", problems);
            }
        } else if (json instanceof Number number && !Double.isFinite(number.doubleValue())) {
            problems.add(new ConfigProblem(path, "expected a finite number (at most 1.7976931348623157e308 either way), got "
                    + (number instanceof BigDecimal exact ? exact.toString() : String.valueOf(number))));
        }
    }

    private static Object withDoubles(Object json) {
        if (json instanceof Map<?, ?> map) {
            Map<String, Object> copy = new LinkedHashMap<>();
            map.forEach((key, value) -> copy.put(String.valueOf(key), withDoubles(value)));
            return copy;
        }
        if (json instanceof List<?> list) {
            List<Object> copy = new ArrayList<>(list.size());
            list.forEach(value -> copy.add(withDoubles(value)));
            return copy;
        }
        return json instanceof BigDecimal exact ? (Object) exact.doubleValue() : json;
    }

    /**
     * @return a value typed at the console as a file would give it: a whole number as Integer, Long
     *         or (too large for a long) BigInteger; anything else as the text itself
     */
    public static Object fromText(String text) {
        String trimmed = text.trim();
        if (!trimmed.matches("[+-]?\\d+")) {
            return trimmed;
        }
        java.math.BigInteger number = new java.math.BigInteger(trimmed);
        if (number.bitLength() < 32) {
            return number.intValue();
        }
        return number.bitLength() < 64 ? (Object) number.longValue() : number;
    }

    private static <T> T check(String field, Object value, Function<ConfigReader, T> rule) {
        if (value == null) {
            throw new IllegalArgumentException(field + ": a value is required");
        }
        Map<String, Object> one = new HashMap<>();
        one.put(field, value);
        ConfigReader reader = ConfigReader.of(one, Path.of("."));
        T checked = rule.apply(reader);
        List<ConfigProblem> problems = reader.check().problems();
        if (!problems.isEmpty()) {
            throw new IllegalArgumentException(problems.stream().map(p -> p.path() + ": " + p.message())
                    .collect(Collectors.joining("; ")));
        }
        return checked;
    }
}
