package nni.tuners.internal;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.random.RandomGenerator;

import nni.api.searchspace.Parameter;
import nni.tuners.internal.Dims.Dim;

/**
 * BOHB's model (NNI's config_generator, after Falkner et al.): for each budget, once enough
 * results are in, the results are split by loss into the best {@code top_n_percent} ("good") and
 * the rest ("bad"), and a multivariate kernel density is fitted to each. A new configuration is,
 * with probability {@code random_fraction} or while no budget has a model, drawn from the priors;
 * otherwise the best of {@code num_samples} draws from the widened good density of the largest
 * budget with a model, by the ratio bad/good. A budget stops collecting once a larger one has a model.
 *
 * <p>Each parameter is one dimension of the density: a choice or randint its index (Aitchison and
 * Aitken's kernel), a number its place in [0, 1] (its range, or its normal prior's quantile) with a
 * Gaussian kernel; bandwidths by the normal reference rule (1.06 σ n^(-1/(4+d))), at least
 * {@code min_bandwidth}. Search spaces are flat, as NNI's BOHB requires.
 */
final class BohbModel implements Configurations {

    /** BOHB's classArgs that shape the model. {@code minPointsInModel} null: the number of parameters + 1. */
    record Settings(Integer minPointsInModel, int topNPercent, int numSamples, double randomFraction,
                    double bandwidthFactor, double minBandwidth) {
    }

    private final Dims dims;
    private final Settings settings;
    private final RandomGenerator random;
    private final int minPoints;
    private final Map<Integer, List<double[]>> vectors = new TreeMap<>();
    private final Map<Integer, List<Double>> losses = new TreeMap<>();
    private final TreeMap<Integer, Kde[]> models = new TreeMap<>();
    private int modelPicks;

    BohbModel(Dims dims, Settings settings, RandomGenerator random) {
        this.dims = dims;
        this.settings = settings;
        this.random = random;
        int least = dims.size() + 1;
        this.minPoints = settings.minPointsInModel() == null ? least : Math.max(least, settings.minPointsInModel());
    }

    /** @return the number of results a budget needs before it may get a model */
    int minPoints() {
        return minPoints;
    }

    /** @return the budgets that have a model */
    List<Integer> modelled() {
        return List.copyOf(models.keySet());
    }

    /** @return how many configurations came from the model rather than the priors */
    int modelPicks() {
        return modelPicks;
    }

    @Override
    public double[] next(int budget) {
        if (models.isEmpty() || random.nextDouble() < settings.randomFraction()) {
            return dims.sample(random);
        }
        double[] best = sampleFromModel(models.lastEntry().getValue());
        if (best == null) {
            return dims.sample(random);
        }
        modelPicks++;
        return point(best);
    }

