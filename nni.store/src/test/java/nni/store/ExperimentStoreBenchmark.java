package nni.store;

import static org.junit.Assert.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * The experiment store alone: N threads call {@link ExperimentStore#addMetrics} with batches of
 * metrics as the report endpoint does, no HTTP and no JSON. The ceiling for the ingestion
 * benchmark on the same machine. Not part of {@code mvn verify} (surefire runs {@code *Test}); run
 * it with
 *
 * <pre>
 * mvn -B -o verify -pl nni.store -am -Dtest=ExperimentStoreBenchmark -Dsurefire.failIfNoSpecifiedTests=false [-Dbench.callers=8 -Dbench.batches=200 -Dbench.batchSize=500]
 * </pre>
 */
public class ExperimentStoreBenchmark {

    @Rule
    public TemporaryFolder folder = new TemporaryFolder();

    @Test(timeout = 600_000)
    public void addMetrics() throws Exception {
        int callers = Integer.getInteger("bench.callers", 8);
        int batches = Integer.getInteger("bench.batches", 200);
        int batchSize = Integer.getInteger("bench.batchSize", 500);
        run("warm-up", callers, Math.max(10, batches / 10), batchSize);
        run("measured", callers, batches, batchSize);
    }

    private void run(String name, int callers, int batches, int batchSize) throws Exception {
        long[][] latencies = new long[callers][batches];
        ExecutorService pool = Executors.newFixedThreadPool(callers);
        CyclicBarrier start = new CyclicBarrier(callers + 1);
        Path directory = folder.newFolder(name).toPath();
        try (ExperimentStore store = ExperimentStore.open(directory)) {
            List<Future<?>> results = new ArrayList<>();
            for (int c = 0; c < callers; c++) {
                String trial = String.format("T%04d", c);
                long[] mine = latencies[c];
                results.add(pool.submit(() -> {
                    start.await(60, TimeUnit.SECONDS);
                    for (int b = 0; b < batches; b++) {
                        List<MetricRecord> batch = new ArrayList<>(batchSize);
                        for (int i = 0; i < batchSize; i++) {
                            long sequence = (long) b * batchSize + i;
                            batch.add(new MetricRecord(System.currentTimeMillis(), trial, "0", "PERIODICAL", sequence, "\"0." + sequence + "\""));
                        }
                        long began = System.nanoTime();
                        store.addMetrics(batch);
                        mine[b] = System.nanoTime() - began;
                    }
                    return null;
                }));
            }
            start.await(60, TimeUnit.SECONDS);
            long began = System.nanoTime();
            for (Future<?> result : results) {
                result.get(10, TimeUnit.MINUTES);
            }
            double seconds = (System.nanoTime() - began) / 1e9;
            long expected = (long) callers * batches * batchSize;
            assertEquals(expected, store.metrics(null, null).size());
            long[] all = Arrays.stream(latencies).flatMapToLong(Arrays::stream).sorted().toArray();
            System.out.printf("store %s: %d callers x %d batches x %d metrics = %d in %.2f s: %.0f metrics/s; addMetrics p50 %.2f ms,"
                            + " p99 %.2f ms, max %.2f ms; load average %s%n", name, callers, batches, batchSize, expected, seconds,
                    expected / seconds, all[all.length / 2] / 1e6, all[(int) Math.ceil(all.length * 0.99) - 1] / 1e6,
                    all[all.length - 1] / 1e6, Files.readString(Path.of("/proc/loadavg")).strip());
        } finally {
            pool.shutdownNow();
        }
    }
}
