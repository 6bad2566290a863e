package nni.trialkeeper;

import java.util.Arrays;

/**
 * How the report batches went: count, sizes and the latency of each request (the first million),
 * printed when the keeper ends so that a slow manager shows in the keeper's own log.
 */
final class RequestStats {

    private static final int KEPT = 1 << 20;

    private long[] latencies = new long[1024];
    private int kept;
    private long requests;
    private long reports;
    private int largestBatch;

    synchronized void record(long nanos, int batchSize) {
        requests++;
        reports += batchSize;
        largestBatch = Math.max(largestBatch, batchSize);
        if (kept < KEPT) {
            if (kept == latencies.length) {
                latencies = Arrays.copyOf(latencies, latencies.length * 2);
            }
            latencies[kept++] = nanos;
        }
    }

    synchronized String summary() {
        if (kept == 0) {
            return "report batches: none sent";
        }
        long[] sorted = Arrays.copyOf(latencies, kept);
        Arrays.sort(sorted);
        return String.format("report batches: %d reports in %d requests (largest %d); request latency p50 %.2f ms, p99 %.2f ms, max %.2f ms",
                reports, requests, largestBatch, sorted[kept / 2] / 1e6,
                sorted[Math.max(0, (int) Math.ceil(kept * 0.99) - 1)] / 1e6, sorted[kept - 1] / 1e6);
    }
}