    @Override
    public void result(double[] point, int budget, double loss) {
        if (!models.isEmpty() && models.lastKey() > budget) {
            return;
        }
        List<double[]> seen = vectors.computeIfAbsent(budget, b -> new ArrayList<>());
        List<Double> seenLosses = losses.computeIfAbsent(budget, b -> new ArrayList<>());
        seen.add(vector(point));
        seenLosses.add(Double.isNaN(loss) ? Double.POSITIVE_INFINITY : loss);
        if (seen.size() < minPoints) {
            return;
        }
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < seen.size(); i++) {
            order.add(i);
        }
        order.sort(Comparator.comparingDouble(seenLosses::get));
        int n = seen.size();
        int good = Math.max(minPoints, settings.topNPercent() * n / 100);
        int bad = Math.max(minPoints, (100 - settings.topNPercent()) * n / 100);
        List<double[]> goodData = new ArrayList<>();
        List<double[]> badData = new ArrayList<>();
        for (int k = 0; k < n; k++) {
            if (k < good) {
                goodData.add(seen.get(order.get(k)));
            } else if (k < good + bad) {
                badData.add(seen.get(order.get(k)));
            }
        }
        int d = dims.size();
        if (goodData.size() <= d || badData.size() <= d) {
            return; // too few points for a density in d dimensions
        }
        models.put(budget, new Kde[] {new Kde(goodData), new Kde(badData)});
    }

    /** @return the best of {@code num_samples} draws from the widened good density, or null if none scored */
    private double[] sampleFromModel(Kde[] model) {
        Kde good = model[0];
        Kde bad = model[1];
        double bestScore = Double.POSITIVE_INFINITY;
        double[] best = null;
        for (int k = 0; k < settings.numSamples(); k++) {
            double[] datum = good.data.get(random.nextInt(good.data.size()));
            double[] vector = new double[datum.length];
            for (int j = 0; j < datum.length; j++) {
                Dim dim = dims.get(j);
                double bandwidth = Math.max(good.bandwidths[j], settings.minBandwidth());
                if (dim.categorical()) {
                    vector[j] = random.nextDouble() < 1 - bandwidth ? datum[j] : random.nextInt(dim.size());
                } else {
                    vector[j] = truncatedNormal(datum[j], settings.bandwidthFactor() * bandwidth);
                }
            }
            double score = Math.max(1e-32, bad.pdf(vector)) / Math.max(1e-32, good.pdf(vector));
            if (Double.isFinite(score) && score < bestScore) {
                bestScore = score;
                best = vector;
            }
        }
        return best;
    }

    /** @return a draw of a normal around {@code mean} cut to [0, 1], by inverting its distribution function */
    private double truncatedNormal(double mean, double sigma) {
        double low = Normal.cdf((0 - mean) / sigma);
        double high = Normal.cdf((1 - mean) / sigma);
        double u = low + (high - low) * random.nextDouble();
        double x = mean + sigma * Normal.quantile(Math.min(Math.max(u, 1e-12), 1 - 1e-12));
        return Math.min(Math.max(x, 0), 1);
    }

    // ------------------------------------------------------------------ the model's coordinates

    private double[] vector(double[] point) {
        double[] vector = new double[point.length];
        for (Dim dim : dims.all()) {
            Parameter parameter = dim.parameter();
            double x = point[dim.index()];
            if (dim.categorical()) {
                vector[dim.index()] = x;
            } else if (parameter.type().normal()) {
                vector[dim.index()] = Normal.cdf((x - parameter.mu()) / parameter.sigma());
            } else {
                double width = parameter.high() - parameter.low();
                vector[dim.index()] = width > 0 ? (x - parameter.low()) / width : 0;
            }
        }
        return vector;
    }

    private double[] point(double[] vector) {
        double[] point = new double[vector.length];
        for (Dim dim : dims.all()) {
            Parameter parameter = dim.parameter();
            double u = vector[dim.index()];
            if (dim.categorical()) {
                point[dim.index()] = Math.min(Math.max(Math.rint(u), 0), dim.size() - 1);
            } else if (parameter.type().normal()) {
                point[dim.index()] = parameter.mu() + parameter.sigma() * Normal.quantile(Math.min(Math.max(u, 1e-9), 1 - 1e-9));
            } else {
                point[dim.index()] = parameter.low() + u * (parameter.high() - parameter.low());
            }
        }
        return point;
    }

    /** A product-kernel density over the model's coordinates. */
    private final class Kde {
        final List<double[]> data;
        final double[] bandwidths;

        Kde(List<double[]> data) {
            this.data = data;
            int d = dims.size();
            int n = data.size();
            bandwidths = new double[d];
            for (int j = 0; j < d; j++) {
                double mean = 0;
                for (double[] x : data) {
                    mean += x[j] / n;
                }
                double variance = 0;
                for (double[] x : data) {
                    variance += (x[j] - mean) * (x[j] - mean) / n;
                }
                double bandwidth = Math.max(1.06 * Math.sqrt(variance) * Math.pow(n, -1.0 / (4 + d)), settings.minBandwidth());
                if (dims.get(j).categorical()) {
                    // Aitchison-Aitken's weight for another level; above (c-1)/c it would favour the other levels
                    int levels = dims.get(j).size();
                    bandwidth = levels > 1 ? Math.min(bandwidth, (levels - 1.0) / levels) : 0;
                }
                bandwidths[j] = bandwidth;
            }
        }

        double pdf(double[] vector) {
            double sum = 0;
            for (double[] x : data) {
                double product = 1;
                for (int j = 0; j < vector.length && product > 0; j++) {
                    Dim dim = dims.get(j);
                    double h = bandwidths[j];
                    if (dim.categorical()) {
                        int levels = dim.size();
                        product *= Math.rint(vector[j]) == x[j] ? 1 - h : levels > 1 ? h / (levels - 1) : 0;
                    } else {
                        double z = (vector[j] - x[j]) / h;
                        product *= Math.exp(-0.5 * z * z) / (h * Math.sqrt(2 * Math.PI));
                    }
                }
                sum += product;
            }
            return sum / data.size();
        }
    }
}
