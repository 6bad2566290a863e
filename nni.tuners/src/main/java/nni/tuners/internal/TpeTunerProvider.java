package nni.tuners.internal;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
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
 * NNI's TPE tuner (its own implementation of hyperopt's Tree-structured Parzen Estimator): each
 * parameter is modelled on its own; after {@code n_startup_jobs} observations the trials are split by
 * loss into "below" (the best {@code min(ceil(gamma*sqrt(N)), linear_forgetting)}) and "above", an
 * adaptive Parzen estimator is fitted to each, and of {@code n_ei_candidates} draws from "below" the
 * one maximising log l(x) - log g(x) is suggested. Running trials count with a "constant liar" loss.
 *
 * <p>classArgs: {@code optimize_mode} (minimize), {@code seed}, {@code tpe_args}
 * {constant_liar_type (best|worst|mean|null), n_startup_jobs (20), n_ei_candidates (24),
 * linear_forgetting (25), prior_weight (1.0), gamma (0.25)}.
 */
@Component(service = TunerProvider.class)
@Algorithm("TPE")
public class TpeTunerProvider implements TunerProvider {

    /** TPE's settings, hyperopt's defaults unless classArgs say otherwise. */
    record Settings(boolean minimize, Long seed, String liar, int startup, int candidates, int forgetting,
            double priorWeight, double gamma) {
        static Settings of(ClassArgs args) {
            boolean minimize = args.minimize("minimize");
            Long seed = Seeds.seed(args);
            ClassArgs tpe = args.nested("tpe_args");
            return new Settings(minimize, seed, tpe.oneOf("constant_liar_type", "best", "best", "worst", "mean", "null"),
                    tpe.integer("n_startup_jobs", 20L, 0, Integer.MAX_VALUE).intValue(),
                    tpe.integer("n_ei_candidates", 24L, 1, Integer.MAX_VALUE).intValue(),
                    tpe.integer("linear_forgetting", 25L, 1, Integer.MAX_VALUE).intValue(),
                    tpe.number("prior_weight", 1.0, Double.MIN_VALUE, Double.MAX_VALUE),
                    tpe.number("gamma", 0.25, Double.MIN_VALUE, 1));
        }
    }

    @Override
    public List<ConfigProblem> checkArguments(Map<String, Object> classArgs) {
        ClassArgs args = new ClassArgs(classArgs);
        Settings.of(args);
        return args.problems();
    }

    @Override
    public Tuner create(Map<String, Object> classArgs, SearchSpace searchSpace) {
        Settings settings = Settings.of(new ClassArgs(classArgs));
        return new TpeTuner(searchSpace, settings, Seeds.random(settings.seed()));
    }

    static final class TpeTuner implements Tuner {
        private final Settings settings;
        private final RandomGenerator random;
        private Dims dims;
        private Deduplicator deduplicator;
        private final Map<Long, double[]> running = new LinkedHashMap<>();
        private final List<double[]> points = new ArrayList<>();
        private final List<Double> losses = new ArrayList<>();

        TpeTuner(SearchSpace space, Settings settings, RandomGenerator random) {
            this.settings = settings;
            this.random = random;
            updateSearchSpace(space);
        }

        @Override
        public void updateSearchSpace(SearchSpace searchSpace) {
            dims = new Dims(searchSpace);
            deduplicator = new Deduplicator(dims);
            points.clear();
            losses.clear();
        }

        @Override
        public Optional<Map<String, Object>> generateParameters(long parameterId) {
            List<double[]> historyPoints = new ArrayList<>(points);
            List<Double> historyLosses = new ArrayList<>(losses);
            Double lie = lie();
            if (lie != null) {
                for (double[] point : running.values()) {
                    historyPoints.add(point);
                    historyLosses.add(lie);
                }
            }
            double[] point = dims.empty();
            for (Dim dim : dims.all()) {
                if (!dims.active(point, dim)) {
                    continue;
                }
                List<double[]> observations = new ArrayList<>();
                for (int i = 0; i < historyPoints.size(); i++) {
                    double value = historyPoints.get(i)[dim.index()];
                    if (!Double.isNaN(value)) {
                        observations.add(new double[] {value, historyLosses.get(i)});
                    }
                }
                point[dim.index()] = observations.size() < settings.startup() ? Dims.prior(dim, random)
                        : suggest(dim, observations);
            }
            Optional<Grid.Candidate> candidate = deduplicator.check(point);
            candidate.ifPresent(c -> running.put(parameterId, c.point()));
            return candidate.map(Grid.Candidate::parameters);
        }

