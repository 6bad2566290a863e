package nni.itest;

import static org.awaitility.Awaitility.await;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.CoreOptions;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;

import nni.api.environment.EnvironmentSpec;
import nni.api.environment.KeeperOptions;
import nni.api.environment.KeeperSessions;
import nni.api.model.HyperParameters;
import nni.api.model.Placement;
import nni.api.model.TrialApplication;
import nni.api.model.TrialStatus;
import nni.api.platform.TrainingSession;
import nni.itest.keeper.CapturingLauncher;
import nni.itest.keeper.DurableMetricContext;

/**
 * Metric ingestion at the shared endpoint: N keeper-like clients, each a reuse environment running
 * one trial, send numbered metric batches concurrently through the real trial routes into a store
 * that fsyncs before it answers. Prints metrics/s and the latency of the batch requests. Not run
 * by {@code mvn verify}; run it with
 *
 * <pre>
 * mvn -B -o verify -pl nni.itest -am -Dit.test=IngestBenchmark [-Dbench.keepers=8 -Dbench.batches=200 -Dbench.batchSize=500 -Dbench.fsync=true]
 * </pre>
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class IngestBenchmark extends RuntimeTestSupport {

    private static final Pattern ACKED = Pattern.compile("\"acked\":(\\d+)");

    @Configuration
    public Option[] config() {
        return new Option[] {baseOptions(),
                CoreOptions.systemProperty("bench.keepers").value(System.getProperty("bench.keepers", "8")),
                CoreOptions.systemProperty("bench.batches").value(System.getProperty("bench.batches", "200")),
                CoreOptions.systemProperty("bench.batchSize").value(System.getProperty("bench.batchSize", "500")),
                CoreOptions.systemProperty("bench.fsync").value(System.getProperty("bench.fsync", "true"))};
    }

    @Test(timeout = 600_000)
    public void ingestion() throws Exception {
        int keepers = Integer.getInteger("bench.keepers");
        int batches = Integer.getInteger("bench.batches");
        int batchSize = Integer.getInteger("bench.batchSize");
        run("warm-up", keepers, Math.max(10, batches / 10), batchSize);
        String figures = run("measured", keepers, batches, batchSize);
        Files.writeString(Path.of(System.getProperty("nni.bundles.dir"), "nni.itest", "target", "ingest-benchmark.txt"), figures,
                java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND);
    }

    private String run(String name, int keepers, int batches, int batchSize) throws Exception {
        Path directory = Files.createTempDirectory("nni-bench");
        Map<String, Object> section = new HashMap<>(Map.of("trialCommand", "true", "trialCodeDirectory",
                Files.createDirectories(directory.resolve("code")).toString()));
        CapturingLauncher launcher = new CapturingLauncher();
        KeeperSessions sessions = service(KeeperSessions.class, null);
        long[][] latencies = new long[keepers][batches];
        long elapsed;
        try (DurableMetricContext context = new DurableMetricContext("bench", directory, section,
                Boolean.parseBoolean(System.getProperty("bench.fsync")));
             TrainingSession session = sessions.open(context, launcher, new KeeperOptions("bench", true, keepers, Duration.ofMinutes(5), null))) {
            for (int k = 0; k < keepers; k++) {
                session.submit(new TrialApplication(String.format("B%04d", k), k,
                        new HyperParameters("{\"parameter_id\": 0, \"parameters\": {}}", 0), Placement.NONE));
            }
            await().atMost(Duration.ofSeconds(30)).until(() -> launcher.specs.size() == keepers);
            CyclicBarrier start = new CyclicBarrier(keepers + 1);
            ExecutorService pool = Executors.newFixedThreadPool(keepers);
            List<Future<?>> clients = new ArrayList<>();
            for (int k = 0; k < keepers; k++) {
                EnvironmentSpec spec = launcher.specs.get(k);
                int index = k;
                clients.add(pool.submit(() -> {
                    keeper(spec, batches, batchSize, start, latencies[index]);
                    return null;
                }));
            }
            start.await(60, TimeUnit.SECONDS);
            long began = System.nanoTime();
            for (Future<?> client : clients) {
                client.get(10, TimeUnit.MINUTES);
            }
            elapsed = System.nanoTime() - began;
            pool.shutdown();
            long expected = (long) keepers * batches * batchSize;
            assertEquals("every metric stored", expected, context.stored.get());
            try (Stream<String> lines = Files.lines(context.file())) {
                assertEquals("every metric in the durable file", expected, lines.count());
            }
            await().atMost(Duration.ofSeconds(30)).until(() -> context.latest.values().stream()
                    .filter(j -> j.status() == TrialStatus.SUCCEEDED).count() == keepers);
            long[] all = Arrays.stream(latencies).flatMapToLong(Arrays::stream).sorted().toArray();
            double seconds = elapsed / 1e9;
            String figures = String.format("ingest %s (%s): %d keepers x %d batches x %d metrics = %d metrics in %.2f s: %.0f metrics/s;"
                            + " batch request latency p50 %.2f ms, p99 %.2f ms, max %.2f ms; %d fsyncs%n",
                    name, Boolean.getBoolean("bench.fsync") ? "fsync per request, group commit" : "written to the OS, no fsync", keepers, batches, batchSize, expected, seconds, expected / seconds,
                    all[all.length / 2] / 1e6, all[(int) Math.min(all.length - 1, Math.ceil(all.length * 0.99) - 1)] / 1e6,
                    all[all.length - 1] / 1e6, context.forces.get());
            System.out.print(figures);
            return figures;
        }
    }

    private void keeper(EnvironmentSpec spec, int batches, int batchSize, CyclicBarrier start, long[] latencies) throws Exception {
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5)).build();
        String base = "api/v1/nni-trial/bench/" + spec.environmentId() + "/";
        assertEquals(200, post(http, base + "handshake", "{\"keeperVersion\":\"1.0.0\",\"protocol\":1}", spec.token()).statusCode());
        post(http, base + "reports", "{\"reports\":[{\"seq\":1,\"kind\":\"ready\"}]}", spec.token());
        HttpResponse<String> command = http.send(HttpRequest.newBuilder(endpoint().resolve(base + "commands?after=0&waitMillis=10000"))
                .header("Authorization", "Bearer " + spec.token()).timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
        Matcher trialMatch = Pattern.compile("\"trial\":\"(\\w+)\"").matcher(command.body());
        assertTrue(command.body(), trialMatch.find());
        String trial = trialMatch.group(1);
        post(http, base + "reports", "{\"reports\":[{\"seq\":2,\"kind\":\"started\",\"trial\":\"" + trial + "\",\"time\":0}]}", spec.token());
        long seq = 2;
        start.await(60, TimeUnit.SECONDS);
        for (int b = 0; b < batches; b++) {
            StringBuilder body = new StringBuilder(batchSize * 160).append("{\"reports\":[");
            for (int i = 0; i < batchSize; i++) {
                long metricSequence = (long) b * batchSize + i;
                if (i > 0) {
                    body.append(',');
                }
                body.append("{\"seq\":").append(++seq).append(",\"kind\":\"metric\",\"trial\":\"").append(trial)
                        .append("\",\"line\":\"{\\\"parameter_id\\\": 0, \\\"trial_job_id\\\": \\\"").append(trial)
                        .append("\\\", \\\"type\\\": \\\"PERIODICAL\\\", \\\"sequence\\\": ").append(metricSequence)
                        .append(", \\\"value\\\": \\\"0.").append(metricSequence).append("\\\"}\"}");
            }
            body.append("]}");
            long began = System.nanoTime();
            HttpResponse<String> answer = post(http, base + "reports", body.toString(), spec.token());
            latencies[b] = System.nanoTime() - began;
            Matcher acked = ACKED.matcher(answer.body());
            assertTrue(answer.body(), answer.statusCode() == 200 && acked.find() && Long.parseLong(acked.group(1)) == seq);
        }
        post(http, base + "reports", "{\"reports\":[{\"seq\":" + (seq + 1) + ",\"kind\":\"ended\",\"trial\":\"" + trial
                + "\",\"code\":0,\"time\":0}]}", spec.token());
    }

    private HttpResponse<String> post(HttpClient http, String path, String body, String token) throws Exception {
        return http.send(HttpRequest.newBuilder(endpoint().resolve(path)).header("Authorization", "Bearer " + token)
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body))
                .timeout(Duration.ofSeconds(60)).build(), HttpResponse.BodyHandlers.ofString());
    }
}
