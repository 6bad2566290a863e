package nni.itest;

import static org.awaitility.Awaitility.await;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.ops4j.pax.exam.CoreOptions.bundle;
import static org.ops4j.pax.exam.CoreOptions.frameworkProperty;
import static org.ops4j.pax.exam.CoreOptions.systemProperty;

import java.lang.management.ManagementFactory;
import java.net.URI;
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
import java.util.Hashtable;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
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
import org.osgi.service.cm.ConfigurationAdmin;
import org.sqlite.JDBC;
import org.sqlite.SQLiteConfig;

import nni.api.environment.EnvironmentLauncher;
import nni.api.environment.EnvironmentListener;
import nni.api.environment.EnvironmentSpec;
import nni.api.environment.KeeperOptions;
import nni.api.environment.KeeperSessions;
import nni.api.environment.LaunchedEnvironment;
import nni.api.platform.TrainingPlatform;

/**
 * The runtime at the scale of a cluster: one experiment of {@code bench.trials} (10,000) trials with
 * {@code bench.running} (1,000) running at once, each sending {@code bench.metrics} (100)
 * intermediate results in batches of 50 and a final one through the keeper protocol — 1,010,000
 * metrics stored. The platform "scalebench" (registered here) is the manager's keeper sessions
 * (reuse mode) whose environments are virtual keepers in this JVM: asynchronous HTTP clients that
 * do what {@code nni-trialkeeper.jar} does over the wire (handshake, {@code ready}, a command long
 * poll held all the time, {@code started}, metric batches, {@code ended}), a trial lasting
 * {@code bench.trialMillis}. Prints trials/s, the latency (p50/p99 of sequential requests) of NNI's
 * REST routes and the UI's data routes with 1,000 trials running and at 10,000, heap (after a full GC)
 * and RSS at the end, and the time {@code nni:resume} takes for the 10,000-trial experiment; checks
 * SQLite holds every metric once. Heap and RSS are this JVM's: runtime and virtual keepers together.
 * Not run by {@code mvn verify}; run it with
 *
 * <pre>
 * mvn -B -o verify -pl nni.itest -am -Dit.test=ScaleBenchmark -Dconformance.skip=true -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false -Dfailsafe.failIfNoSpecifiedTests=false -DargLine=-Xmx256m [-Dbench.trials=10000 -Dbench.running=1000 -Dbench.metrics=100 -Dbench.trialMillis=20000]
 * </pre>
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class ScaleBenchmark extends RuntimeTestSupport {

    private static final int BATCH = 50;
    private static final int SAMPLES = 40;
    private static final Pattern COMMAND_ID = Pattern.compile("\\{\"id\":(\\d+)");
    private static final Pattern COMMAND_TYPE = Pattern.compile("\"type\":\"([\\w-]+)\"");
    private static final Pattern COMMAND_TRIAL = Pattern.compile("\"trial\":\"(\\w+)\"");

    @Configuration
    public Option[] config() throws Exception {
        Path root = scratch("scale-bench");
        return new Option[] {baseOptions(), bundle(reactorBundle("nni.tuners")),
                frameworkProperty("nni.experiments.dir").value(root.resolve("experiments").toString()),
                frameworkProperty("nni.it.root").value(root.toString()),
                systemProperty("bench.trials").value(System.getProperty("bench.trials", "10000")),
                systemProperty("bench.running").value(System.getProperty("bench.running", "1000")),
                systemProperty("bench.metrics").value(System.getProperty("bench.metrics", "100")),
                systemProperty("bench.trialMillis").value(System.getProperty("bench.trialMillis", "20000"))};
    }

    @Test(timeout = 3_600_000)
    public void clusterScale() throws Exception {
        int trials = Integer.getInteger("bench.trials");
        int running = Integer.getInteger("bench.running");
        int metrics = Integer.getInteger("bench.metrics");
        long trialMillis = Long.getLong("bench.trialMillis");
        // 1,000 keepers poll from one address here; on a cluster they come from many. The keys are the
        // configuration's property names (DS turns the annotation's '_' into '.'): with the method names the
        // 256-connection default stayed, and every keeper past it had its connection closed unanswered.
        var jetty = service(ConfigurationAdmin.class, null).getConfiguration("nni.manager.jetty", "?");
        jetty.update(new Hashtable<>(Map.of("max.connections.per.address", running * 3)));
        var bodies = service(ConfigurationAdmin.class, null).getConfiguration("nni.manager.http", "?");
        bodies.update(new Hashtable<>(Map.of("max.body.reads.per.address", running * 2)));
        await().atMost(Duration.ofSeconds(30)).until(() -> context.getServiceReferences("nni.http.RequestBodies",
                "(max.body.reads.per.address=" + running * 2 + ")") != null
                && context.getServiceReferences("org.apache.felix.http.jetty.LoadBalancerCustomizerFactory",
                "(max.connections.per.address=" + running * 3 + ")") != null);
        KeeperSessions sessions = service(KeeperSessions.class, null);
        VirtualKeepers keepers = new VirtualKeepers(endpoint(), metrics, trialMillis);
        ServiceRegistration<TrainingPlatform> platform = TestPlatforms.register(context, "scalebench", experiment -> sessions.open(
                experiment, keepers, KeeperOptions.builder("scalebench").reuse(true).maxEnvironments(running)
                        .idleTimeout(Duration.ofMinutes(30)).build()));
        StringBuilder figures = new StringBuilder();
        try {
            Path code = Files.createDirectories(Path.of(context.getProperty("nni.it.root")).resolve("code"));
            Path config = code.resolve("config.yml");
            Files.writeString(config, """
                    searchSpace:
                      x: {_type: randint, _value: [0, 1000]}
                      lr: {_type: loguniform, _value: [0.0001, 0.1]}
                    trialCommand: "true"
                    trialCodeDirectory: .
                    trialConcurrency: %d
                    maxTrialNumber: %d
                    tuner:
                      name: Random
                    trainingService:
                      platform: scalebench
                    """.formatted(running, trials));
            String created = command("nni:create " + config).toString();
            Matcher createdMatch = Pattern.compile("experiment (\\w+) \\w+ in (\\S+)").matcher(created);
            assertTrue(created, createdMatch.find());
            String experiment = createdMatch.group(1);
            Path database = Path.of(createdMatch.group(2), "db", "nni.sqlite");
            long began = System.nanoTime();
            line(figures, "nni-osgi scale benchmark: %,d trials, %,d running at once, %d intermediate results + 1 final each,"
                    + " trial time %d ms, %d cores, max heap %d MB; load average %s", trials, running, metrics, trialMillis,
                    Runtime.getRuntime().availableProcessors(), Runtime.getRuntime().maxMemory() >> 20, loadAverage());

            try {
                await().atMost(Duration.ofMinutes(10)).pollInterval(Duration.ofMillis(200))
                        .until(() -> keepers.running.get() >= running || keepers.ended.get() >= trials);
            } catch (org.awaitility.core.ConditionTimeoutException e) {
                line(figures, "NOT REACHED: after 10 min %d environments started, %d trials running, %d ended; load average %s",
                        keepers.started(), keepers.running.get(), keepers.ended.get(), loadAverage());
                throw e;
            }
            line(figures, "%,d trials running at once after %.1f s (%d JVM threads); load average %s", keepers.running.get(),
                    (System.nanoTime() - began) / 1e9, ManagementFactory.getThreadMXBean().getThreadCount(), loadAverage());
            routes(figures, experiment, "with " + running + " running");

            await().atMost(Duration.ofMinutes(50)).pollInterval(Duration.ofMillis(500)).until(() -> keepers.ended.get() >= trials);
            double seconds = (System.nanoTime() - began) / 1e9;
            line(figures, "most trials running at once: %,d", keepers.peak.get());
            await().atMost(Duration.ofMinutes(2)).until(() -> get("api/v1/nni/check-status").body().contains("DONE"));
            line(figures, "%,d trials ended in %.1f s: %.1f trials/s, %,d metrics sent (%.0f metrics/s); load average %s", trials,
                    seconds, trials / seconds, keepers.metricsSent.get(), keepers.metricsSent.get() / seconds, loadAverage());
            routes(figures, experiment, "at " + trials + " trials");
            memory(figures, "at the end");

            long[] stored = countStored(database);
            line(figures, "SQLite: %,d metric rows, %,d distinct (trial, type, sequence), %,d trials", stored[0], stored[1], stored[2]);
            assertEquals("metrics stored once", keepers.metricsSent.get(), stored[0]);
            assertEquals("metrics stored once", stored[0], stored[1]);

            command("nni:halt " + experiment);
            long resumeStart = System.nanoTime();
            String resumed = command("nni:resume " + experiment).toString();
            double resumeMillis = (System.nanoTime() - resumeStart) / 1e6;
            HttpResponse<String> statistics = get("api/v1/nni/job-statistics");
            double answeredMillis = (System.nanoTime() - resumeStart) / 1e6;
            line(figures, "resume of the %,d-trial experiment: %.0f ms (nni:resume returned: %s), job-statistics answered after %.0f ms: %s;"
                    + " load average %s", trials, resumeMillis, resumed.strip(), answeredMillis, statistics.body(), loadAverage());
            routes(figures, experiment, "after resume");
            command("nni:halt " + experiment);
            memory(figures, "after resume");
        } finally {
            keepers.close();
            platform.unregister();
            System.out.print(figures);
            Files.writeString(Path.of(System.getProperty("nni.bundles.dir"), "nni.itest", "target", "scale-benchmark.txt"), figures,
                    StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        }
    }

    /** Times each route {@value #SAMPLES} times in a row (after 3 unmeasured calls) and prints p50/p99 and the answer's size. */
    private void routes(StringBuilder figures, String experiment, String when) throws Exception {
        String someTrial = someTrial();
        Map<String, String> routes = new java.util.LinkedHashMap<>();
        routes.put("GET trial-jobs", "api/v1/nni/trial-jobs");
        routes.put("GET trial-jobs/{id}", "api/v1/nni/trial-jobs/" + someTrial);
        routes.put("GET metric-data/{id}", "api/v1/nni/metric-data/" + someTrial);
        routes.put("GET job-statistics", "api/v1/nni/job-statistics");
        routes.put("GET check-status", "api/v1/nni/check-status");
        routes.put("GET export-data", "api/v1/nni/export-data");
        routes.put("UI overview", "api/v1/nni-ui/experiments/" + experiment);
        routes.put("UI trial table page (50, by metric)", "api/v1/nni-ui/experiments/" + experiment + "/trials?offset=100&limit=50&sort=default&desc=true");
        routes.put("UI trial detail", "api/v1/nni-ui/experiments/" + experiment + "/trials/" + someTrial);
        routes.put("UI default metric chart", "api/v1/nni-ui/experiments/" + experiment + "/results");
        routes.put("UI parallel coordinates", "api/v1/nni-ui/experiments/" + experiment + "/parallel");
        routes.put("UI experiments", "api/v1/nni-ui/experiments");
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        line(figures, "REST %s (load average %s):", when, loadAverage());
        for (Map.Entry<String, String> route : routes.entrySet()) {
            URI uri = endpoint().resolve(route.getValue());
            long[] nanos = new long[SAMPLES];
            int bytes = 0;
            int status = 0;
            for (int i = -3; i < SAMPLES; i++) {
                long start = System.nanoTime();
                HttpResponse<byte[]> answer = http.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(60)).build(),
                        HttpResponse.BodyHandlers.ofByteArray());
                if (i >= 0) {
                    nanos[i] = System.nanoTime() - start;
                }
                bytes = answer.body().length;
                status = answer.statusCode();
            }
            Arrays.sort(nanos);
            line(figures, "  %-38s p50 %8.2f ms  p99 %8.2f ms  %,10d bytes  (HTTP %d)", route.getKey(), nanos[SAMPLES / 2] / 1e6,
                    nanos[(int) Math.ceil(SAMPLES * 0.99) - 1] / 1e6, bytes, status);
        }
    }

    private String someTrial() throws Exception {
        String body = get("api/v1/nni/trial-jobs?status=SUCCEEDED").body();
        Matcher id = Pattern.compile("\"trialJobId\":\"(\\w+)\"").matcher(body);
        if (!id.find()) {
            id = Pattern.compile("\"trialJobId\":\"(\\w+)\"").matcher(get("api/v1/nni/trial-jobs").body());
            assertTrue(id.find());
        }
        return id.group(1);
    }

    private static void memory(StringBuilder figures, String when) throws Exception {
        System.gc();
        var heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage();
        line(figures, "memory %s: heap used %d MB after a full GC (committed %d MB, max %d MB), RSS %s, %d JVM threads", when,
                heap.getUsed() >> 20, heap.getCommitted() >> 20, heap.getMax() >> 20, status("VmRSS"),
                ManagementFactory.getThreadMXBean().getThreadCount());
    }

    private static void line(StringBuilder figures, String format, Object... arguments) {
        String line = String.format(format, arguments) + System.lineSeparator();
        System.out.print(line);
        figures.append(line);
    }

    private static String status(String field) throws Exception {
        return Files.readAllLines(Path.of("/proc/self/status")).stream().filter(l -> l.startsWith(field + ":"))
                .map(l -> l.substring(field.length() + 1).trim()).findFirst().orElse("?");
    }

    private static String loadAverage() throws Exception {
        String[] fields = Files.readString(Path.of("/proc/loadavg")).split(" ");
        return fields[0] + " " + fields[1] + " " + fields[2];
    }

    /** @return rows, distinct (trial, type, sequence), trials */
    private static long[] countStored(Path database) throws Exception {
        SQLiteConfig config = new SQLiteConfig();
        config.setReadOnly(true);
        try (Connection connection = new JDBC().connect(JDBC.PREFIX + database, config.toProperties());
             Statement query = connection.createStatement();
             ResultSet row = query.executeQuery("select count(*), count(distinct trialJobId || '/' || type || '/' || sequence),"
                     + " count(distinct trialJobId) from MetricData")) {
            assertTrue(row.next());
            return new long[] {row.getLong(1), row.getLong(2), row.getLong(3)};
        }
    }

    /**
     * Environments that are keepers played by this JVM: each holds a command long poll all the time
     * (as {@code nni-trialkeeper.jar} does), runs the trials it is given one after another and
     * reports over the keeper routes. Asynchronous: a thousand keepers take a few threads.
     */
    private static final class VirtualKeepers implements EnvironmentLauncher {
        final AtomicInteger running = new AtomicInteger();
        final AtomicInteger peak = new AtomicInteger();
        final AtomicInteger ended = new AtomicInteger();
        final AtomicLong metricsSent = new AtomicLong();
        private final URI endpoint;
        private final int metrics;
        private final long trialMillis;
        private final HttpClient http;
        private final ScheduledExecutorService timer = Executors.newScheduledThreadPool(2);
        private final Map<String, Keeper> keepers = new ConcurrentHashMap<>();

        VirtualKeepers(URI endpoint, int metrics, long trialMillis) {
            this.endpoint = endpoint;
            this.metrics = metrics;
            this.trialMillis = trialMillis;
            this.http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).executor(Executors.newFixedThreadPool(4))
                    .connectTimeout(Duration.ofSeconds(30)).build();
        }

        @Override
        public LaunchedEnvironment start(EnvironmentSpec spec, EnvironmentListener listener) {
            Keeper keeper = new Keeper(spec);
            keepers.put(spec.environmentId(), keeper);
            timer.execute(keeper::begin);
            return new LaunchedEnvironment() {
                @Override
                public CompletionStage<String> ended() {
                    return keeper.done;
                }

                @Override
                public void stop() {
                    keeper.stopped = true;
                    keeper.done.complete("stopped");
                }
            };
        }

        int started() {
            return keepers.size();
        }

        void close() {
            keepers.values().forEach(k -> {
                k.stopped = true;
                k.done.complete("closed");
            });
            timer.shutdownNow();
        }

        private final class Keeper {
            final CompletableFuture<String> done = new CompletableFuture<>();
            final EnvironmentSpec spec;
            final String base;
            volatile boolean stopped;
            long seq;
            long lastCommand;
            /** Reports go out one after another, in sequence order. */
            CompletableFuture<?> reports = CompletableFuture.completedFuture(null);

            Keeper(EnvironmentSpec spec) {
                this.spec = spec;
                this.base = "api/v1/nni-trial/" + spec.experimentId() + "/" + spec.environmentId() + "/";
            }

            void begin() {
                post("handshake", "{\"keeperVersion\":\"1.0.0\",\"protocol\":1,\"mode\":\"runner\",\"platform\":\"scalebench\"}")
                        .thenRun(() -> report("{\"kind\":\"ready\",\"environment\":\"" + spec.environmentId() + "\"}"))
                        .thenRun(this::poll)
                        .exceptionally(e -> {
                            System.err.println("keeper " + spec.environmentId() + ": " + e);
                            return null;
                        });
            }

            void poll() {
                if (stopped) {
                    return;
                }
                HttpRequest request = HttpRequest.newBuilder(endpoint.resolve(base + "commands?after=" + lastCommand + "&waitMillis=20000"))
                        .header("Authorization", "Bearer " + spec.token()).timeout(Duration.ofSeconds(60)).build();
                http.sendAsync(request, HttpResponse.BodyHandlers.ofString()).whenComplete((answer, error) -> {
                    if (error != null || answer.statusCode() != 200) {
                        if (!stopped) {
                            timer.schedule(this::poll, 1, TimeUnit.SECONDS);
                        }
                        return;
                    }
                    handle(answer.body());
                    poll();
                });
            }

            /** {"commands":[{"id":n,"trial":"abc",...,"type":"new-trial"},...]}: fields in any order, one command after another. */
            private void handle(String body) {
                Matcher ids = COMMAND_ID.matcher(body);
                List<Integer> starts = new ArrayList<>();
                List<Long> numbers = new ArrayList<>();
                while (ids.find()) {
                    starts.add(ids.start());
                    numbers.add(Long.parseLong(ids.group(1)));
                }
                for (int i = 0; i < starts.size(); i++) {
                    lastCommand = Math.max(lastCommand, numbers.get(i));
                    String command = body.substring(starts.get(i), i + 1 < starts.size() ? starts.get(i + 1) : body.length());
                    Matcher type = COMMAND_TYPE.matcher(command);
                    Matcher trial = COMMAND_TRIAL.matcher(command);
                    String kind = type.find() ? type.group(1) : "";
                    if (kind.equals("new-trial") && trial.find()) {
                        runTrial(trial.group(1));
                    } else if (kind.equals("new-trial")) {
                        System.err.println("unparsed command: " + command);
                    } else if (kind.equals("stop")) {
                        stopped = true;
                        done.complete("stop command");
                    }
                }
            }

            void runTrial(String trial) {
                peak.accumulateAndGet(running.incrementAndGet(), Math::max);
                report("{\"kind\":\"started\",\"trial\":\"" + trial + "\",\"time\":" + System.currentTimeMillis() + "}");
                int batches = Math.max(1, (metrics + BATCH - 1) / BATCH);
                for (int b = 0; b < batches; b++) {
                    int batch = b;
                    timer.schedule(() -> sendBatch(trial, batch), trialMillis * (b + 1) / (batches + 1), TimeUnit.MILLISECONDS);
                }
                timer.schedule(() -> {
                    metric(trial, "FINAL", 0, 1.0 / (1 + Math.abs(trial.hashCode() % 1000)));
                    report("{\"kind\":\"ended\",\"trial\":\"" + trial + "\",\"code\":0,\"time\":" + System.currentTimeMillis() + "}")
                            .thenRun(() -> {
                                running.decrementAndGet();
                                ended.incrementAndGet();
                            });
                }, trialMillis, TimeUnit.MILLISECONDS);
            }

            private synchronized void sendBatch(String trial, int batch) {
                StringBuilder many = new StringBuilder();
                int from = batch * BATCH;
                int to = Math.min(metrics, from + BATCH);
                for (int i = from; i < to; i++) {
                    many.append(many.length() == 0 ? "" : ",").append(metricReport(trial, "PERIODICAL", i, Math.sin(i / 10.0)));
                }
                reportsRaw(many.toString(), to - from);
            }

            private synchronized void metric(String trial, String type, long sequence, double value) {
                reportsRaw(metricReport(trial, type, sequence, value), 1);
            }

            private String metricReport(String trial, String type, long sequence, double value) {
                return "{\"seq\":" + (++seq) + ",\"kind\":\"metric\",\"trial\":\"" + trial + "\",\"line\":\"{\\\"parameter_id\\\": 0, "
                        + "\\\"trial_job_id\\\": \\\"" + trial + "\\\", \\\"type\\\": \\\"" + type + "\\\", \\\"sequence\\\": "
                        + sequence + ", \\\"value\\\": \\\"" + value + "\\\"}\"}";
            }

            synchronized CompletableFuture<?> report(String report) {
                return reportsRaw("{\"seq\":" + (++seq) + "," + report.substring(1), 0);
            }

            /** Sends reports (already numbered) after the ones before; counts the metrics among them once acked. */
            private synchronized CompletableFuture<?> reportsRaw(String numbered, int metricCount) {
                reports = reports.thenCompose(previous -> post("reports", "{\"reports\":[" + numbered + "]}"))
                        .thenRun(() -> metricsSent.addAndGet(metricCount))
                        .exceptionally(e -> {
                            System.err.println("keeper " + spec.environmentId() + ": reports failed: " + e);
                            return null;
                        });
                return reports;
            }

            private CompletableFuture<HttpResponse<String>> post(String path, String body) {
                HttpRequest request = HttpRequest.newBuilder(endpoint.resolve(base + path)).header("Authorization", "Bearer " + spec.token())
                        .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body))
                        .timeout(Duration.ofSeconds(60)).build();
                return http.sendAsync(request, HttpResponse.BodyHandlers.ofString()).handle((answer, error) -> {
                    if (error != null && !stopped) { // a closed connection: a keeper sends again, as nni-trialkeeper.jar does
                        return null;
                    }
                    if (error != null) {
                        throw new IllegalStateException(error);
                    }
                    return answer;
                }).thenCompose(answer -> {
                    if ((answer == null || answer.statusCode() == 503) && !stopped) { // busy: a keeper backs off and sends again
                        CompletableFuture<HttpResponse<String>> again = new CompletableFuture<>();
                        timer.schedule(() -> post(path, body).whenComplete((a, e) -> {
                            if (e != null) {
                                again.completeExceptionally(e);
                            } else {
                                again.complete(a);
                            }
                        }), 200, TimeUnit.MILLISECONDS);
                        return again;
                    }
                    if (answer.statusCode() != 200) {
                        throw new IllegalStateException(path + " answered " + answer.statusCode() + ": " + answer.body());
                    }
                    return CompletableFuture.completedFuture(answer);
                });
            }
        }
    }
}
