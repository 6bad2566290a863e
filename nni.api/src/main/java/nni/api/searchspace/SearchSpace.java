package nni.api.searchspace;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import nni.api.config.ConfigProblem;
import nni.api.config.Units;

/**
 * A checked search space: its parameters in definition order, and the JSON it came from.
 *
 * <p>{@link #parse} applies the rules of NNI's search-space validator, so a space that would make a
 * tuner fail is refused up front with every problem named: the space is a mapping; each entry is a
 * mapping with {@code _type} (one of the ten types) and {@code _value} (a list); q types take 3
 * numbers, the others 2; randint takes integers with lower &lt; upper; uniform-family bounds satisfy
 * low &lt;= high (equal bounds give a constant, as NNI's tuners allow); log types need low &gt; 0;
 * normal-family sigma &gt;= 0 (0 gives a constant, as NNI's tuners allow); q &gt; 0; a choice has at least one option, and its options are either
 * all mappings with {@code _name} (a nested choice, whose sub-spaces are checked the same way) or
 * plain values.
 *
 * @param parameters the parameters, in definition order
 * @param json       the search space as parsed from JSON, unchanged
 */
public record SearchSpace(List<Parameter> parameters, Map<String, Object> json) {

    public SearchSpace {
        parameters = List.copyOf(parameters);
        json = Collections.unmodifiableMap(new LinkedHashMap<>(json));
    }

    /** @return whether the space has no parameter */
    public boolean isEmpty() {
        return parameters.isEmpty();
    }

    /**
     * @param json the search space as parsed from JSON or YAML
     * @throws SearchSpaceException listing every problem, with key paths such as {@code lr._value}
     */
    public static SearchSpace parse(Object json) throws SearchSpaceException {
        List<ConfigProblem> problems = new ArrayList<>();
        SearchSpace space = parse(json, "", problems);
        if (!problems.isEmpty()) {
            throw new SearchSpaceException(problems);
        }
        return space;
    }

    /** @return every problem of {@code json} as a search space; empty when it is valid */
    public static List<ConfigProblem> check(Object json) {
        List<ConfigProblem> problems = new ArrayList<>();
        parse(json, "", problems);
        return problems;
    }

    @SuppressWarnings("unchecked")
    private static SearchSpace parse(Object json, String path, List<ConfigProblem> problems) {
        if (!(json instanceof Map<?, ?> map)) {
            problems.add(new ConfigProblem(path, "expected a search space mapping parameter names to {_type, _value}, got "
                    + Units.describe(json)));
            return new SearchSpace(List.of(), Map.of());
        }
        List<Parameter> parameters = new ArrayList<>();
        for (Map.Entry<?, ?> entry : map.entrySet()) {
            String name = String.valueOf(entry.getKey());
            if (path.isEmpty() || !name.equals("_name")) {
                Parameter parameter = parameter(name, entry.getValue(), path.isEmpty() ? name : path + "." + name, problems);
                if (parameter != null) {
                    parameters.add(parameter);
                }
            }
        }
        return new SearchSpace(parameters, (Map<String, Object>) map);
    }

