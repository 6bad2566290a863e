package nni.tuners.internal;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.random.RandomGenerator;

import org.osgi.service.component.annotations.Component;

import nni.api.config.ConfigProblem;
import nni.api.searchspace.Parameter;
import nni.api.searchspace.SearchSpace;
import nni.api.tuner.Algorithm;
import nni.api.tuner.Tuner;
import nni.api.tuner.TunerProvider;
import nni.tuners.internal.Dims.Dim;

/**
 * NNI's Anneal tuner (hyperopt's {@code anneal}): each suggestion starts from a good earlier trial
 * (index {@code geometric(1/2) - 1} into the trials sorted by loss) and samples around its values in
 * a window that shrinks as {@code 1 / (1 + 0.1 T)} with the T observations of each parameter;
 * categorical parameters mix the empirical frequencies with the uniform prior by the same factor. A
 * suggestion equal to an earlier one is replaced by a random one, as NNI's wrapper does.
 *
 * <p>classArgs: {@code optimize_mode} (minimize); {@code parallel_optimize} and
 * {@code constant_liar_type} are accepted as in NNI (unfinished trials count as worst anyway);
 * {@code seed} makes runs repeat.
 */
@Component(service = TunerProvider.class)
@Algorithm("Anneal")
public class AnnealTunerProvider implements TunerProvider {

    private static final double AVERAGE_BEST_INDEX = 2.0;
    private static final double SHRINK_COEFFICIENT = 0.1;

    @Override
    public List<ConfigProblem> checkArguments(Map<String, Object> classArgs) {
        ClassArgs args = new ClassArgs(classArgs);
        args.minimize("minimize");
        args.bool("parallel_optimize", false);
        args.oneOf("constant_liar_type", "min", "min", "max", "mean");
        Seeds.seed(args);
        return args.problems();
    }

    @Override
    public Tuner create(Map<String, Object> classArgs, SearchSpace searchSpace) {
        ClassArgs args = new ClassArgs(classArgs);
        boolean minimize = args.minimize("minimize");
        return new AnnealTuner(searchSpace, minimize, Seeds.random(Seeds.seed(args)));
    }

    static final class AnnealTuner implements Tuner {
        private final boolean minimize;
        private final RandomGenerator random;
        private Dims dims;
        private final Map<Long, double[]> running = new LinkedHashMap<>();
        private final List<double[]> points = new ArrayList<>();
        private final List<Double> losses = new ArrayList<>();
        private final Set<String> given = new HashSet<>();

        AnnealTuner(SearchSpace space, boolean minimize, RandomGenerator random) {
            this.minimize = minimize;
            this.random = random;
            updateSearchSpace(space);
        }

        @Override
        public void updateSearchSpace(SearchSpace searchSpace) {
            dims = new Dims(searchSpace);
        }

        @Override
        public Optional<Map<String, Object>> generateParameters(long parameterId) {
            double[] point = suggest();
            Map<String, Object> parameters = dims.parameters(point);
            if (!given.add(Dims.key(parameters))) {
                point = dims.sample(random);
                parameters = dims.parameters(point);
                given.add(Dims.key(parameters));
            }
            running.put(parameterId, point);
            return Optional.of(parameters);
        }

        private double[] suggest() {
            if (points.isEmpty()) {
                return dims.sample(random);
            }
            List<Integer> order = new ArrayList<>();
            for (int i = 0; i < points.size(); i++) {
                order.add(i);
            }
            order.sort(Comparator.comparingDouble(losses::get));
            int good = geometric() - 1;
            double[] chosen = points.get(order.get(Math.min(good, order.size() - 1)));
            double[] point = dims.empty();
            for (Dim dim : dims.all()) {
                if (!dims.active(point, dim)) {
                    continue;
                }
                List<Double> observed = new ArrayList<>();
                for (int i : order) {
                    double value = points.get(i)[dim.index()];
                    if (!Double.isNaN(value)) {
                        observed.add(value);
                    }
                }
                if (observed.isEmpty()) {
                    point[dim.index()] = Dims.prior(dim, random);
                    continue;
                }
                double centre = !Double.isNaN(chosen[dim.index()]) ? chosen[dim.index()]
                        : observed.get(Math.min(good, observed.size() - 1));
                double shrink = 1 / (1 + observed.size() * SHRINK_COEFFICIENT);
                point[dim.index()] = around(dim, centre, shrink, observed);
            }
            return point;
        }

        private int geometric() {
            double p = 1 / AVERAGE_BEST_INDEX;
            int trials = 1;
            while (random.nextDouble() >= p && trials < 1000) {
                trials++;
            }
            return trials;
        }

        private double around(Dim dim, double centre, double shrink, List<Double> observed) {
            Parameter parameter = dim.parameter();
            if (dim.categorical()) {
                int size = dim.size();
                double[] p = new double[size];
                for (double value : observed) {
                    p[(int) value] += (1 - shrink) / observed.size();
                }
                double u = random.nextDouble();
                for (int i = 0; i < size; i++) {
                    u -= p[i] + shrink / size;
                    if (u < 0) {
                        return i;
                    }
                }
                return size - 1;
            }
            if (parameter.type().normal()) {
                return centre + parameter.sigma() * shrink * random.nextGaussian();
            }
            double low = parameter.low();
            double high = parameter.high();
            double width = (high - low) * shrink;
            double middle = Math.min(Math.max(centre, low + width / 2), high - width / 2);
            return width > 0 ? random.nextDouble(middle - width / 2, middle + width / 2) : low;
        }

        @Override
        public void receiveTrialResult(long parameterId, Map<String, Object> parameters, double value) {
            double[] point = running.remove(parameterId);
            if (point != null) {
                points.add(point);
                losses.add(minimize ? value : -value);
            }
        }

        @Override
        public void trialEnd(long parameterId, boolean succeeded) {
            running.remove(parameterId);
        }

        @Override
        public boolean importResult(Map<String, Object> parameters, double value) {
            dims.point(parameters).ifPresent(point -> {
                points.add(point);
                losses.add(minimize ? value : -value);
            });
            return true;
        }
    }
}
