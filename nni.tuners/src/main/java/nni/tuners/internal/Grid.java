package nni.tuners.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

import nni.api.searchspace.Parameter;
import nni.tuners.internal.Dims.Dim;

/**
 * NNI's grid search, epoch by epoch. Categorical dimensions use every index from the first epoch on;
 * a continuous dimension is gridded in CDF space: {0.5} first, and each later epoch bisects every
 * interval whose ends still give different values (after q and clipping) and appends the midpoints
 * that differ from both neighbours (an open end 0 or 1 counts as different). Within an epoch points
 * are enumerated lexicographically, last dimension fastest, over the dimensions the point activates,
 * skipping points made only of earlier epochs' grid values. The grid is exhausted when an epoch adds
 * no value anywhere.
 */
final class Grid {

    /** A point and the parameters it stands for. */
    record Candidate(double[] point, Map<String, Object> parameters) {
    }

    private final Dims dims;
    private final List<List<Double>> values = new ArrayList<>();
    private final List<List<double[]>> intervals = new ArrayList<>();
    private int[] previous;
    private int[] cursor;
    private boolean exhausted;

    Grid(Dims dims) {
        this.dims = dims;
        for (Dim dim : dims.all()) {
            List<Double> grid = new ArrayList<>();
            List<double[]> parts = new ArrayList<>();
            if (!dim.categorical()) {
                grid.add(0.5);
                parts.add(new double[] {0, 0.5});
                parts.add(new double[] {0.5, 1});
            }
            values.add(grid);
            intervals.add(parts);
        }
        previous = new int[dims.size()];
        exhausted = dims.size() == 0;
    }

    /**
     * @param history keys ({@link Dims#key}) of parameter sets already given out; the candidate's key is added
     * @return the next grid point not in {@code history}, or empty when the grid is exhausted
     */
    Optional<Candidate> next(Set<String> history) {
        while (!exhausted) {
            if (cursor == null) {
                cursor = first();
            } else if (!advance()) {
                if (!divide()) {
                    exhausted = true;
                    break;
                }
                cursor = first();
            }
            if (onlyOld()) {
                continue;
            }
            double[] point = point();
            Map<String, Object> parameters = dims.parameters(point);
            if (history.add(Dims.key(parameters))) {
                return Optional.of(new Candidate(point, parameters));
            }
        }
        return Optional.empty();
    }

    private int[] first() {
        int[] start = new int[dims.size()];
        reset(start, 0);
        return start;
    }

    /** Sets dimensions from {@code from} on to their first grid index, or -1 where not active. */
    private void reset(int[] indices, int from) {
        double[] partial = partialPoint(indices, from);
        for (int i = from; i < dims.size(); i++) {
            indices[i] = dims.active(partial, dims.get(i)) ? 0 : -1;
            partial[i] = indices[i] < 0 ? Double.NaN : internal(i, 0);
        }
    }

    private double[] partialPoint(int[] indices, int upTo) {
        double[] point = dims.empty();
        for (int i = 0; i < upTo; i++) {
            point[i] = indices[i] < 0 ? Double.NaN : internal(i, indices[i]);
        }
        return point;
    }

    private boolean advance() {
        for (int i = dims.size() - 1; i >= 0; i--) {
            if (cursor[i] >= 0 && cursor[i] + 1 < size(i)) {
                cursor[i]++;
                reset(cursor, i + 1);
                return true;
            }
        }
        return false;
    }

    private boolean onlyOld() {
        for (int i = 0; i < cursor.length; i++) {
            if (cursor[i] >= previous[i]) {
                return false;
            }
        }
        return true;
    }

    private double[] point() {
        return partialPoint(cursor, dims.size());
    }

    /** @return how many grid values dimension {@code dim} has in this epoch (every index for categorical ones) */
    private int size(int dim) {
        return dims.get(dim).categorical() ? dims.get(dim).size() : values.get(dim).size();
    }

    /** @return the internal value of grid entry {@code index} of dimension {@code dim} */
    private double internal(int dim, int index) {
        return dims.get(dim).categorical() ? index : fromCdf(dims.get(dim).parameter(), values.get(dim).get(index));
    }

    private static double fromCdf(Parameter parameter, double x) {
        if (parameter.type().normal()) {
            return parameter.mu() + parameter.sigma() * Normal.quantile(x);
        }
        return parameter.low() + (parameter.high() - parameter.low()) * x;
    }

    private static Object shown(Parameter parameter, double x) {
        return parameter.value(fromCdf(parameter, x));
    }

    /** Starts the next epoch. @return whether any dimension gained a value */
    private boolean divide() {
        previous = new int[dims.size()];
        for (int i = 0; i < previous.length; i++) {
            previous[i] = size(i);
        }
        boolean gained = false;
        for (int i = 0; i < dims.size(); i++) {
            Dim dim = dims.get(i);
            if (dim.categorical()) {
                continue;
            }
            List<double[]> next = new ArrayList<>();
            for (double[] interval : intervals.get(i)) {
                double l = interval[0];
                double r = interval[1];
                Object left = shown(dim.parameter(), l);
                Object right = shown(dim.parameter(), r);
                if (Objects.equals(left, right)) {
                    next.add(interval);
                    continue;
                }
                double mid = (l + r) / 2;
                Object middle = shown(dim.parameter(), mid);
                if ((l == 0 || !Objects.equals(middle, left)) && (r == 1 || !Objects.equals(middle, right))) {
                    values.get(i).add(mid);
                    gained = true;
                }
                next.add(new double[] {l, mid});
                next.add(new double[] {mid, r});
            }
            intervals.set(i, next);
        }
        return gained;
    }
}
