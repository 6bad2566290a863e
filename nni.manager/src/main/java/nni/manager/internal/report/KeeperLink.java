package nni.manager.internal.report;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

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
    private long applied;
    private final List<Map<String, Object>> commands = new ArrayList<>();
    private long nextCommandId = 1;
    private boolean closed;
    private volatile long lastSeenNanos = System.nanoTime();
    private volatile boolean contacted;

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
        return presented != null && MessageDigest.isEqual(token, presented.getBytes(StandardCharsets.UTF_8));
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

    /** Queues a command for the keeper; it gets the next command id. */
    public synchronized void send(Map<String, Object> command) {
        Map<String, Object> numbered = new java.util.LinkedHashMap<>();
        numbered.put("id", nextCommandId++);
        numbered.putAll(command);
        commands.add(numbered);
        notifyAll();
    }

    /**
     * Drops the commands up to {@code after} (the keeper has them) and waits up to
     * {@code waitMillis} for newer ones.
     */
    synchronized List<Map<String, Object>> commandsAfter(long after, long waitMillis) throws InterruptedException {
        commands.removeIf(c -> ((Number) c.get("id")).longValue() <= after);
        long deadline = System.currentTimeMillis() + waitMillis;
        while (commands.isEmpty() && !closed) {
            long left = deadline - System.currentTimeMillis();
            if (left <= 0) {
                break;
            }
            wait(left);
        }
        return List.copyOf(commands);
    }

    synchronized void close() {
        closed = true;
        notifyAll();
    }
}
