package nni.tuners.internal;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.random.RandomGenerator;

import nni.api.searchspace.Option;
import nni.api.searchspace.Parameter;
import nni.api.searchspace.SearchSpace;

/**
 * A search space flattened as NNI's tuners see it: one dimension per parameter, nested parameters
 * right after their choice, each knowing the choice and option that activate it. A point is a
 * {@code double[]} of internal values (index for categorical, log value for log types), with NaN for
 * dimensions the point does not activate.
 */
final class Dims {

    /** One dimension: a parameter and what activates it ({@code parent} -1 = always active). */
    record Dim(int index, Parameter parameter, int parent, int parentOption) {
        boolean categorical() {
            return parameter.type().categorical();
        }

        int size() {
            return parameter.size();
        }
    }

    private final SearchSpace space;
    private final List<Dim> dims = new ArrayList<>();

    Dims(SearchSpace space) {
        this.space = space;
        flatten(space, -1, -1);
    }

    private void flatten(SearchSpace sub, int parent, int parentOption) {
        for (Parameter parameter : sub.parameters()) {
            Dim dim = new Dim(dims.size(), parameter, parent, parentOption);
            dims.add(dim);
            for (int i = 0; i < parameter.options().size(); i++) {
                Option option = parameter.options().get(i);
                if (option.nested()) {
                    flatten(option.subSpace(), dim.index(), i);
                }
            }
        }
    }

    List<Dim> all() {
        return dims;
    }

    int size() {
        return dims.size();
    }

    Dim get(int index) {
        return dims.get(index);
    }

    /** @return whether {@code dim} is active in the (partially built) point, its parents decided */
    boolean active(double[] point, Dim dim) {
        if (dim.parent() < 0) {
            return true;
        }
        double parentValue = point[dim.parent()];
        return !Double.isNaN(parentValue) && (int) parentValue == dim.parentOption()
                && active(point, dims.get(dim.parent()));
    }

    /** @return a new point with every dimension NaN */
    double[] empty() {
        double[] point = new double[dims.size()];
        Arrays.fill(point, Double.NaN);
        return point;
    }

    /** Fills the dimensions of {@code point} from {@code from} on that are active, each drawn from its prior. */
    void sampleFrom(double[] point, int from, RandomGenerator random) {
        for (int i = from; i < dims.size(); i++) {
            Dim dim = dims.get(i);
            point[i] = active(point, dim) ? prior(dim, random) : Double.NaN;
        }
    }

    /** @return a point drawn from the priors: what NNI's Random tuner does */
    double[] sample(RandomGenerator random) {
        double[] point = empty();
        sampleFrom(point, 0, random);
        return point;
    }

    /** @return one draw of a dimension's prior, in internal representation */
    static double prior(Dim dim, RandomGenerator random) {
        Parameter parameter = dim.parameter();
        if (dim.categorical()) {
            return random.nextInt(dim.size());
        }
        if (parameter.type().normal()) {
            return parameter.mu() + parameter.sigma() * random.nextGaussian();
        }
        double low = parameter.low();
        double high = parameter.high();
        return low < high ? random.nextDouble(low, high) : low;
    }

    /** @return the parameters a trial sees for {@code point}: names to values, nested choices as mappings with {@code _name} */
    Map<String, Object> parameters(double[] point) {
        int[] cursor = {0};
        return assemble(space, point, cursor, true);
    }

    private Map<String, Object> assemble(SearchSpace sub, double[] point, int[] cursor, boolean active) {
        Map<String, Object> result = new LinkedHashMap<>();
        for (Parameter parameter : sub.parameters()) {
            int index = cursor[0]++;
            double value = point[index];
            Object shown = active ? parameter.value(value) : null;
            for (int i = 0; i < parameter.options().size(); i++) {
                Option option = parameter.options().get(i);
                if (option.nested()) {
                    boolean chosen = active && (int) value == i;
                    Map<String, Object> nested = assemble(option.subSpace(), point, cursor, chosen);
                    if (chosen) {
                        Map<String, Object> named = new LinkedHashMap<>();
                        named.put("_name", ((Map<?, ?>) option.value()).get("_name"));
                        named.putAll(nested);
                        shown = named;
                    }
                }
            }
            if (active) {
                result.put(parameter.name(), shown);
            }
        }
        return result;
    }

