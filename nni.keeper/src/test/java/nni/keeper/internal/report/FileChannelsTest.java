package nni.keeper.internal.report;

import static org.awaitility.Awaitility.await;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.After;
import org.junit.Before;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import nni.http.HttpError;

/**
 * The manager's side of the file transport, spoken by the test as a keeper would: the handshake
 * with the token, numbered report files applied once and in order (a torn file waits, overlapping
 * files give each sequence once, a gap waits for the file that fills it), acknowledgements,
 * command files, a detached session's reports kept for later, a restored link taking the
 * acknowledged sequence from the folder, and {@code gone.json} once the link is unregistered.
 */
public class FileChannelsTest {

    private static final Duration WAIT = Duration.ofSeconds(20);

    @Rule
    public TemporaryFolder temporary = new TemporaryFolder();

    private final List<Long> applied = new CopyOnWriteArrayList<>();
    private final AtomicBoolean detached = new AtomicBoolean();
    private final KeeperLinks links = new KeeperLinks("9.9.9");
    private FileChannels channels;
    private Path root;

    private final KeeperPeer peer = new KeeperPeer() {
        @Override
        public Map<String, Object> handshakeAccepted(String keeperVersion) {
            return Map.of("trial", Map.of("trial", "T1"));
        }

        @Override
        public void handshakeRefused(String message) {
        }

        @Override
        public void apply(List<KeeperReport> reports) {
            if (detached.get()) {
                throw new HttpError(503, "detached; later");
            }
            reports.forEach(r -> applied.add(r.seq()));
        }
    };

    @Before
    public void open() throws Exception {
        root = temporary.newFolder("channels").toPath();
        channels = new FileChannels(links);
    }

    @After
    public void close() {
        channels.deactivate();
    }

    @Test(timeout = 60_000)
    public void reportsApplyOnceAndInOrderWhateverFilesBringThemAndATornFileWaits() throws Exception {
        reportsApplyOnceAndInOrder();
    }

    /** The same where the share cannot notify (NFS): the watcher's bounded poll finds every file. */
    @Test(timeout = 60_000)
    public void onAShareThatCannotNotifyThePollFindsEveryFile() throws Exception {
        channels.deactivate();
        channels = new FileChannels(links, true);
        reportsApplyOnceAndInOrder();
    }

    private void reportsApplyOnceAndInOrder() throws Exception {
        KeeperLink link = links.register("exp", "K1", "secret", peer);
        Path folder = channels.open(root, link, false);
        assertTrue(Files.isDirectory(folder.resolve("reports")) && Files.isDirectory(folder.resolve("commands")));

        write(folder.resolve("hello.json"), "{\"keeperVersion\":\"1.0.0\",\"protocol\":1,\"token\":\"wrong\",\"nonce\":\"n1\"}");
        await().atMost(WAIT).until(() -> read(folder.resolve("welcome.json")).contains("\"n1\""));
        assertTrue(read(folder.resolve("welcome.json")), read(folder.resolve("welcome.json")).contains("\"status\":401"));
        report(folder, 1, 1); // not taken before a handshake is accepted
        write(folder.resolve("hello.json"), "{\"keeperVersion\":\"1.0.0\",\"protocol\":1,\"token\":\"secret\",\"nonce\":\"n2\"}");
        await().atMost(WAIT).until(() -> read(folder.resolve("welcome.json")).contains("\"n2\""));
        String welcome = read(folder.resolve("welcome.json"));
        assertTrue(welcome, welcome.contains("\"managerVersion\":\"9.9.9\"") && welcome.contains("\"protocol\":1") && welcome.contains("\"T1\""));
        await().atMost(WAIT).until(() -> acked(folder) == 1);

        // a torn file (the rename showed before the data): nothing of it is applied, the reports after it wait
        Files.writeString(folder.resolve("reports").resolve(name(2, 4)), "{\"reports\":[{\"seq\":2,\"kind\":\"metric\"", StandardCharsets.UTF_8);
        report(folder, 5, 6);
        // several looks at the folder: none may apply 5-6 past the torn 2-4
        await().during(Duration.ofMillis(1500)).atMost(WAIT).until(() -> applied.equals(List.of(1L)));
        // the keeper writes the unacknowledged reports again, overlapping the torn file
        report(folder, 2, 5);
        await().atMost(WAIT).until(() -> acked(folder) == 6);
        assertEquals(List.of(1L, 2L, 3L, 4L, 5L, 6L), applied);
        // the torn file completed late, and an old file again: nothing twice
        report(folder, 2, 4);
        report(folder, 3, 7);
        await().atMost(WAIT).until(() -> acked(folder) == 7);
        assertEquals(List.of(1L, 2L, 3L, 4L, 5L, 6L, 7L), applied);
        // a gap waits for the file that fills it
        report(folder, 10, 10);
        await().during(Duration.ofMillis(1000)).atMost(WAIT).until(() -> acked(folder) == 7);
        report(folder, 8, 9);
        await().atMost(WAIT).until(() -> acked(folder) == 10);
        assertEquals(List.of(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L, 10L), applied);
        // what is acknowledged is deleted, the torn file included
        await().atMost(WAIT).until(() -> {
            try (var left = Files.list(folder.resolve("reports"))) {
                return left.noneMatch(f -> f.getFileName().toString().endsWith(".json"));
            }
        });
    }

