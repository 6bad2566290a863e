package nni.tuners.internal;

/**
 * Where a Hyperband bracket's new configurations come from: the search space's priors (Hyperband)
 * or a model of the results so far (BOHB). Points are {@link Dims} points.
 */
interface Configurations {

    /** @return a new configuration for a bracket whose first round runs at {@code budget} */
    double[] next(int budget);

    /** A final result of a configuration at a budget, as a loss (smaller is better). */
    default void result(double[] point, int budget, double loss) {
    }
}
