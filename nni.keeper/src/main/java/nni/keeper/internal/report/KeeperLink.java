package nni.keeper.internal.report;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * One keeper's connection state on the manager: its token, the last report sequence applied (so a
 * batch sent again is stored once) and the commands waiting for it. Thread-safe.
 */
public final class KeeperLink {

    private final String experimentId;
    private final String keeperId;
    private final byte[] token;
    private volatile KeeperPeer peer;
    private final Object reportLock = new Object();
    /** Written with {@link #reportLock} held; volatile for {@link #appliedSoFar}, which reads it without. */
    private volatile long applied;
    private final List<Map<String, Object>> commands = new ArrayList<>();
    /** Long polls waiting for a command: answered by {@link #send}, {@link #close} or their deadline. */
    private final List<CompletableFuture<List<Map<String, Object>>>> polls = new ArrayList<>();
    private long nextCommandId = 1;
    private boolean closed;
    /** A stop was queued for the keeper: refused once its link has closed, it is told its stop stands. */
    private volatile boolean stopSent;
    private volatile long lastSeenNanos = System.nanoTime();
    private volatile boolean contacted;
    /** Where commands go besides the long polls: the keeper's channel folder, with the file transport. */
    private volatile Consumer<Map<String, Object>> outbox;
    /** Told when the link closes: true when the keeper is refused from now on, false when the runtime only stops. */
    private volatile Consumer<Boolean> closing;

    KeeperLink(String experimentId, String keeperId, String token, KeeperPeer peer) {
        this.experimentId = experimentId;
        this.keeperId = keeperId;
        this.token = token.getBytes(StandardCharsets.UTF_8);
        this.peer = peer;
    }

    public String experimentId() {
        return experimentId;
    }

    public String keeperId() {
        return keeperId;
    }

    KeeperPeer peer() {
        return peer;
    }

    /** Hands the link to a new owner (a session that re-attached the keeper's trial). */
    void adopt(KeeperPeer newPeer) {
        peer = newPeer;
    }

    /** Compares in constant time, so the answer's timing tells nothing about the token. */
    boolean accepts(String presented) {
        return matches(token, presented);
    }

    /** @return a check of presented tokens against this link's, which holds nothing else of the link */
    java.util.function.Predicate<String> tokenCheck() {
        byte[] expected = token;
        return presented -> matches(expected, presented);
    }

    private static boolean matches(byte[] token, String presented) {
        return presented != null && MessageDigest.isEqual(token, presented.getBytes(StandardCharsets.UTF_8));
    }

    /** @return whether a stop was sent to the keeper */
    boolean stopSent() {
        return stopSent;
    }

    /**
     * A link taken back after a restart numbers its commands from the current time in milliseconds:
     * above every id the link before the restart gave (it numbered from 1, or from an earlier
     * restart's time, one per command), so the keeper's {@code after} never swallows a new command.
     */
    synchronized void numberCommandsFromNow() {
        nextCommandId = Math.max(nextCommandId, System.currentTimeMillis());
    }

    /** The keeper made an authenticated request. */
    void seen() {
        lastSeenNanos = System.nanoTime();
        contacted = true;
    }

    /** @return whether the keeper made an authenticated request since this link was registered */
    public boolean contacted() {
        return contacted;
    }

    /** Lock held while one batch of this keeper's reports is applied. */
    Object reportLock() {
        return reportLock;
    }

    /** @return the highest report sequence applied; call with {@link #reportLock()} held */
    long applied() {
        return applied;
    }

    void applied(long seq) {
        applied = seq;
    }

    /**
     * @return the highest report sequence applied so far, read without {@link #reportLock()}: for a
     *         thread that may hold its session's lock (closing the link's channel folder), which a
     *         batch being applied under the report lock may be waiting for; it may lag that batch
     */
    long appliedSoFar() {
        return applied;
    }

    /** @return the commands queued for the keeper that it has not confirmed having (by a later poll), oldest first */
    public synchronized List<Map<String, Object>> queuedCommands() {
        return List.copyOf(commands);
    }

    /** Queues a command for the keeper; it gets the next command id. Answers the keeper's waiting poll (outside the lock). */
    public void send(Map<String, Object> command) {
        Runnable answer;
        Map<String, Object> numbered = new java.util.LinkedHashMap<>();
        if ("stop".equals(command.get("type"))) {
            stopSent = true; // before the command is out: a link closed after it has always recorded it
        }
        synchronized (this) {
            numbered.put("id", nextCommandId++);
            numbered.putAll(command);
            commands.add(numbered);
            answer = takePolls();
        }
        answer.run();
        Consumer<Map<String, Object>> files = outbox;
        if (files != null) {
            files.accept(numbered);
        }
    }

    /**
     * Makes every command from now on also go to {@code writer} (the file transport writes each as
     * a file), and hands it the commands queued already; {@code onClose} is told when the link
     * closes whether the keeper is refused from now on.
     */
    void channel(Consumer<Map<String, Object>> writer, Consumer<Boolean> onClose) {
        List<Map<String, Object>> queued;
        synchronized (this) {
            outbox = writer;
            closing = onClose;
            queued = List.copyOf(commands);
        }
        queued.forEach(writer);
    }

    /**
     * Drops the commands up to {@code after} (the keeper has them) and answers with the newer ones
     * as soon as there are any, or with none after {@code waitMillis}. Holds no thread while it
     * waits: a thousand keepers polling cost no thread each.
     *
     * @param timer completes the poll at its deadline
     */
    synchronized CompletableFuture<List<Map<String, Object>>> commandsAfter(long after, long waitMillis,
            ScheduledExecutorService timer) {
        commands.removeIf(c -> ((Number) c.get("id")).longValue() <= after);
        if (!commands.isEmpty() || closed || waitMillis <= 0) {
            return CompletableFuture.completedFuture(List.copyOf(commands));
        }
        CompletableFuture<List<Map<String, Object>>> poll = new CompletableFuture<>();
        polls.add(poll);
        timer.schedule(() -> {
            List<Map<String, Object>> now;
            synchronized (this) {
                polls.remove(poll);
                now = List.copyOf(commands);
            }
            poll.complete(now);
        }, waitMillis, TimeUnit.MILLISECONDS);
        return poll;
    }

    /** @return what answers the waiting polls with the commands queued now; run it outside the lock (it writes responses) */
    private Runnable takePolls() {
        List<Map<String, Object>> now = List.copyOf(commands);
        List<CompletableFuture<List<Map<String, Object>>>> waiting = List.copyOf(polls);
        polls.clear();
        return () -> waiting.forEach(poll -> poll.complete(now));
    }

    /** @param refused the keeper is refused from now on (its link is unregistered), not merely left while the runtime stops */
    void close(boolean refused) {
        Runnable answer;
        synchronized (this) {
            closed = true;
            answer = takePolls();
        }
        answer.run();
        Consumer<Boolean> listener = closing;
        if (listener != null) {
            listener.accept(refused);
        }
    }
}