    @Test(timeout = 60_000)
    public void commandsAreFilesDroppedOnceHandledAndAnUnregisteredKeeperIsToldItIsGone() throws Exception {
        KeeperLink link = links.register("exp", "K2", "secret", peer);
        Path folder = channels.open(root, link, false);
        link.send(Map.of("type", "new-trial", "trial", "T1"));
        link.send(Map.of("type", "kill", "trial", "T1"));
        Path commands = folder.resolve("commands");
        assertTrue(read(commands.resolve(String.format("%020d.json", 1))).contains("\"new-trial\""));
        assertTrue(read(commands.resolve(String.format("%020d.json", 2))).contains("\"kill\""));
        write(folder.resolve("hello.json"), "{\"keeperVersion\":\"1.0.0\",\"protocol\":1,\"token\":\"secret\",\"nonce\":\"a\"}");
        await().atMost(WAIT).until(() -> Files.exists(folder.resolve("welcome.json")));
        write(folder.resolve("commands.done"), "1");
        await().atMost(WAIT).until(() -> !Files.exists(commands.resolve(String.format("%020d.json", 1))));
        assertTrue(Files.exists(commands.resolve(String.format("%020d.json", 2))));
        assertFalse(Files.exists(folder.resolve("gone.json")));
        links.unregister(link);
        assertTrue(read(folder.resolve("gone.json")).contains("ended the session of keeper K2"));
    }

    @Test(timeout = 60_000)
    public void aDetachedSessionsReportsWaitAndARestoredLinkContinuesFromTheAcknowledgedSequence() throws Exception {
        KeeperLink link = links.register("exp", "K3", "secret", peer);
        Path folder = channels.open(root, link, false);
        write(folder.resolve("hello.json"), "{\"keeperVersion\":\"1.0.0\",\"protocol\":1,\"token\":\"secret\",\"nonce\":\"a\"}");
        await().atMost(WAIT).until(() -> Files.exists(folder.resolve("welcome.json")));
        report(folder, 1, 3);
        await().atMost(WAIT).until(() -> acked(folder) == 3);
        detached.set(true);
        report(folder, 4, 5);
        await().during(Duration.ofMillis(1500)).atMost(WAIT).until(() -> acked(folder) == 3);
        detached.set(false);
        await().atMost(WAIT).until(() -> acked(folder) == 5); // looked at again without a new event
        // the runtime stops (links closed, not refused) and a new one restores the link from a lagging link file
        channels.deactivate();
        links.deactivate();
        assertFalse(Files.exists(folder.resolve("gone.json")));
        applied.clear();
        KeeperLinks restarted = new KeeperLinks("9.9.9");
        channels = new FileChannels(restarted);
        KeeperLink restored = restarted.restore("exp", "K3", "secret", 2, peer);
        channels.open(root, restored, true);
        report(folder, 3, 6);
        await().atMost(WAIT).until(() -> acked(folder) == 6);
        assertEquals("only what the acked file did not hold", List.of(6L), applied);
    }