        private Double lie() {
            if (settings.liar().equals("null") || running.isEmpty()) {
                return null;
            }
            if (losses.isEmpty()) {
                return 0.0;
            }
            return switch (settings.liar()) {
                case "worst" -> losses.stream().mapToDouble(Double::doubleValue).max().orElse(0);
                case "mean" -> losses.stream().mapToDouble(Double::doubleValue).average().orElse(0);
                default -> losses.stream().mapToDouble(Double::doubleValue).min().orElse(0);
            };
        }

        @Override
        public void receiveTrialResult(long parameterId, Map<String, Object> parameters, double value) {
            double[] point = running.remove(parameterId);
            if (point != null) {
                points.add(point);
                losses.add(settings.minimize() ? value : -value);
            }
        }

        @Override
        public void trialEnd(long parameterId, boolean succeeded) {
            running.remove(parameterId);
        }

        /** NNI's TPE replays imported results into its history and its dedup. */
        @Override
        public boolean importResult(Map<String, Object> parameters, double value) {
            dims.point(parameters).ifPresent(point -> {
                points.add(point);
                losses.add(settings.minimize() ? value : -value);
                deduplicator.remember(parameters);
            });
            return true;
        }

        /** @param observations (internal value, loss) pairs of the trials that used this parameter */
        private double suggest(Dim dim, List<double[]> observations) {
            List<double[]> sorted = new ArrayList<>(observations);
            sorted.sort(Comparator.comparingDouble(o -> o[1]));
            int n = sorted.size();
            int nBelow = (int) Math.min(Math.ceil(settings.gamma() * Math.sqrt(n)), settings.forgetting());
            double[] below = sorted.subList(0, nBelow).stream().mapToDouble(o -> o[0]).toArray();
            double[] above = sorted.subList(nBelow, n).stream().mapToDouble(o -> o[0]).toArray();
            return dim.categorical() ? suggestIndex(dim.size(), below, above) : suggestNumber(dim.parameter(), below, above);
        }

        private double suggestIndex(int size, double[] below, double[] above) {
            double[] pBelow = categorical(size, below);
            double[] pAbove = categorical(size, above);
            double best = Double.NEGATIVE_INFINITY;
            int chosen = 0;
            for (int c = 0; c < settings.candidates(); c++) {
                int index = draw(pBelow);
                double score = Math.log(pBelow[index]) - Math.log(pAbove[index]);
                if (score > best) {
                    best = score;
                    chosen = index;
                }
            }
            return chosen;
        }

        private double[] categorical(int size, double[] values) {
            double[] weights = forgettingWeights(values.length);
            double[] p = new double[size];
            Arrays.fill(p, settings.priorWeight());
            for (int i = 0; i < values.length; i++) {
                p[(int) values[i]] += weights[i];
            }
            double sum = Arrays.stream(p).sum();
            for (int i = 0; i < size; i++) {
                p[i] /= sum;
            }
            return p;
        }

        private int draw(double[] p) {
            double u = random.nextDouble();
            for (int i = 0; i < p.length; i++) {
                u -= p[i];
                if (u < 0) {
                    return i;
                }
            }
            return p.length - 1;
        }

        /** hyperopt's linear forgetting: the oldest observations beyond {@code linear_forgetting} weigh less. */
        double[] forgettingWeights(int n) {
            double[] weights = new double[n];
            Arrays.fill(weights, 1.0);
            int ramp = n - settings.forgetting();
            if (ramp > 0) {
                for (int i = 0; i < ramp; i++) {
                    weights[i] = ramp == 1 ? 1.0 / n : 1.0 / n + (1 - 1.0 / n) * i / (ramp - 1);
                }
            }
            return weights;
        }

