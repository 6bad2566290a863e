package nni.store;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/** The experiment database: NNI's tables, replay of trial events, metrics stored once. */
public class ExperimentStoreTest {

    @Rule
    public TemporaryFolder folder = new TemporaryFolder();

    @Test
    public void platformFactsOfTrialsAreKeptBesideNnisTablesAndReadBack() throws Exception {
        Path directory = folder.getRoot().toPath();
        try (ExperimentStore store = ExperimentStore.open(directory)) {
            store.saveTrialPlatform(new TrialPlatformRecord("Ab1cD", "4711:1700000000000", "gpu-node-3",
                    java.util.Map.of("keeper", "python 3.11")));
            store.saveTrialPlatform(new TrialPlatformRecord("Ab1cD", "4712:1700000000001", "gpu-node-3",
                    java.util.Map.of("keeper", "python 3.11")));
            store.saveTrialPlatform(new TrialPlatformRecord("Zz9yY", "", "", java.util.Map.of()));
        }
        try (ExperimentStore store = ExperimentStore.openReadOnly(directory)) {
            var facts = store.trialPlatforms();
            assertEquals(2, facts.size());
            assertEquals(new TrialPlatformRecord("Ab1cD", "4712:1700000000001", "gpu-node-3",
                    java.util.Map.of("keeper", "python 3.11")), facts.get("Ab1cD"));
            assertEquals("", facts.get("Zz9yY").handle());
        }
    }

    @Test
    public void aDatabaseWithoutTheTrialPlatformTableReadsAsNoFacts() throws Exception {
        Path directory = folder.getRoot().toPath();
        try (ExperimentStore store = ExperimentStore.open(directory)) {
            store.addEvent(new TrialEvent(1, "Ab1cD", "WAITING", "{}", "file://x", 0L, null));
        }
        try (java.sql.Connection sql = java.sql.DriverManager.getConnection("jdbc:sqlite:" + directory.resolve("db/nni.sqlite"))) {
            sql.createStatement().executeUpdate("drop table TrialPlatform"); // as an experiment of an older version has it
        }
        try (ExperimentStore store = ExperimentStore.openReadOnly(directory)) {
            assertTrue(store.trialPlatforms().isEmpty());
        }
    }

    @Test
    public void metricsAreStoredOnceAndTrialsReplayFromEvents() throws Exception {
        Path directory = folder.getRoot().toPath();
        try (ExperimentStore store = ExperimentStore.open(directory)) {
            store.addEvent(new TrialEvent(1, "Ab1cD", "WAITING", "{\"parameter_id\": 0}", "file://x", 0L, null));
            store.addEvent(new TrialEvent(2, "Ab1cD", "RUNNING", null, "file://x", 0L, null));
            store.addEvent(new TrialEvent(3, "Ab1cD", "USER_TO_CANCEL", null, "file://x", 0L, null));
            store.addEvent(new TrialEvent(4, "Ab1cD", "USER_CANCELED", null, "file://x", 0L, "cancelled"));
            store.addEvent(new TrialEvent(5, "Zz9yY", "WAITING", "{\"parameter_id\": 1}", "file://y", 1L, null));
            assertTrue(store.addMetric(new MetricRecord(10, "Ab1cD", "0", "PERIODICAL", 0, "\"0.5\"")));
            assertFalse(store.addMetric(new MetricRecord(11, "Ab1cD", "0", "PERIODICAL", 0, "\"0.5\"")));
            assertTrue(store.addMetric(new MetricRecord(12, "Ab1cD", "0", "FINAL", 0, "\"0.9\"")));
            store.saveProfile(new Profile("{}", "exp", 1, 100, null, "/d", 2, 0));
            store.saveProfile(new Profile("{}", "exp", 2, 100, 200L, "/d", 2, 0));
        }
        try (ExperimentStore store = ExperimentStore.openReadOnly(directory)) {
            List<TrialRecord> trials = store.trials();
            assertEquals(2, trials.size());
            TrialRecord first = trials.get(0);
            assertEquals("USER_CANCELED", first.status());
            assertEquals(Long.valueOf(2), first.startTime());
            assertEquals(Long.valueOf(4), first.endTime());
            assertEquals("{\"parameter_id\": 0}", first.parameters());
            assertEquals("cancelled", first.message());
            assertTrue(first.terminal());
            assertEquals("WAITING", trials.get(1).status());
            assertEquals(Long.valueOf(1), trials.get(1).sequenceId());
            assertEquals(2, store.metrics("Ab1cD", null).size());
            assertEquals(1, store.metrics(null, "FINAL").size());
            Profile profile = store.latestProfile().orElseThrow();
            assertEquals(2, profile.revision());
            assertEquals(Long.valueOf(200), profile.endTime());
        }
    }