    /**
     * A keeper that saw no acknowledgement for a while writes its reports again; when the manager had
     * applied them meanwhile and the session ends at once, closing the folder deletes that copy and
     * keeps what was never applied.
     */
    @Test(timeout = 60_000)
    public void closingAFolderDeletesTheCopiesOfAppliedReportsAndKeepsTheRest() throws Exception {
        KeeperLink link = links.restore("exp", "K4", "secret", 3, peer);
        Path folder = root.resolve("K4");
        ChannelFolder channel = new ChannelFolder(link, new KeeperExchange(links), folder, true); // no watcher: no look
        report(folder, 2, 3);
        report(folder, 3, 3);
        report(folder, 4, 4);
        channel.close(true);
        try (var left = Files.list(folder.resolve("reports"))) {
            assertEquals(List.of(name(4, 4)), left.map(f -> f.getFileName().toString()).sorted().toList());
        }
        assertTrue(read(folder.resolve("gone.json")).contains("K4"));
        assertEquals("nothing applied on close", List.of(), applied);
    }

    /**
     * A session forgets a keeper (its environment ended, the session closes) holding its own lock,
     * while the share's watcher may be applying that keeper's last report file: the watcher then
     * holds the keeper's report lock and waits for the session's lock, which the session needs to
     * apply a report (a trial's end, or the check that a metric's trial is the keeper's). Closing
     * the folder must not wait for the report lock, or neither ever goes on (the share's watcher,
     * which serves every keeper on that storage, stuck with them). The order is made certain: the
     * report is being applied, waiting for the session's lock, before the session unregisters the
     * link while holding it.
     */
    @Test(timeout = 60_000)
    public void unregisteringALinkUnderTheSessionsLockWhileItsReportWaitsForThatLockDoesNotDeadlock() throws Exception {
        Object sessionLock = new Object();
        java.util.concurrent.CountDownLatch applying = new java.util.concurrent.CountDownLatch(1);
        KeeperPeer session = new KeeperPeer() {
            @Override
            public Map<String, Object> handshakeAccepted(String keeperVersion) {
                return Map.of();
            }

            @Override
            public void handshakeRefused(String message) {
            }

            @Override
            public void apply(List<KeeperReport> reports) {
                applying.countDown(); // the watcher holds this keeper's report lock from here on
                synchronized (sessionLock) {
                    reports.forEach(r -> applied.add(r.seq()));
                }
            }
        };
        KeeperLink link = links.restore("exp", "K5", "secret", 0, session);
        Path folder = channels.open(root, link, true);
        java.util.concurrent.CountDownLatch sessionHoldsItsLock = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.atomic.AtomicReference<Throwable> failure = new java.util.concurrent.atomic.AtomicReference<>();
        Thread ending = new Thread(() -> {
            try {
                synchronized (sessionLock) {
                    sessionHoldsItsLock.countDown();
                    if (applying.await(WAIT.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS)) {
                        links.unregister(link); // as KeeperSession.environmentEnded and close do, under the session's lock
                    } else {
                        failure.set(new AssertionError("the watcher never applied the report file"));
                    }
                }
            } catch (Throwable e) {
                failure.set(e);
            }
        }, "session-ending-K5");
        ending.setDaemon(true); // left blocked if the two do deadlock, so that the test can say so
        ending.start();
        assertTrue(sessionHoldsItsLock.await(WAIT.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS));
        report(folder, 1, 1);
        ending.join(WAIT.toMillis());
        assertFalse("unregistering the link under the session's lock waited for the report lock its report held:"
                + " the session and the share's watcher deadlocked", ending.isAlive());
        if (failure.get() != null) {
            throw new AssertionError(failure.get());
        }
        assertTrue(read(folder.resolve("gone.json")).contains("K5"));
        await().atMost(WAIT).until(() -> applied.equals(List.of(1L))); // applied once the session let go of its lock
    }

    private static void report(Path folder, long first, long last) throws Exception {
        StringBuilder body = new StringBuilder("{\"reports\":[");
        for (long seq = first; seq <= last; seq++) {
            body.append(seq == first ? "" : ",").append("{\"seq\":").append(seq).append(",\"kind\":\"metric\",\"trial\":\"T1\",\"line\":\"x\"}");
        }
        write(folder.resolve("reports").resolve(name(first, last)), body.append("]}").toString());
    }

    private static String name(long first, long last) {
        return String.format("%020d-%020d.json", first, last);
    }

    private static void write(Path target, String text) throws Exception {
        ChannelFolder.write(target, text.getBytes(StandardCharsets.UTF_8), false);
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (Exception e) {
            return "";
        }
    }

    private static long acked(Path folder) {
        String text = read(folder.resolve("acked")).strip();
        return text.isEmpty() ? 0 : Long.parseLong(text);
    }
}
