package nni.manager.internal.experiment;

import java.util.Arrays;
import java.util.List;

/**
 * A trial's intermediate results as numbers, in arrival order: appended on the experiment's
 * thread, read from any thread (each method holds the series' monitor; hold it yourself to read
 * {@link #size()} and {@link #latest()} together). Primitive doubles rather than a list of
 * {@code Double}: a trial reporting without pause kept a boxed number per result reachable from an
 * array in the old generation, so every young collection copied the new ones out and scanned the
 * array's dirty cards (7-10 ms pauses at 50,000 metrics/s); one array of doubles has neither.
 */
final class NumberSeries {
    private static final double[] NONE = {};

    private double[] values = NONE;
    private int size;

    synchronized void add(double value) {
        if (size == values.length) {
            values = Arrays.copyOf(values, Math.max(8, size * 2));
        }
        values[size++] = value;
    }

    synchronized int size() {
        return size;
    }

    /** @return the latest result, or null before the first */
    synchronized Double latest() {
        return size == 0 ? null : values[size - 1];
    }

    /** @return a copy of the results, unmodifiable */
    synchronized List<Double> toList() {
        return Arrays.stream(values, 0, size).boxed().toList();
    }
}