    /**
     * The WAL is copied into the database file by the store's own checkpoint thread: SQLite's automatic
     * checkpoint would only start at 8000 pages (32 MiB of WAL), far more than these rows.
     */
    @Test(timeout = 60_000)
    public void theWalIsCheckpointedOffTheCommitPath() throws Exception {
        Path directory = folder.getRoot().toPath();
        Path database = directory.resolve("db").resolve("nni.sqlite");
        try (ExperimentStore store = ExperimentStore.open(directory)) {
            long before = java.nio.file.Files.size(database);
            for (int batch = 0; batch < 40; batch++) {
                List<MetricRecord> metrics = new ArrayList<>();
                for (int i = 0; i < 500; i++) {
                    metrics.add(new MetricRecord(batch, "Ab1cD", "0", "PERIODICAL", batch * 500L + i, "\"0." + i + "\""));
                }
                store.addMetrics(metrics);
            }
            org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(30))
                    .until(() -> java.nio.file.Files.size(database) > before + (1 << 20));
            assertEquals(20_000, store.metrics("Ab1cD", "PERIODICAL").size());
        }
    }

    /**
     * Commits that never pause (a writer always running) leave no moment for a PASSIVE checkpoint to
     * reach the WAL's end: without the checkpoint thread's completing step the WAL would only start
     * over when SQLite's automatic checkpoint, inside a commit, synced both files. Here a writer
     * commits batch after batch until the checkpoint thread has completed a checkpoint (SQLite
     * reporting every WAL frame copied) while that writer was still committing, then once more, and
     * every metric is there once.
     */
    @Test(timeout = 120_000)
    public void aSteadyStreamOfCommitsStillLetsTheCheckpointThreadStartTheWalOver() throws Exception {
        Path directory = folder.getRoot().toPath();
        try (ExperimentStore store = ExperimentStore.open(directory)) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
            long sequence = 0;
            long completedWhileWriting = 0;
            while (completedWhileWriting < 2 && System.nanoTime() < deadline) {
                List<MetricRecord> metrics = new ArrayList<>();
                for (int i = 0; i < 50; i++, sequence++) {
                    // 8 trials, as 8 keepers report: each commit touches pages all over the index
                    metrics.add(new MetricRecord(sequence, "trial" + (sequence % 8), "0", "PERIODICAL", sequence, "\"0." + i + "\""));
                }
                store.addMetrics(metrics);
                completedWhileWriting = store.completedCheckpoints();
            }
            assertTrue("no checkpoint reached the WAL's end while " + sequence + " metrics were committed without a pause",
                    completedWhileWriting >= 2);
            int stored = 0;
            for (int trial = 0; trial < 8; trial++) {
                stored += store.metrics("trial" + trial, "PERIODICAL").size();
            }
            assertEquals(sequence, stored);
        }
    }

    /**
     * Concurrent batches (group commit): every caller learns exactly which of its metrics were new,
     * overlapping batches of different callers store each metric once, and every row is there after.
     */
    @Test(timeout = 60_000)
    public void concurrentBatchesStoreEachMetricOnceAndReportWhichWereNew() throws Exception {
        int callers = 6;
        int batches = 40;
        int batchSize = 50;
        AtomicLong fresh = new AtomicLong();
        ExecutorService pool = Executors.newFixedThreadPool(callers);
        try (ExperimentStore store = ExperimentStore.open(folder.getRoot().toPath())) {
            List<Future<?>> results = new ArrayList<>();
            for (int c = 0; c < callers; c++) {
                String trial = "T" + (c % 3); // two callers per trial: every metric is sent twice
                results.add(pool.submit(() -> {
                    for (int b = 0; b < batches; b++) {
                        List<MetricRecord> batch = new ArrayList<>();
                        for (int i = 0; i < batchSize; i++) {
                            batch.add(new MetricRecord(b, trial, "0", "PERIODICAL", (long) b * batchSize + i, "\"" + i + "\""));
                        }
                        for (boolean isNew : store.addMetrics(batch)) {
                            fresh.addAndGet(isNew ? 1 : 0);
                        }
                        assertFalse("a batch sent again is not new", store.addMetrics(batch)[batchSize - 1]);
                    }
                    return null;
                }));
            }
            for (Future<?> result : results) {
                result.get(50, TimeUnit.SECONDS);
            }
            long expected = 3L * batches * batchSize;
            assertEquals("metrics reported new", expected, fresh.get());
            List<MetricRecord> stored = store.metrics(null, null);
            assertEquals(expected, stored.size());
            assertEquals(expected, stored.stream().map(m -> m.trialJobId() + "/" + m.sequence()).distinct().count());
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * Group commit fails together: batches queued while the store is busy go into one transaction;
     * when that transaction fails (a trigger refuses one row), every caller in it gets the failure,
     * none of their metrics is stored, and the same batches are all new when sent again.
     */
    @Test(timeout = 60_000)
    public void aFailingGroupCommitFailsEveryBatchInItAndStoresNothing() throws Exception {
        Path directory = folder.getRoot().toPath();
        int callers = 4;
        ExecutorService pool = Executors.newFixedThreadPool(callers);
        try (ExperimentStore store = ExperimentStore.open(directory);
             java.sql.Connection saboteur = new org.sqlite.JDBC().connect(org.sqlite.JDBC.PREFIX
                     + directory.resolve("db").resolve("nni.sqlite"), new java.util.Properties());
             java.sql.Statement sql = saboteur.createStatement()) {
            sql.execute("create trigger refuse before insert on MetricData when new.data = '\"poison\"'"
                    + " begin select raise(abort, 'refused by the test'); end");
            List<List<MetricRecord>> batches = new ArrayList<>();
            for (int c = 0; c < callers; c++) {
                List<MetricRecord> batch = new ArrayList<>();
                for (int i = 0; i < 50; i++) {
                    String data = c == callers - 1 && i == 49 ? "\"poison\"" : "\"" + i + "\"";
                    batch.add(new MetricRecord(0, "T" + c, "0", "PERIODICAL", i, data));
                }
                batches.add(batch);
            }
            List<Future<boolean[]>> results = new ArrayList<>();
            Set<Thread> callerThreads = java.util.concurrent.ConcurrentHashMap.newKeySet();
            synchronized (store) { // the store is busy: every batch queues for the same next commit
                for (List<MetricRecord> batch : batches) {
                    results.add(pool.submit(() -> {
                        callerThreads.add(Thread.currentThread());
                        return store.addMetrics(batch);
                    }));
                }
                // queued, each caller waits: the one to commit next for the monitor, the others for their batch
                org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(30)).until(() -> callerThreads.size() == callers
                        && callerThreads.stream().filter(thread -> thread.getState() == Thread.State.BLOCKED).count() == 1
                        && callerThreads.stream().filter(thread -> thread.getState() == Thread.State.WAITING).count() == callers - 1);
            }
            for (Future<boolean[]> result : results) {
                try {
                    result.get(30, TimeUnit.SECONDS);
                    throw new AssertionError("a batch committed together with the refused one was acknowledged");
                } catch (java.util.concurrent.ExecutionException e) {
                    assertTrue(e.getCause().toString(), e.getCause() instanceof StoreException
                            && e.getCause().getMessage().contains("refused by the test"));
                }
            }
            assertEquals("rows after the failed group", 0, store.metrics(null, null).size());

            sql.execute("drop trigger refuse");
            for (List<MetricRecord> batch : batches) {
                boolean[] fresh = store.addMetrics(batch);
                for (boolean isNew : fresh) {
                    assertTrue("a metric of the failed group is new when sent again", isNew);
                }
            }
            assertEquals(callers * 50, store.metrics(null, null).size());
        } finally {
            pool.shutdownNow();
        }
    }
}