    /**
     * The inverse of {@link #parameters}: the point of a parameter set as a trial sees it (results
     * imported from elsewhere).
     *
     * @return the point, or empty when the set does not belong to this space
     */
    Optional<double[]> point(Map<String, Object> parameters) {
        double[] point = empty();
        return place(space, parameters, point, new int[] {0}, true) ? Optional.of(point) : Optional.empty();
    }

    private boolean place(SearchSpace sub, Map<?, ?> values, double[] point, int[] cursor, boolean active) {
        boolean fits = true;
        for (Parameter parameter : sub.parameters()) {
            int index = cursor[0]++;
            Object value = active ? values.get(parameter.name()) : null;
            double internal = Double.NaN;
            if (active) {
                internal = internal(parameter, value);
                fits &= !Double.isNaN(internal);
                point[index] = internal;
            }
            for (int i = 0; i < parameter.options().size(); i++) {
                Option option = parameter.options().get(i);
                if (option.nested()) {
                    boolean chosen = active && !Double.isNaN(internal) && (int) internal == i;
                    fits &= place(option.subSpace(), chosen && value instanceof Map<?, ?> nested ? nested : Map.of(), point,
                            cursor, chosen);
                }
            }
        }
        return fits;
    }

    /** @return the internal value of what a trial saw, or NaN when it is not a value of the parameter */
    private static double internal(Parameter parameter, Object value) {
        switch (parameter.type()) {
            case CHOICE:
                for (int i = 0; i < parameter.options().size(); i++) {
                    Option option = parameter.options().get(i);
                    boolean same = option.nested() ? value instanceof Map<?, ?> named && option.name().equals(named.get("_name"))
                            : option.value() instanceof Number a && value instanceof Number b ? a.doubleValue() == b.doubleValue()
                            : java.util.Objects.equals(option.value(), value);
                    if (same) {
                        return i;
                    }
                }
                return Double.NaN;
            case RANDINT:
                if (!(value instanceof Number number) || number.doubleValue() != Math.rint(number.doubleValue())) {
                    return Double.NaN;
                }
                double index = number.doubleValue() - Math.ceil(parameter.args().get(0));
                return index >= 0 && index < parameter.size() ? index : Double.NaN;
            default:
                if (!(value instanceof Number number)) {
                    return Double.NaN;
                }
                if (!parameter.type().logarithmic()) {
                    return number.doubleValue();
                }
                return number.doubleValue() > 0 ? Math.log(number.doubleValue()) : Double.NaN;
        }
    }

    /** @return whether some dimension outside nested choices is continuous and not degenerate (NNI's dedup gives up then) */
    boolean infinite() {
        for (Dim dim : dims) {
            Parameter parameter = dim.parameter();
            if (dim.parent() >= 0 || dim.categorical() || parameter.type().quantized()) {
                continue;
            }
            if (parameter.type().normal() ? parameter.sigma() > 0 : parameter.low() < parameter.high()) {
                return true;
            }
        }
        return false;
    }

    /** @return a text that is equal for equal parameter sets: JSON with sorted keys */
    static String key(Object value) {
        StringBuilder text = new StringBuilder();
        write(value, text);
        return text.toString();
    }

    private static void write(Object value, StringBuilder text) {
        if (value instanceof Map<?, ?> map) {
            text.append('{');
            map.keySet().stream().map(String::valueOf).sorted().forEach(k -> {
                text.append('"').append(k).append("\":");
                write(map.get(k), text);
                text.append(',');
            });
            text.append('}');
        } else if (value instanceof List<?> list) {
            text.append('[');
            list.forEach(v -> {
                write(v, text);
                text.append(',');
            });
            text.append(']');
        } else if (value instanceof String s) {
            text.append('"').append(s.replace("\"", "\\\"")).append('"');
        } else {
            text.append(value);
        }
    }
}