    private static Parameter parameter(String name, Object spec, String path, List<ConfigProblem> problems) {
        if (!(spec instanceof Map<?, ?> map)) {
            problems.add(new ConfigProblem(path, "expected a mapping with _type and _value, got " + Units.describe(spec)));
            return null;
        }
        int before = problems.size();
        for (Object key : map.keySet()) {
            if (!"_type".equals(key) && !"_value".equals(key)) {
                problems.add(new ConfigProblem(path + "." + key, "unknown key \"" + key + "\"; expected _type and _value"));
            }
        }
        Object typeName = map.get("_type");
        Object value = map.get("_value");
        ParameterType type = typeName instanceof String text ? ParameterType.of(text).orElse(null) : null;
        if (type == null) {
            problems.add(new ConfigProblem(path + "._type", typeName == null ? "_type is required"
                    : "expected one of choice, randint, uniform, quniform, loguniform, qloguniform, normal, qnormal, "
                    + "lognormal, qlognormal, got " + Units.describe(typeName)));
        }
        if (!(value instanceof List<?> values)) {
            problems.add(new ConfigProblem(path + "._value", value == null ? "_value is required"
                    : "expected a list, got " + Units.describe(value)));
            return null;
        }
        if (type == null) {
            return null;
        }
        String at = path + "._value";
        if (type == ParameterType.CHOICE) {
            List<Option> options = options(values, at, problems);
            return problems.size() == before ? new Parameter(name, type, options, List.of()) : null;
        }
        if (values.size() != type.arity()) {
            problems.add(new ConfigProblem(at, "expected " + type.arity() + " numbers for " + type.nniName() + " ("
                    + arguments(type) + "), got " + values.size()));
            return null;
        }
        List<Double> args = new ArrayList<>();
        for (Object element : values) {
            boolean integral = element instanceof Integer || element instanceof Long;
            if (type == ParameterType.RANDINT ? !integral : !(element instanceof Number)) {
                problems.add(new ConfigProblem(at, "expected " + (type == ParameterType.RANDINT ? "integers" : "numbers")
                        + " for " + type.nniName() + " (" + arguments(type) + "), got " + Units.describe(element)));
                return null;
            }
            args.add(((Number) element).doubleValue());
        }
        String bounds = bounds(type, args);
        if (bounds != null) {
            problems.add(new ConfigProblem(at, bounds));
            return null;
        }
        return new Parameter(name, type, List.of(), args);
    }

    private static String arguments(ParameterType type) {
        String base = type == ParameterType.RANDINT ? "lower, upper" : type.normal() ? "mu, sigma" : "low, high";
        return type.quantized() ? base + ", q" : base;
    }

    private static String bounds(ParameterType type, List<Double> args) {
        double a = args.get(0);
        double b = args.get(1);
        if (type == ParameterType.RANDINT) {
            return a < b ? null : "expected lower < upper for randint, got [" + fmt(a) + ", " + fmt(b) + "]";
        }
        if (type.quantized() && !(args.get(2) > 0)) {
            return "expected q > 0, got " + fmt(args.get(2));
        }
        if (type.normal()) {
            return b >= 0 ? null : "expected sigma >= 0, got " + fmt(b);
        }
        if (a > b) {
            return "expected low <= high, got [" + fmt(a) + ", " + fmt(b) + "]";
        }
        if (type.logarithmic() && a <= 0) {
            return "expected low > 0 for " + type.nniName() + ", got " + fmt(a);
        }
        return null;
    }

    private static String fmt(double number) {
        return number == Math.rint(number) && Math.abs(number) < 1e15 ? String.valueOf((long) number) : String.valueOf(number);
    }

    private static List<Option> options(List<?> values, String at, List<ConfigProblem> problems) {
        List<Option> options = new ArrayList<>();
        if (values.isEmpty()) {
            problems.add(new ConfigProblem(at, "expected at least one option for choice, got an empty list"));
            return options;
        }
        boolean nested = values.get(0) instanceof Map<?, ?> first && first.containsKey("_name");
        for (int i = 0; i < values.size(); i++) {
            Object element = values.get(i);
            String elementPath = at + "[" + i + "]";
            boolean named = element instanceof Map<?, ?> map && map.containsKey("_name");
            if (nested != named) {
                problems.add(new ConfigProblem(elementPath, nested
                        ? "expected a mapping with _name, as the first option of this nested choice, got " + Units.describe(element)
                        : "expected a plain value (a nested option with _name must be the first option too), got a mapping with _name"));
                continue;
            }
            if (element instanceof List<?>) {
                problems.add(new ConfigProblem(elementPath, "expected a number, string, boolean or mapping, got a list"));
                continue;
            }
            if (nested) {
                Map<?, ?> map = (Map<?, ?>) element;
                Object optionName = map.get("_name");
                if (!(optionName instanceof String || optionName instanceof Number || optionName instanceof Boolean)) {
                    problems.add(new ConfigProblem(elementPath + "._name", "expected a name, got " + Units.describe(optionName)));
                    continue;
                }
                SearchSpace sub = parse(map, elementPath, problems);
                options.add(new Option(element, String.valueOf(optionName), sub));
            } else {
                options.add(new Option(element, null, null));
            }
        }
        return options;
    }
}
