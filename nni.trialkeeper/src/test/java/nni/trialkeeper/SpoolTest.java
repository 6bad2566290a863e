package nni.trialkeeper;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

public class SpoolTest {

    @Rule
    public TemporaryFolder temporary = new TemporaryFolder();

    @Test(timeout = 10_000)
    public void numbersReportsAndDropsThemOnlyWhenAcknowledged() throws Exception {
        Spool spool = new Spool(temporary.getRoot().toPath(), 1 << 20);
        assertEquals(1, spool.append(Map.of("kind", "metric", "line", "a")));
        assertEquals(2, spool.append(Map.of("kind", "metric", "line", "b")));
        assertEquals(3, spool.append(Map.of("kind", "metric", "line", "c")));
        List<String> batch = spool.peek(2, 1 << 20, 0).reports();
        assertEquals(2, batch.size());
        assertEquals(1L, ((Number) Json.parseObject(batch.get(0)).get("seq")).longValue());
        assertEquals(3, spool.peek(10, 1 << 20, 0).reports().size());
        spool.acknowledge(2);
        List<String> rest = spool.peek(10, 1 << 20, 0).reports();
        assertEquals(1, rest.size());
        assertEquals("c", Json.parseObject(rest.get(0)).get("line"));
        spool.acknowledge(1); // a late answer to an earlier attempt changes nothing
        assertEquals(1, spool.pendingCount());
        spool.close();
    }

    @Test(timeout = 10_000)
    public void aKeeperStartedAgainSendsWhatWasLeftWithTheSameNumbers() throws Exception {
        Path dir = temporary.getRoot().toPath();
        Spool first = new Spool(dir, 1 << 20);
        first.append(Map.of("line", "a"));
        first.append(Map.of("line", "b"));
        first.append(Map.of("line", "c"));
        first.acknowledge(1);
        first.close();
        Spool second = new Spool(dir, 1 << 20);
        List<String> left = second.peek(10, 1 << 20, 0).reports();
        assertEquals(2, left.size());
        assertEquals(2L, ((Number) Json.parseObject(left.get(0)).get("seq")).longValue());
        assertEquals(4, second.append(Map.of("line", "d")));
        second.close();
    }

    @Test(timeout = 10_000)
    public void aFullSpoolBlocksTheWriterUntilReportsAreAcknowledged() throws Exception {
        Spool spool = new Spool(temporary.getRoot().toPath(), 100);
        spool.append(Map.of("line", "x".repeat(120)));
        CompletableFuture<Long> blocked = CompletableFuture.supplyAsync(() -> {
            try {
                return spool.append(Map.of("line", "next"));
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        assertFalse(spool.awaitEmpty(200));
        assertFalse(blocked.isDone());
        spool.acknowledge(1);
        assertEquals(Long.valueOf(2), blocked.get(5, TimeUnit.SECONDS));
        assertTrue(spool.peek(10, 1000, 0).reports().get(0).contains("\"next\""));
        spool.close();
    }

    @Test(timeout = 10_000)
    public void abandoningEndsAWaitForAcknowledgementsAtOnceAndEveryLaterOne() throws Exception {
        Spool spool = new Spool(temporary.getRoot().toPath(), 1 << 20);
        spool.append(Map.of("kind", "metric", "line", "a"));
        CompletableFuture<Boolean> waiting = CompletableFuture.supplyAsync(() -> {
            try {
                return spool.awaitEmpty(TimeUnit.HOURS.toMillis(1));
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        spool.abandon();
        assertFalse("nothing was acknowledged", waiting.get(5, TimeUnit.SECONDS));
        assertFalse(spool.awaitEmpty(TimeUnit.HOURS.toMillis(1)));
        assertEquals("the reports stay for a later keeper", 1, spool.pendingCount());
        spool.close();
    }
}
