package nni.itest;

import static org.awaitility.Awaitility.await;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.ops4j.pax.exam.CoreOptions.bundle;
import static org.ops4j.pax.exam.CoreOptions.frameworkProperty;
import static org.ops4j.pax.exam.CoreOptions.systemProperty;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BiConsumer;
import java.util.function.IntFunction;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import javax.management.ObjectName;

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

import nni.api.environment.EnvironmentSpec;
import nni.api.environment.KeeperOptions;
import nni.api.environment.KeeperSessions;
import nni.api.platform.TrainingPlatform;
import nni.itest.keeper.CapturingLauncher;

/**
 * Metric ingestion at the shared endpoint into the real experiment store. {@code nni:create} starts
 * an experiment on the platform "ingestbench" (registered here: keeper sessions whose environments
 * are this test), so every metric takes the product's path: trial routes, token check, keeper
 * session, {@code Experiment.metricsReported}, the experiment's SQLite store (WAL,
 * {@code synchronous=NORMAL}), committed before the batch is answered. N keeper-like clients each
 * run one trial and send numbered metric batches concurrently, in rounds; each client is one
 * kept-alive HTTP/1.1 connection written by hand ({@link RawClient}) with its requests built before
 * the round, so that the clients' own cost, measured per thread, stays small next to the runtime's.
 * Prints per round metrics/s, the batch request latencies, the load average and the CPU time per
 * metric of the clients and of the runtime (by thread group), then checks that SQLite holds every
 * metric exactly once. Not run by {@code mvn verify}; run it with
 *
 * <pre>
 * mvn -B -o verify -pl nni.itest -am -Dit.test=IngestBenchmark -Dconformance.skip=true -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false -Dfailsafe.failIfNoSpecifiedTests=false [-Dbench.keepers=8 -Dbench.rounds=3 -Dbench.batches=1000 -Dbench.batchSize=50 -Dbench.rate=100000 (metrics/s, 0: unpaced)]
 * </pre>
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class IngestBenchmark extends RuntimeTestSupport {

    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();
    private static final String CLIENT_THREAD = "ingest-client-";
    private static final Pattern ACKED = Pattern.compile("\"acked\":(\\d+)");

    @Configuration
    public Option[] config() throws Exception {
        Path root = scratch("ingest-bench");
        return new Option[] {baseOptions(), bundle(reactorBundle("nni.tuners")),
                frameworkProperty("nni.experiments.dir").value(root.resolve("experiments").toString()),
                frameworkProperty("nni.it.root").value(root.toString()),
                systemProperty("bench.keepers").value(System.getProperty("bench.keepers", "8")),
                systemProperty("bench.rounds").value(System.getProperty("bench.rounds", "3")),
                systemProperty("bench.batches").value(System.getProperty("bench.batches", "1000")),
                systemProperty("bench.batchSize").value(System.getProperty("bench.batchSize", "50")),
                systemProperty("bench.rate").value(System.getProperty("bench.rate", "100000")),
                systemProperty("bench.slowMillis").value(System.getProperty("bench.slowMillis", "0"))};
    }

    @Test(timeout = 900_000)
    public void ingestion() throws Exception {
        int keepers = Integer.getInteger("bench.keepers");
        KeeperSessions sessions = service(KeeperSessions.class, null);
        CapturingLauncher launcher = new CapturingLauncher();
        ServiceRegistration<TrainingPlatform> platform = TestPlatforms.register(context, "ingestbench", experiment -> sessions.open(
                experiment, launcher, KeeperOptions.builder("ingestbench").reuse(true).maxEnvironments(keepers)
                        .idleTimeout(Duration.ofMinutes(5)).build()));
        try {
            String figures = run(launcher, keepers, Integer.getInteger("bench.rounds"), Integer.getInteger("bench.batches"),
                    Integer.getInteger("bench.batchSize"), Integer.getInteger("bench.rate"));
            Files.writeString(Path.of(System.getProperty("nni.bundles.dir"), "nni.itest", "target", "ingest-benchmark.txt"), figures,
                    StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } finally {
            platform.unregister();
        }
    }

    /**
     * One experiment, one trial per keeper; the keepers send their batches in rounds, all of them
     * starting each round together. The first round warms the JIT up (C2 took a third of the CPU of
     * the first ten seconds); nothing else runs between the rounds (a second experiment's creation
     * between warm-up and measurement made hot code deoptimize and compile again in the measured time).
     *
     * @param rate metrics per second of all keepers together, each keeper sending its batches on a
     *             schedule (0: each batch as soon as the previous one was answered)
     * @return the figures, a line per round and the store's check
     */
    private String run(CapturingLauncher launcher, int keepers, int rounds, int batches, int batchSize, int rate) throws Exception {
        Path code = Files.createDirectories(Path.of(context.getProperty("nni.it.root")).resolve("code"));
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

        long[][][] latencies = new long[rounds][keepers][batches];
        long[][][] fromSchedule = new long[rounds][keepers][batches];
        long[][][] sentAt = new long[rounds][keepers][batches];
        // a keeper sends a batch every interval, the keepers evenly staggered
        long interval = rate == 0 ? 0 : TimeUnit.SECONDS.toNanos(1) * keepers * batchSize / rate;
        long[][] clientCpu = new long[rounds][keepers];
        CyclicBarrier roundStart = new CyclicBarrier(keepers + 1);
        CyclicBarrier roundEnd = new CyclicBarrier(keepers + 1);
        AtomicInteger clientNumber = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(keepers, r -> new Thread(r, CLIENT_THREAD + clientNumber.incrementAndGet()));
        List<Future<?>> clients = new ArrayList<>();
        for (int k = 0; k < keepers; k++) {
            Keeper keeper = new Keeper(endpoint(), experiment, launcher.specs.get(k), batches, batchSize, interval, interval * k / keepers);
            int index = k;
            clients.add(pool.submit(() -> {
                keeper.play(rounds, roundStart, roundEnd, round -> new long[][] {latencies[round][index], fromSchedule[round][index],
                        sentAt[round][index]},
                        (round, cpu) -> clientCpu[round][index] = cpu);
                return null;
            }));
        }
        StringBuilder figures = new StringBuilder();
        try {
            for (int round = 0; round < rounds; round++) {
                String loadBefore = loadAverage();
                roundStart.await(5, TimeUnit.MINUTES);
                long began = System.nanoTime();
                long beganMillis = System.currentTimeMillis();
                Map<Long, Long> threadsBefore = threadCpu();
                long processBefore = processCpu();
                long compileBefore = ManagementFactory.getCompilationMXBean().getTotalCompilationTime();
                long allocatedBefore = allocatedBytes();
                long[] collectionsBefore = youngCollections();
                roundEnd.await(14, TimeUnit.MINUTES);
                long elapsed = System.nanoTime() - began;
                long process = processCpu() - processBefore;
                long compileMillis = ManagementFactory.getCompilationMXBean().getTotalCompilationTime() - compileBefore;
                long allocated = allocatedBytes() - allocatedBefore;
                long[] collections = youngCollections();
                Map<String, Long> runtimeThreads = runtimeThreadCpu(threadsBefore, experiment);
                long metrics = (long) keepers * batches * batchSize;
                long client = Arrays.stream(clientCpu[round]).sum();
                double seconds = elapsed / 1e9;
                String line = String.format("ingest round %d of %d: %d keepers x %d batches x %d metrics = %d metrics in %.2f s:"
                                + " %.0f metrics/s (%s); batch request latency %s%s; load average before %s, after %s; CPU: this JVM %.2f s,"
                                + " %.1f us per metric; of it the clients %.1f us per metric, the runtime %.1f us per metric (by thread group,"
                                + " us per metric: %s; JIT compilation %d ms); allocated %.0f bytes per metric (every thread of this JVM);"
                                + " %d young collections, %d ms in them%n",
                        round + 1, rounds, keepers, batches, batchSize, metrics, seconds, metrics / seconds,
                        rate == 0 ? "each batch sent when the previous one was answered" : "paced at " + rate + " metrics/s",
                        percentiles(latencies[round]), rate == 0 ? "" : ", counted from the scheduled send " + percentiles(fromSchedule[round]),
                        loadBefore, loadAverage(), process / 1e9, process / 1e3 / metrics, client / 1e3 / metrics,
                        (process - client) / 1e3 / metrics, perMetric(runtimeThreads, process - client, metrics), compileMillis,
                        (double) allocated / metrics, collections[0] - collectionsBefore[0], collections[1] - collectionsBefore[1]);
                // System.nanoTime is the monotonic clock perf records with: the window to profile (perf report --time)
                System.out.printf("ingest round %d ran %.3f-%.3f s on the monotonic clock%n", round + 1, began / 1e9, (began + elapsed) / 1e9);
                System.out.print(line);
                figures.append(line);
                printSlowBatches(round, latencies[round], sentAt[round], began, beganMillis);
            }
        } finally {
            pool.shutdownNow();
        }
        for (Future<?> client : clients) {
            client.get(1, TimeUnit.MINUTES);
        }
        await().atMost(Duration.ofSeconds(60)).until(() -> command("nni:top --once").toString().contains("DONE"));
        command("nni:halt " + experiment);

        long expected = (long) rounds * keepers * batches * batchSize;
        long[] stored = countStored(database, (long) rounds * batches * batchSize);
        assertEquals("metrics in SQLite", expected, stored[0]);
        assertEquals("distinct (trial, type, sequence) in SQLite", expected, stored[1]);
        assertEquals("metrics in SQLite with a sequence that was sent", expected, stored[2]);
        assertEquals("trials with metrics", keepers, stored[3]);
        String store = String.format("ingest store: the experiment's SQLite (WAL, synchronous=NORMAL, each batch committed before"
                + " its answer) holds %d rows, %d distinct (trial, type, sequence), every one sent%n", stored[0], stored[1]);
        System.out.print(store);
        return figures.append(store).toString();
    }

    /**
     * With {@code -Dbench.slowMillis=N}: prints the batches of a round that took N ms or more, by the
     * wall clock of their send (as JFR's events are stamped), to line them up with a recording's
     * collections and lock waits.
     */
    private static void printSlowBatches(int round, long[][] latencies, long[][] sentAt, long roundNanos, long roundMillis) {
        long slowNanos = TimeUnit.MILLISECONDS.toNanos(Long.getLong("bench.slowMillis", 0));
        if (slowNanos <= 0) {
            return;
        }
        for (int k = 0; k < latencies.length; k++) {
            for (int b = 0; b < latencies[k].length; b++) {
                if (latencies[k][b] >= slowNanos) {
                    System.out.printf("ingest slow batch: round %d keeper %d batch %d sent at %s took %.2f ms%n", round + 1, k, b,
                            java.time.Instant.ofEpochMilli(roundMillis + (sentAt[k][b] - roundNanos) / 1_000_000),
                            latencies[k][b] / 1e6);
                }
            }
        }
    }

    private static String percentiles(long[][] nanos) {
        long[] all = Arrays.stream(nanos).flatMapToLong(Arrays::stream).sorted().toArray();
        return String.format("p50 %.2f ms, p99 %.2f ms, max %.2f ms", all[all.length / 2] / 1e6,
                all[(int) Math.min(all.length - 1, Math.ceil(all.length * 0.99) - 1)] / 1e6, all[all.length - 1] / 1e6);
    }

    /**
     * @return bytes allocated so far by every thread of this JVM, the ended ones included (read as
     *         an MBean attribute: the probe bundle does not see {@code com.sun.management})
     */
    private static long allocatedBytes() throws Exception {
        return (Long) ManagementFactory.getPlatformMBeanServer().getAttribute(new ObjectName(ManagementFactory.THREAD_MXBEAN_NAME),
                "TotalThreadAllocatedBytes");
    }

    /** @return the young generation's collections so far and the milliseconds they took */
    private static long[] youngCollections() {
        long[] young = new long[2];
        for (GarbageCollectorMXBean collector : ManagementFactory.getGarbageCollectorMXBeans()) {
            if (!collector.getName().contains("MarkSweep") && !collector.getName().contains("Old")) {
                young[0] += collector.getCollectionCount();
                young[1] += collector.getCollectionTime();
            }
        }
        return young;
    }

    private static long processCpu() {
        return ProcessHandle.current().info().totalCpuDuration().orElse(Duration.ZERO).toNanos();
    }

    /** @return CPU time so far of every live thread, by thread id */
    private static Map<Long, Long> threadCpu() {
        Map<Long, Long> cpu = new HashMap<>();
        for (long id : THREADS.getAllThreadIds()) {
            cpu.put(id, THREADS.getThreadCpuTime(id));
        }
        return cpu;
    }

    /** @return CPU time since {@code before} of the threads other than the clients', by group of thread names */
    private static Map<String, Long> runtimeThreadCpu(Map<Long, Long> before, String experiment) {
        Map<String, Long> groups = new TreeMap<>();
        for (ThreadInfo thread : THREADS.getThreadInfo(THREADS.getAllThreadIds())) {
            long now = thread == null ? -1 : THREADS.getThreadCpuTime(thread.getThreadId());
            if (now < 0 || thread.getThreadName().startsWith(CLIENT_THREAD)) {
                continue;
            }
            String group = thread.getThreadName().startsWith("qtp") ? "Jetty pool (HTTP, servlets, store commits)"
                    : thread.getThreadName().replace("-" + experiment, "").replaceAll("[-_ ]?[0-9]+$", "");
            groups.merge(group, now - before.getOrDefault(thread.getThreadId(), 0L), Long::sum);
        }
        return groups;
    }

    private static String perMetric(Map<String, Long> groups, long runtimeCpu, long metrics) {
        StringBuilder text = new StringBuilder();
        long named = 0;
        for (Map.Entry<String, Long> group : groups.entrySet()) {
            named += group.getValue();
            if (group.getValue() * 1000 >= runtimeCpu) { // groups of at least 0.1 %
                text.append(String.format("%s %.1f, ", group.getKey(), group.getValue() / 1e3 / metrics));
            }
        }
        return text.append(String.format("JVM threads (JIT, GC) and the rest %.1f", (runtimeCpu - named) / 1e3 / metrics)).toString();
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

    /**
     * Plays one keeper on one kept-alive connection written by hand: handshake, ready, takes its
     * trial, then sends its batches round by round, each on its schedule (or as soon as the
     * previous one was answered), timing each from its send and from its scheduled time (a late
     * answer delays the next batch; counting from the schedule keeps that delay in the figures). Each request is written into one reused buffer just before it is
     * sent: requests built ahead (80 MB a round) were copied by every young collection, whose
     * pauses then dominated the latencies.
     */
    private static final class Keeper {
        private final URI endpoint;
        private final String path;
        private final String[] headers;
        private final int batches;
        private final int batchSize;
        private final long interval;
        private final long offset;

        /** @param interval ns between this keeper's batches, 0 for none; {@code offset} ns after a round's start its first */
        Keeper(URI endpoint, String experiment, EnvironmentSpec spec, int batches, int batchSize, long interval, long offset) {
            this.endpoint = endpoint;
            this.path = "/api/v1/nni-trial/" + experiment + "/" + spec.environmentId() + "/";
            this.headers = new String[] {"Authorization: Bearer " + spec.token(), "Content-Type: application/json"};
            this.batches = batches;
            this.batchSize = batchSize;
            this.interval = interval;
            this.offset = offset;
        }

        /**
         * @param latencies the arrays of a round to fill, a latency per batch in ns: from the send, from the scheduled send; the send's monotonic time
         * @param cpu       gets per round the CPU time this thread spent writing the requests and reading the answers, in ns
         */
        void play(int rounds, CyclicBarrier roundStart, CyclicBarrier roundEnd, IntFunction<long[][]> latencies, BiConsumer<Integer, Long> cpu)
                throws Exception {
            try (RawClient http = RawClient.connect(endpoint, "127.0.0.1", Duration.ofSeconds(60))) {
                assertEquals(200, http.exchange("POST", path + "handshake", "{\"keeperVersion\":\"1.0.0\",\"protocol\":1}", headers).status());
                assertEquals(200, http.exchange("POST", path + "reports", "{\"reports\":[{\"seq\":1,\"kind\":\"ready\"}]}", headers).status());
                RawClient.Answer command = http.head("GET", path + "commands?after=0&waitMillis=10000", headers).read();
                Matcher trialMatch = Pattern.compile("\"trial\":\"(\\w+)\"").matcher(command.body());
                assertTrue(command.body(), trialMatch.find());
                String trial = trialMatch.group(1);
                assertEquals(200, http.exchange("POST", path + "reports", "{\"reports\":[{\"seq\":2,\"kind\":\"started\",\"trial\":\""
                        + trial + "\",\"time\":0}]}", headers).status());
                BatchWriter writer = new BatchWriter(endpoint, path + "reports", headers, trial, batchSize);
                long seq = 2;
                for (int round = 0; round < rounds; round++) {
                    String[] answers = new String[batches];
                    int[] statuses = new int[batches];
                    long[][] roundLatencies = latencies.apply(round);
                    long firstSeq = seq;
                    roundStart.await(5, TimeUnit.MINUTES);
                    long cpuBefore = THREADS.getCurrentThreadCpuTime();
                    long roundBegan = System.nanoTime();
                    for (int b = 0; b < batches; b++) {
                        int length = writer.write(seq, ((long) round * batches + b) * batchSize);
                        seq += batchSize;
                        long due = roundBegan + offset + b * interval;
                        for (long wait = due - System.nanoTime(); interval > 0 && wait > 0; wait = due - System.nanoTime()) {
                            LockSupport.parkNanos(wait); // pacing: the batch's scheduled send
                        }
                        long began = System.nanoTime();
                        RawClient.Answer answer = http.write(writer.request(), length).read();
                        long answered = System.nanoTime();
                        roundLatencies[0][b] = answered - began;
                        roundLatencies[1][b] = answered - (interval > 0 ? due : began);
                        roundLatencies[2][b] = began;
                        statuses[b] = answer.status();
                        answers[b] = answer.body();
                    }
                    cpu.accept(round, THREADS.getCurrentThreadCpuTime() - cpuBefore);
                    roundEnd.await(14, TimeUnit.MINUTES);
                    for (int b = 0; b < batches; b++) { // checked off the clock: each batch acknowledged up to its last report
                        Matcher acked = ACKED.matcher(answers[b]);
                        assertTrue(answers[b], statuses[b] == 200 && acked.find()
                                && Long.parseLong(acked.group(1)) == firstSeq + (long) (b + 1) * batchSize);
                    }
                }
                assertEquals(200, http.exchange("POST", path + "reports", "{\"reports\":[{\"seq\":" + (seq + 1)
                        + ",\"kind\":\"ended\",\"trial\":\"" + trial + "\",\"code\":0,\"time\":0}]}", headers).status());
            }
        }
    }

    /**
     * Writes a reports request of metric lines as NNI's SDK prints them into buffers it reuses
     * (no allocation per request): the body first, then the head with the body's length, then the body.
     */
    private static final class BatchWriter {
        private static final byte[] BODY_START = ascii("{\"reports\":[");
        private static final byte[] REPORT_START = ascii("{\"seq\":");
        private static final byte[] VALUE_START = ascii(", \\\"value\\\": \\\"0.");
        private static final byte[] REPORT_END = ascii("\\\"}\"}");
        private static final byte[] COMMA = ascii(",");
        private static final byte[] BODY_END = ascii("]}");
        private static final byte[] HEAD_END = ascii("\r\n\r\n");

        private final byte[] headStart;
        private final byte[] lineStart;
        private final int batchSize;
        private final Bytes body = new Bytes();
        private final Bytes request = new Bytes();

        BatchWriter(URI endpoint, String path, String[] headers, String trial, int batchSize) {
            StringBuilder head = new StringBuilder("POST ").append(path).append(" HTTP/1.1\r\nHost: ").append(endpoint.getHost())
                    .append(':').append(endpoint.getPort()).append("\r\n");
            for (String header : headers) {
                head.append(header).append("\r\n");
            }
            this.headStart = ascii(head.append("Content-Length: ").toString());
            this.lineStart = ascii(",\"kind\":\"metric\",\"trial\":\"" + trial + "\",\"line\":\"{\\\"parameter_id\\\": 0, \\\"trial_job_id\\\": \\\""
                    + trial + "\\\", \\\"type\\\": \\\"PERIODICAL\\\", \\\"sequence\\\": ");
            this.batchSize = batchSize;
        }

        /** @return the length of the request written for the reports after {@code seq}, metrics from {@code firstMetric} */
        int write(long seq, long firstMetric) {
            body.clear().append(BODY_START);
            for (int i = 0; i < batchSize; i++) {
                if (i > 0) {
                    body.append(COMMA);
                }
                body.append(REPORT_START).append(seq + 1 + i).append(lineStart).append(firstMetric + i).append(VALUE_START)
                        .append(firstMetric + i).append(REPORT_END);
            }
            body.append(BODY_END);
            request.clear().append(headStart).append(body.length).append(HEAD_END).append(body.bytes, body.length);
            return request.length;
        }

        byte[] request() {
            return request.bytes;
        }

        private static byte[] ascii(String text) {
            return text.getBytes(StandardCharsets.US_ASCII);
        }
    }

    /** A growing byte buffer, reused. */
    private static final class Bytes {
        byte[] bytes = new byte[1 << 14];
        int length;

        Bytes clear() {
            length = 0;
            return this;
        }

        Bytes append(byte[] more) {
            return append(more, more.length);
        }

        Bytes append(byte[] more, int count) {
            room(count);
            System.arraycopy(more, 0, bytes, length, count);
            length += count;
            return this;
        }

        /** Appends a number's decimal digits. */
        Bytes append(long number) {
            int digits = 1;
            for (long rest = number / 10; rest > 0; rest /= 10) {
                digits++;
            }
            room(digits);
            long rest = number;
            for (int i = length + digits - 1; i >= length; i--, rest /= 10) {
                bytes[i] = (byte) ('0' + rest % 10);
            }
            length += digits;
            return this;
        }

        private void room(int count) {
            if (length + count > bytes.length) {
                bytes = Arrays.copyOf(bytes, Math.max(bytes.length * 2, length + count));
            }
        }
    }
}
