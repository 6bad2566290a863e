package nni.tuners.internal;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import nni.api.config.ConfigProblem;
import nni.api.config.Units;

/**
 * Reads an algorithm's {@code classArgs}. Unlike config keys, these are Python keyword arguments in
 * NNI, so names match exactly and an unknown one is a problem (NNI fails with a TypeError at start).
 */
final class ClassArgs {

    private final Map<String, Object> args;
    private final String prefix;
    private final List<ConfigProblem> problems;
    private final Set<String> known = new HashSet<>();

    ClassArgs(Map<String, Object> args) {
        this(args, "", new ArrayList<>());
    }

    private ClassArgs(Map<String, Object> args, String prefix, List<ConfigProblem> problems) {
        this.args = args == null ? Map.of() : args;
        this.prefix = prefix;
        this.problems = problems;
    }

    private Object take(String name) {
        known.add(name);
        return args.get(name);
    }

    void problem(String name, String message) {
        problems.add(new ConfigProblem(prefix + name, message));
    }

    /** Refuses an argument NNI takes and this implementation cannot honour, saying why. */
    void refused(String name, String why) {
        if (take(name) != null) {
            problem(name, why);
        }
    }

    /** @return whether the tuner minimizes; {@code optimize_mode} is {@code minimize} or {@code maximize} */
    boolean minimize(String defaultMode) {
        Object value = take("optimize_mode");
        if (value == null) {
            return defaultMode.equals("minimize");
        }
        if (!"minimize".equals(value) && !"maximize".equals(value)) {
            problem("optimize_mode", "expected minimize or maximize, got " + Units.describe(value));
            return defaultMode.equals("minimize");
        }
        return value.equals("minimize");
    }

    /** @return an integer argument, or {@code defaultValue} */
    Long integer(String name, Long defaultValue, long min, long max) {
        Object value = take(name);
        if (value == null) {
            return defaultValue;
        }
        if (!(value instanceof Integer || value instanceof Long) || ((Number) value).longValue() < min
                || ((Number) value).longValue() > max) {
            problem(name, "expected an integer" + (max == Long.MAX_VALUE ? " >= " + min : " " + min + "-" + max)
                    + ", got " + Units.describe(value));
            return defaultValue;
        }
        return ((Number) value).longValue();
    }

    /** @return a boolean argument, or {@code defaultValue} */
    boolean bool(String name, boolean defaultValue) {
        Object value = take(name);
        if (value == null) {
            return defaultValue;
        }
        if (!(value instanceof Boolean flag)) {
            problem(name, "expected true or false, got " + Units.describe(value));
            return defaultValue;
        }
        return flag;
    }

    /** @return a number argument in [min, max], or {@code defaultValue} */
    double number(String name, double defaultValue, double min, double max) {
        Object value = take(name);
        if (value == null) {
            return defaultValue;
        }
        if (!(value instanceof Number number) || number.doubleValue() < min || number.doubleValue() > max) {
            String range = (min == Double.MIN_VALUE ? "> 0" : ">= " + min) + (max == Double.MAX_VALUE ? "" : " and <= " + max);
            problem(name, "expected a number " + range + ", got " + Units.describe(value));
            return defaultValue;
        }
        return number.doubleValue();
    }

    /** @return a string argument among {@code allowed} (null allowed when listed as "null"), or {@code defaultValue} */
    String oneOf(String name, String defaultValue, String... allowed) {
        if (!args.containsKey(name)) {
            known.add(name);
            return defaultValue;
        }
        Object value = take(name);
        List<String> choices = List.of(allowed);
        if (value == null ? !choices.contains("null") : !choices.contains(String.valueOf(value)) || !(value instanceof String)) {
            problem(name, "expected one of " + String.join(", ", allowed) + ", got " + Units.describe(value));
            return defaultValue;
        }
        return value == null ? null : (String) value;
    }

    /** @return the reader of a nested mapping argument ({@code tpe_args}); empty when absent */
    @SuppressWarnings("unchecked")
    ClassArgs nested(String name) {
        Object value = take(name);
        if (value != null && !(value instanceof Map<?, ?>)) {
            problem(name, "expected a mapping, got " + Units.describe(value));
            value = null;
        }
        ClassArgs child = new ClassArgs((Map<String, Object>) value, prefix + name + ".", problems);
        children.add(child);
        return child;
    }

    private final List<ClassArgs> children = new ArrayList<>();

    /** Accepts an argument NNI takes and this implementation ignores. */
    void ignored(String name) {
        known.add(name);
    }

    /** @return every problem, unknown arguments included */
    List<ConfigProblem> problems() {
        finish();
        return problems;
    }

    private void finish() {
        for (String name : args.keySet()) {
            if (!known.contains(name)) {
                problem(name, "unknown argument \"" + name + "\"; expected one of: " + String.join(", ", known.stream().sorted().toList()));
            }
        }
        children.forEach(ClassArgs::finish);
    }
}
