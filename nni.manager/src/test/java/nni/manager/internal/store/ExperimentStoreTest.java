package nni.manager.internal.store;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.nio.file.Path;
import java.util.List;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/** The experiment database: NNI's tables, replay of trial events, metrics stored once. */
public class ExperimentStoreTest {

    @Rule
    public TemporaryFolder folder = new TemporaryFolder();

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
}
