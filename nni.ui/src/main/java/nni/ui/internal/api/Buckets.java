package nni.ui.internal.api;

/**
 * Thins a series for a chart on the server, so that a browser gets a few thousand points whatever
 * the number of metrics: the series is cut into equal runs of consecutive points and each run keeps
 * its lowest and its highest point, in their order. The extremes a person looks for (the best
 * result, a spike) survive; the first and the last point are always kept.
 */
final class Buckets {

    private Buckets() {
    }

    /**
     * @param values    the series, in its order
     * @param maxPoints the most points to keep, at least 2
     * @return the indices of the points kept, ascending; all of them when there are at most {@code maxPoints}
     */
    static int[] select(double[] values, int maxPoints) {
        int n = values.length;
        if (n <= maxPoints) {
            int[] all = new int[n];
            for (int i = 0; i < n; i++) {
                all[i] = i;
            }
            return all;
        }
        int buckets = Math.max(1, (maxPoints - 2) / 2);
        int[] kept = new int[buckets * 2 + 2];
        int count = 0;
        kept[count++] = 0;
        for (int b = 0; b < buckets; b++) {
            // the inner points 1..n-2 split evenly
            int start = 1 + (int) ((long) b * (n - 2) / buckets);
            int end = 1 + (int) ((long) (b + 1) * (n - 2) / buckets);
            if (start >= end) {
                continue;
            }
            int low = start;
            int high = start;
            for (int i = start + 1; i < end; i++) {
                if (values[i] < values[low]) {
                    low = i;
                }
                if (values[i] > values[high]) {
                    high = i;
                }
            }
            kept[count++] = Math.min(low, high);
            if (low != high) {
                kept[count++] = Math.max(low, high);
            }
        }
        kept[count++] = n - 1;
        return java.util.Arrays.copyOf(kept, count);
    }
}
