package nni.itest;

import static org.awaitility.Awaitility.await;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.ops4j.pax.exam.CoreOptions.bundle;
import static org.ops4j.pax.exam.CoreOptions.frameworkProperty;
import static org.ops4j.pax.exam.CoreOptions.systemProperty;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;
import org.osgi.framework.ServiceRegistration;
import org.sqlite.JDBC;
import org.sqlite.SQLiteConfig;

import nni.api.config.ConfigReader;
import nni.api.config.SectionCheck;
import nni.api.environment.EnvironmentSpec;
import nni.api.environment.KeeperOptions;
import nni.api.environment.KeeperSessions;
import nni.api.platform.PlatformException;
import nni.api.platform.SessionContext;
import nni.api.platform.TrainingPlatform;
import nni.api.platform.TrainingSession;
import nni.itest.keeper.CapturingLauncher;

/**
 * Metric ingestion at the shared endpoint into the real experiment store. {@code nni:create} starts
 * an experiment on the platform "ingestbench" (registered here: keeper sessions whose environments
 * are this test), so every metric takes the product's path: trial routes, token check, keeper
 * session, {@code Experiment.metricsReported}, the experiment's SQLite store (WAL,
 * {@code synchronous=NORMAL}), committed before the batch is answered. N keeper-like HTTP clients
 * each run one trial and send numbered metric batches concurrently. Prints metrics/s, the batch
 * request latencies and the load average, then checks that SQLite holds every metric exactly once.
 * Not run by {@code mvn verify}; run it with
 *
 * <pre>
 * mvn -B -o verify -pl nni.itest -am -Dit.test=IngestBenchmark -Dconformance.skip=true -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false -Dfailsafe.failIfNoSpecifiedTests=false [-Dbench.keepers=8 -Dbench.batches=200 -Dbench.batchSize=500]
 * </pre>
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class IngestBenchmark extends RuntimeTestSupport {

    private static final Pattern ACKED = Pattern.compile("\"acked\":(\\d+)");

    @Configuration
    public Option[] config() throws Exception {
        Path root = scratch("ingest-bench");
        return new Option[] {baseOptions(), bundle(reactorBundle("nni.tuners")),
                frameworkProperty("nni.experiments.dir").value(root.resolve("experiments").toString()),
                frameworkProperty("nni.it.root").value(root.toString()),
                systemProperty("bench.keepers").value(System.getProperty("bench.keepers", "8")),
                systemProperty("bench.batches").value(System.getProperty("bench.batches", "200")),
                systemProperty("bench.batchSize").value(System.getProperty("bench.batchSize", "500"))};
    }

    @Test(timeout = 900_000)
    public void ingestion() throws Exception {
        int keepers = Integer.getInteger("bench.keepers");
        int batches = Integer.getInteger("bench.batches");
        int batchSize = Integer.getInteger("bench.batchSize");
        KeeperSessions sessions = service(KeeperSessions.class, null);
        CapturingLauncher[] launcher = new CapturingLauncher[1];
        Dictionary<String, Object> properties = new Hashtable<>(Map.of(TrainingPlatform.PLATFORM, "ingestbench"));
        ServiceRegistration<TrainingPlatform> platform = context.registerService(TrainingPlatform.class, new TrainingPlatform() {
            @Override
            public SectionCheck checkSection(Map<String, Object> section, Path baseDirectory) {
                ConfigReader reader = ConfigReader.of(section, baseDirectory);
                reader.trainingServiceFields(false);
                return reader.check();
            }

            @Override
            public TrainingSession open(SessionContext experiment) throws PlatformException {
                return sessions.open(experiment, launcher[0], KeeperOptions.builder("ingestbench").reuse(true).maxEnvironments(keepers)
                        .idleTimeout(Duration.ofMinutes(5)).build());
            }
        }, properties);
        try {
            launcher[0] = new CapturingLauncher();
            run("warm-up", launcher[0], keepers, Math.max(10, batches / 10), batchSize);
            launcher[0] = new CapturingLauncher();
            String figures = run("measured", launcher[0], keepers, batches, batchSize);
            Files.writeString(Path.of(System.getProperty("nni.bundles.dir"), "nni.itest", "target", "ingest-benchmark.txt"), figures,
                    StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } finally {
            platform.unregister();
        }
    }

    private String run(String name, CapturingLauncher launcher, int keepers, int batches, int batchSize) throws Exception {
        Path code = Files.createDirectories(Path.of(context.getProperty("nni.it.root")).resolve("code-" + name));
        Path config = code.resolve("config.yml");
        Files.writeString(config, """
                searchSpace:
                  x: {_type: randint, _value: [0, 1000]}
                trialCommand: "true"
                trialCodeDirectory: .
                trialConcurrency: %d
                maxTrialNumber: %d
                tuner:
                  name: Random
                trainingService:
                  platform: ingestbench
                """.formatted(keepers, keepers));
        String created = command("nni:create " + config).toString();
        Matcher createdMatch = Pattern.compile("experiment (\\w+) \\w+ in (\\S+)").matcher(created);
        assertTrue(created, createdMatch.find());
        String experiment = createdMatch.group(1);
        Path database = Path.of(createdMatch.group(2), "db", "nni.sqlite");
        await().atMost(Duration.ofSeconds(30)).until(() -> launcher.specs.size() == keepers);

        long[][] latencies = new long[keepers][batches];
        CyclicBarrier start = new CyclicBarrier(keepers + 1);
        ExecutorService pool = Executors.newFixedThreadPool(keepers);
        List<Future<?>> clients = new ArrayList<>();
        for (int k = 0; k < keepers; k++) {
            EnvironmentSpec spec = launcher.specs.get(k);
            int index = k;
            clients.add(pool.submit(() -> {
                keeper(experiment, spec, batches, batchSize, start, latencies[index]);
                return null;
            }));
        }
        String loadBefore = loadAverage();
        start.await(60, TimeUnit.SECONDS);
        long began = System.nanoTime();
        Duration cpuBefore = ProcessHandle.current().info().totalCpuDuration().orElse(Duration.ZERO);
        for (Future<?> client : clients) {
            client.get(14, TimeUnit.MINUTES);
        }
        long elapsed = System.nanoTime() - began;
        Duration cpu = ProcessHandle.current().info().totalCpuDuration().orElse(Duration.ZERO).minus(cpuBefore);
        String loadAfter = loadAverage();
        pool.shutdown();
        await().atMost(Duration.ofSeconds(60)).until(() -> command("nni:top --once").toString().contains("DONE"));
        command("nni:halt " + experiment);

        long expected = (long) keepers * batches * batchSize;
        long[] stored = countStored(database, batches * batchSize);
        assertEquals("metrics in SQLite", expected, stored[0]);
        assertEquals("distinct (trial, type, sequence) in SQLite", expected, stored[1]);
        assertEquals("metrics in SQLite with a sequence that was sent", expected, stored[2]);
        assertEquals("trials with metrics", keepers, stored[3]);

        long[] all = Arrays.stream(latencies).flatMapToLong(Arrays::stream).sorted().toArray();
        double seconds = elapsed / 1e9;
        String figures = String.format("ingest %s: %d keepers x %d batches x %d metrics = %d metrics in %.2f s: %.0f metrics/s;"
                        + " batch request latency p50 %.2f ms, p99 %.2f ms, max %.2f ms; store: the experiment's SQLite"
                        + " (WAL, synchronous=NORMAL, committed before the answer), %d rows, %d distinct; load average before %s, after %s;"
                        + " this JVM (clients and runtime) used %.1f CPU s, %.1f us per metric%n",
                name, keepers, batches, batchSize, expected, seconds, expected / seconds,
                all[all.length / 2] / 1e6, all[(int) Math.min(all.length - 1, Math.ceil(all.length * 0.99) - 1)] / 1e6,
                all[all.length - 1] / 1e6, stored[0], stored[1], loadBefore, loadAfter, cpu.toMillis() / 1e3, cpu.toNanos() / 1e3 / expected);
        System.out.print(figures);
        return figures;
    }

    /** @return rows, distinct (trial, type, sequence), rows with a sequence that was sent, trials */
    private static long[] countStored(Path database, long perTrial) throws Exception {
        SQLiteConfig config = new SQLiteConfig();
        config.setReadOnly(true);
        try (Connection connection = new JDBC().connect(JDBC.PREFIX + database, config.toProperties());
             Statement query = connection.createStatement();
             ResultSet row = query.executeQuery("select count(*), count(distinct trialJobId || '/' || type || '/' || sequence),"
                     + " sum(type = 'PERIODICAL' and sequence between 0 and " + (perTrial - 1) + "), count(distinct trialJobId)"
                     + " from MetricData")) {
            assertTrue(row.next());
            return new long[] {row.getLong(1), row.getLong(2), row.getLong(3), row.getLong(4)};
        }
    }

    private static String loadAverage() throws Exception {
        String[] fields = Files.readString(Path.of("/proc/loadavg")).split(" ");
        return fields[0] + " " + fields[1] + " " + fields[2];
    }

    /** Plays one keeper: handshake, ready, takes its trial, sends the batches, ends the trial. @return the trial id */
    private String keeper(String experiment, EnvironmentSpec spec, int batches, int batchSize, CyclicBarrier start, long[] latencies)
            throws Exception {
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(5)).build();
        String base = "api/v1/nni-trial/" + experiment + "/" + spec.environmentId() + "/";
        assertEquals(200, post(http, base + "handshake", "{\"keeperVersion\":\"1.0.0\",\"protocol\":1}", spec.token()).statusCode());
        post(http, base + "reports", "{\"reports\":[{\"seq\":1,\"kind\":\"ready\"}]}", spec.token());
        HttpResponse<String> command = http.send(HttpRequest.newBuilder(endpoint().resolve(base + "commands?after=0&waitMillis=10000"))
                .header("Authorization", "Bearer " + spec.token()).timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
        Matcher trialMatch = Pattern.compile("\"trial\":\"(\\w+)\"").matcher(command.body());
        assertTrue(command.body(), trialMatch.find());
        String trial = trialMatch.group(1);
        post(http, base + "reports", "{\"reports\":[{\"seq\":2,\"kind\":\"started\",\"trial\":\"" + trial + "\",\"time\":0}]}", spec.token());
        long seq = 2;
        // resolved once: endpoint() is a service-registry lookup, a cost of this client and not of the runtime
        java.net.URI reports = endpoint().resolve(base + "reports");
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
            HttpResponse<String> answer = post(http, reports, body.toString(), spec.token());
            latencies[b] = System.nanoTime() - began;
            Matcher acked = ACKED.matcher(answer.body());
            assertTrue(answer.body(), answer.statusCode() == 200 && acked.find() && Long.parseLong(acked.group(1)) == seq);
        }
        post(http, base + "reports", "{\"reports\":[{\"seq\":" + (seq + 1) + ",\"kind\":\"ended\",\"trial\":\"" + trial
                + "\",\"code\":0,\"time\":0}]}", spec.token());
        return trial;
    }

    private HttpResponse<String> post(HttpClient http, String path, String body, String token) throws Exception {
        return post(http, endpoint().resolve(path), body, token);
    }

    private static HttpResponse<String> post(HttpClient http, java.net.URI uri, String body, String token) throws Exception {
        return http.send(HttpRequest.newBuilder(uri).header("Authorization", "Bearer " + token)
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body))
                .timeout(Duration.ofSeconds(60)).build(), HttpResponse.BodyHandlers.ofString());
    }
}
