package nni.api.experiment;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import java.util.stream.Collectors;

import nni.api.config.ConfigProblem;
import nni.api.config.ConfigReader;
import nni.api.config.Units;

/**
 * One change of a running experiment ({@code nnictl update}): its trial concurrency, its maximum
 * number of trials, its maximum duration or its search space. Made only by the static parses, where
 * a request enters (NNI's REST {@code update_type} and profile, the console's key and value), by the
 * rules an experiment's config file obeys, so that past the edge a value is never checked or
 * converted again. A value is never converted to fit: {@code 4294967297} is not 1, {@code 1e309}
 * is not a large number; a search space holding a number no double holds is refused. Immutable.
 */
public sealed interface ExperimentUpdate
        permits ExperimentUpdate.TrialConcurrency, ExperimentUpdate.MaxTrialNumber, ExperimentUpdate.MaxExperimentDuration,
        ExperimentUpdate.SearchSpace {

    String TRIAL_CONCURRENCY = "trialConcurrency";
    String MAX_TRIAL_NUMBER = "maxTrialNumber";
    String MAX_EXPERIMENT_DURATION = "maxExperimentDuration";
    String SEARCH_SPACE = "searchSpace";

    /** @return the config field it changes: {@link #TRIAL_CONCURRENCY} and the others */
    String field();

    /** @return the value as its user wrote it ({@code "1h"} or {@code 3600} for a duration), for messages and the profile */
    Object written();

    /** How many trials run at once, 1 or more. */
    final class TrialConcurrency implements ExperimentUpdate {
        private final int value;

        private TrialConcurrency(int value) {
            this.value = value;
        }

        public int value() {
            return value;
        }

        @Override
        public String field() {
            return TRIAL_CONCURRENCY;
        }

        @Override
        public Object written() {
            return value;
        }

        @Override
        public String toString() {
            return field() + "=" + value;
        }
    }

    /** How many trials the experiment starts in all, 1 or more. */
    final class MaxTrialNumber implements ExperimentUpdate {
        private final int value;

        private MaxTrialNumber(int value) {
            this.value = value;
        }

        public int value() {
            return value;
        }

        @Override
        public String field() {
            return MAX_TRIAL_NUMBER;
        }

        @Override
        public Object written() {
            return value;
        }

        @Override
        public String toString() {
            return field() + "=" + value;
        }
    }

    /** How long the experiment may count time, in whole seconds, positive. */
    final class MaxExperimentDuration implements ExperimentUpdate {
        private final Duration value;
        private final Object written;

        private MaxExperimentDuration(Duration value, Object written) {
            this.value = value;
            this.written = written;
        }

        public Duration value() {
            return value;
        }

        @Override
        public String field() {
            return MAX_EXPERIMENT_DURATION;
        }

        @Override
        public Object written() {
            return written;
        }

        @Override
        public String toString() {
            return field() + "=" + written;
        }
    }

    /** The search space the tuner draws from next; its decimals as Double, as a config file gives them. */
    final class SearchSpace implements ExperimentUpdate {
        private final Map<String, Object> value;

        private SearchSpace(Map<String, Object> value) {
            this.value = Collections.unmodifiableMap(value);
        }

        /** @return the space (unmodifiable at its top level) */
        public Map<String, Object> value() {
            return value;
        }

        @Override
        public String field() {
            return SEARCH_SPACE;
        }

        @Override
        public Object written() {
            return value;
        }

        @Override
        public String toString() {
            return field() + "=" + value;
        }
    }

    /**
     * @param field one of {@link #TRIAL_CONCURRENCY}, {@link #MAX_TRIAL_NUMBER},
     *              {@link #MAX_EXPERIMENT_DURATION}, {@link #SEARCH_SPACE}
     * @param value as parsed from JSON or YAML: Integer, Long, BigInteger, BigDecimal or Double,
     *              String (a duration such as {@code 1.5h}), a Map for a search space; null is refused
     * @return the update, or a refusal ({@link Refusal.Kind#INVALID}) naming the field and what it expects
     */
    static Outcome<ExperimentUpdate> of(String field, Object value) {
        if (value == null) {
            return Outcome.refused(Refusal.invalid(String.valueOf(field), field + ": a value is required"));
        }
        return switch (String.valueOf(field)) {
            case TRIAL_CONCURRENCY -> checked(field, value, r -> r.requiredInteger(field, 1, Integer.MAX_VALUE))
                    .map(TrialConcurrency::new);
            case MAX_TRIAL_NUMBER -> checked(field, value, r -> r.integer(field, null, 1, Integer.MAX_VALUE))
                    .map(MaxTrialNumber::new);
            case MAX_EXPERIMENT_DURATION -> checked(field, value, r -> r.duration(field))
                    .map(seconds -> new MaxExperimentDuration(Duration.ofSeconds(seconds), value));
            case SEARCH_SPACE -> searchSpace(value);
            default -> Outcome.refused(Refusal.invalid("field", "field: expected " + TRIAL_CONCURRENCY + ", "
                    + MAX_TRIAL_NUMBER + ", " + MAX_EXPERIMENT_DURATION + " or " + SEARCH_SPACE + ", got '" + field + "'"));
        };
    }

    /** @return a maximum duration given as a Duration by code, not by a user: shown as its seconds ({@code 3600s}) */
    static Outcome<ExperimentUpdate> maxExperimentDuration(Duration duration) {
        if (duration.isNegative() || duration.isZero()) {
            return Outcome.refused(Refusal.invalid(MAX_EXPERIMENT_DURATION, MAX_EXPERIMENT_DURATION
                    + ": expected a positive duration, got " + duration));
        }
        return of(MAX_EXPERIMENT_DURATION, duration.toSeconds() + "s");
    }

    /** NNI's REST {@code update_type} values, in the order NNI lists them. */
    List<String> REST_TYPES = List.of("TRIAL_CONCURRENCY", "MAX_TRIAL_NUM", "MAX_EXEC_DURATION", "SEARCH_SPACE");

    /**
     * Reads NNI's {@code PUT /experiment?update_type=TYPE} whose body is the experiment profile with
     * its {@code params} changed. NNI's v1 names ({@code maxTrialNum}, {@code maxExecDuration}) are
     * read when the v2 one is absent. A search space sent as JSON text must be parsed by the caller
     * (this package reads no JSON).
     *
     * @param updateType one of {@link #REST_TYPES}
     * @param params     the profile's {@code params}, as parsed
     * @return the update, or a refusal naming the field ({@code update_type} or the params field)
     */
    static Outcome<ExperimentUpdate> fromRest(String updateType, Map<String, ?> params) {
        String type = String.valueOf(updateType);
        return switch (type) {
            case "TRIAL_CONCURRENCY" -> of(TRIAL_CONCURRENCY, params.get(TRIAL_CONCURRENCY));
            case "MAX_TRIAL_NUM" -> of(MAX_TRIAL_NUMBER, params.get(params.containsKey(MAX_TRIAL_NUMBER) ? MAX_TRIAL_NUMBER
                    : "maxTrialNum"));
            case "MAX_EXEC_DURATION" -> of(MAX_EXPERIMENT_DURATION, params.get(params.containsKey(MAX_EXPERIMENT_DURATION)
                    ? MAX_EXPERIMENT_DURATION : "maxExecDuration"));
            case "SEARCH_SPACE" -> params.get(SEARCH_SPACE) instanceof Map<?, ?> space ? of(SEARCH_SPACE, space)
                    : Outcome.refused(Refusal.invalid(SEARCH_SPACE, SEARCH_SPACE + ": expected a search space object"));
            default -> Outcome.refused(Refusal.invalid("update_type", "update_type: expected TRIAL_CONCURRENCY, MAX_TRIAL_NUM, "
                    + "MAX_EXEC_DURATION or SEARCH_SPACE" + (updateType == null ? "" : ", got '" + updateType + "'")));
        };
    }

    /**
     * The field a console key names: {@code concurrency}, {@code maxtrialnumber}, {@code duration},
     * {@code searchspace} (any case), or the config field's own name.
     *
     * @return the config field, or a refusal naming {@code what} (the console's name for the key)
     */
    static Outcome<String> consoleField(String key) {
        return switch (String.valueOf(key).toLowerCase(java.util.Locale.ROOT)) {
            case "concurrency", "trialconcurrency" -> Outcome.done(TRIAL_CONCURRENCY);
            case "maxtrialnumber", "maxtrialnum", "trialnum" -> Outcome.done(MAX_TRIAL_NUMBER);
            case "duration", "maxexperimentduration" -> Outcome.done(MAX_EXPERIMENT_DURATION);
            case "searchspace" -> Outcome.done(SEARCH_SPACE);
            default -> Outcome.refused(Refusal.invalid("what", "what: expected concurrency, maxtrialnumber, duration or "
                    + "searchspace, got '" + key + "'"));
        };
    }

    /**
     * Reads a value typed at the console as a config file would give it: a whole number as a
     * number (too large ones stay too large, and are refused), anything else as the text (a duration
     * such as {@code 2h}).
     *
     * @param key the console's key, see {@link #consoleField}; a search space is not text, see {@link #of}
     */
    static Outcome<ExperimentUpdate> fromConsole(String key, String text) {
        return consoleField(key).then(field -> field.equals(SEARCH_SPACE)
                ? Outcome.refused(Refusal.invalid(SEARCH_SPACE, SEARCH_SPACE + ": expected a JSON file's search space, not text"))
                : of(field, typed(text)));
    }

    private static Object typed(String text) {
        String trimmed = text == null ? "" : text.trim();
        if (!trimmed.matches("[+-]?\\d+")) {
            return trimmed;
        }
        BigInteger number = new BigInteger(trimmed);
        if (number.bitLength() < 32) {
            return number.intValue();
        }
        return number.bitLength() < 64 ? (Object) number.longValue() : number;
    }

    private static <T> Outcome<T> checked(String field, Object value, Function<ConfigReader, T> rule) {
        Map<String, Object> one = new HashMap<>();
        one.put(field, value);
        ConfigReader reader = ConfigReader.of(one, Path.of("."));
        T checked = rule.apply(reader);
        List<ConfigProblem> problems = reader.check().problems();
        if (!problems.isEmpty()) {
            return Outcome.refused(Refusal.invalid(problems.get(0).path(), problems.stream()
                    .map(p -> p.path() + ": " + p.message()).collect(Collectors.joining("; "))));
        }
        return Outcome.done(Objects.requireNonNull(checked, field));
    }

    private static Outcome<ExperimentUpdate> searchSpace(Object value) {
        if (!(value instanceof Map<?, ?> space)) {
            return Outcome.refused(Refusal.invalid(SEARCH_SPACE, SEARCH_SPACE + ": expected a JSON object, got "
                    + Units.describe(value)));
        }
        List<ConfigProblem> nonFinite = nonFiniteNumbers(space);
        if (!nonFinite.isEmpty()) {
            return Outcome.refused(Refusal.invalid(SEARCH_SPACE + "." + nonFinite.get(0).path(), nonFinite.stream()
                    .map(p -> SEARCH_SPACE + "." + p.path() + ": " + p.message()).collect(Collectors.joining("; "))));
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> copy = (Map<String, Object>) doubles(space);
        return Outcome.done(new SearchSpace(copy));
    }

    /**
     * The rule of every number in a search space, for a config file as for an update: stored as JSON
     * a number no double holds (1e309 read as Infinity, YAML's .inf, NaN) would come back as a string
     * ("Infinity"), which no tuner reads, and the experiment could not be resumed.
     *
     * @param space a search space as parsed
     * @return each such number's path relative to the space ({@code x._value[1]}) and what is wrong
     */
    static List<ConfigProblem> nonFiniteNumbers(Object space) {
        List<ConfigProblem> problems = new ArrayList<>();
        nonFiniteNumbers(space, "", problems);
        return problems;
    }

    private static void nonFiniteNumbers(Object json, String path, List<ConfigProblem> problems) {
        if (json instanceof Map<?, ?> map) {
            map.forEach((key, value) -> nonFiniteNumbers(value, path.isEmpty() ? String.valueOf(key) : path + "." + key, problems));
        } else if (json instanceof List<?> list) {
            for (int i = 0; i < list.size(); i++) {
                nonFiniteNumbers(list.get(i), path + "[" + i + "]", problems);
            }
        } else if (json instanceof Number number && !Double.isFinite(number.doubleValue())) {
            problems.add(new ConfigProblem(path, "expected a finite number (at most 1.7976931348623157e308 either way), got "
                    + (number instanceof BigDecimal exact ? exact.toString() : String.valueOf(number))));
        }
    }

    /** @return a copy of a parsed JSON value with its exact decimals as Double, as a config file gives them to the tuner */
    private static Object doubles(Object json) {
        if (json instanceof Map<?, ?> map) {
            Map<String, Object> copy = new LinkedHashMap<>();
            map.forEach((key, value) -> copy.put(String.valueOf(key), doubles(value)));
            return copy;
        }
        if (json instanceof List<?> list) {
            List<Object> copy = new ArrayList<>(list.size());
            list.forEach(item -> copy.add(doubles(item)));
            return copy;
        }
        return json instanceof BigDecimal exact ? (Object) exact.doubleValue() : json;
    }
}