        private double suggestNumber(Parameter parameter, double[] below, double[] above) {
            boolean normal = parameter.type().normal();
            double priorMu = normal ? parameter.mu() : (parameter.low() + parameter.high()) / 2;
            double priorSigma = normal ? parameter.sigma() : parameter.high() - parameter.low();
            double low = normal ? Double.NEGATIVE_INFINITY : parameter.low();
            double high = normal ? Double.POSITIVE_INFINITY : parameter.high();
            if (priorSigma <= 0) {
                return priorMu;
            }
            Mixture good = parzen(below, priorMu, priorSigma);
            Mixture bad = parzen(above, priorMu, priorSigma);
            double best = Double.NEGATIVE_INFINITY;
            double chosen = priorMu;
            for (int c = 0; c < settings.candidates(); c++) {
                double x = good.sample(random, low, high);
                double score = good.logPdf(x, low, high) - bad.logPdf(x, low, high);
                if (score > best) {
                    best = score;
                    chosen = x;
                }
            }
            return chosen;
        }

        /** hyperopt's adaptive Parzen estimator over {@code values} plus the prior. */
        private Mixture parzen(double[] values, double priorMu, double priorSigma) {
            int n = values.length + 1;
            double[][] entries = new double[n][];
            double[] forgetting = forgettingWeights(values.length);
            for (int i = 0; i < values.length; i++) {
                entries[i] = new double[] {values[i], forgetting[i], 0};
            }
            entries[values.length] = new double[] {priorMu, settings.priorWeight(), 1};
            Arrays.sort(entries, Comparator.comparingDouble(e -> e[0]));
            double[] mus = new double[n];
            double[] sigmas = new double[n];
            double[] weights = new double[n];
            for (int i = 0; i < n; i++) {
                mus[i] = entries[i][0];
                weights[i] = entries[i][1];
            }
            if (n == 1) {
                sigmas[0] = priorSigma;
            } else if (n == 2) {
                sigmas[0] = priorSigma * 0.5;
                sigmas[1] = priorSigma * 0.5;
            } else {
                for (int i = 0; i < n; i++) {
                    double left = i == 0 ? mus[1] - mus[0] : mus[i] - mus[i - 1];
                    double right = i == n - 1 ? mus[n - 1] - mus[n - 2] : mus[i + 1] - mus[i];
                    sigmas[i] = Math.max(left, right);
                }
            }
            double minSigma = priorSigma / Math.min(100.0, n + 1);
            double total = Arrays.stream(weights).sum();
            for (int i = 0; i < n; i++) {
                if (entries[i][2] == 1) {
                    sigmas[i] = priorSigma;
                }
                sigmas[i] = Math.min(Math.max(sigmas[i], minSigma), priorSigma);
                weights[i] /= total;
            }
            return new Mixture(mus, sigmas, weights);
        }
    }

    /** A mixture of normals, truncated to [low, high] when sampled and scored. */
    record Mixture(double[] mus, double[] sigmas, double[] weights) {

        double sample(RandomGenerator random, double low, double high) {
            for (int attempt = 0; attempt < 1000; attempt++) {
                double u = random.nextDouble();
                int k = 0;
                while (k < weights.length - 1 && (u -= weights[k]) >= 0) {
                    k++;
                }
                double x = mus[k] + sigmas[k] * random.nextGaussian();
                if (x >= low && x <= high) {
                    return x;
                }
            }
            // a mixture with (almost) no mass in range: fall back to the range's middle
            return Double.isInfinite(low) || Double.isInfinite(high) ? mus[0] : (low + high) / 2;
        }

        double logPdf(double x, double low, double high) {
            double max = Double.NEGATIVE_INFINITY;
            double[] terms = new double[mus.length];
            double mass = 0;
            for (int i = 0; i < mus.length; i++) {
                terms[i] = Math.log(weights[i]) + Normal.logPdf(x, mus[i], sigmas[i]);
                max = Math.max(max, terms[i]);
                mass += weights[i] * (Normal.cdf((high - mus[i]) / sigmas[i]) - Normal.cdf((low - mus[i]) / sigmas[i]));
            }
            double sum = 0;
            for (double term : terms) {
                sum += Math.exp(term - max);
            }
            return max + Math.log(sum) - Math.log(Math.max(mass, 1e-300));
        }
    }
}
