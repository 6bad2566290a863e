package nni.trialkeeper;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;

/**
 * The reports the manager has not acknowledged yet, in order, on disk. Every report gets the next
 * sequence number of this keeper's stream ({@code seq}, from 1); the manager applies a report only
 * if its sequence is above the last one it applied, so sending a batch again stores nothing twice.
 *
 * <p>Bounded: when the unacknowledged reports reach the limit, {@link #append} blocks, which stops
 * the reading of the trial's output (the trial then blocks on its own writes): nothing is dropped.
 * The file {@code reports.spool} holds one JSON report per line; {@code reports.acked} the last
 * acknowledged sequence. A keeper started again on the same directory sends what was left.
 */
final class Spool {

    private record Entry(long seq, String json) {
    }

    /** The oldest unacknowledged reports (JSON text) and the sequence of the last of them. */
    record Batch(List<String> reports, long lastSeq) {
    }

    private final Path file;
    private final Path ackedFile;
    private final long limitBytes;
    private final FileChannel channel;
    private final Deque<Entry> pending = new ArrayDeque<>();
    private long pendingBytes;
    private long nextSeq = 1;
    private long acked;
    private boolean closed;
    /** Nothing more will be acknowledged: whoever waits for acknowledgements stops waiting. */
    private boolean abandoned;

    Spool(Path directory, long limitBytes) throws IOException {
        Files.createDirectories(directory);
        this.file = directory.resolve("reports.spool");
        this.ackedFile = directory.resolve("reports.acked");
        this.limitBytes = limitBytes;
        if (Files.exists(ackedFile)) {
            acked = Long.parseLong(Files.readString(ackedFile).trim());
            nextSeq = acked + 1;
        }
        if (Files.exists(file)) {
            for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                if (line.isBlank()) {
                    continue;
                }
                Map<String, Object> report;
                try {
                    report = Json.parseObject(line);
                } catch (IllegalArgumentException torn) {
                    continue; // the last line of a keeper that died while writing it
                }
                long seq = ((Number) report.get("seq")).longValue();
                if (seq > acked) {
                    pending.add(new Entry(seq, line));
                    pendingBytes += line.length();
                }
                nextSeq = Math.max(nextSeq, seq + 1);
            }
        }
        channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.APPEND);
    }

    /**
     * Adds a report (a JSON object without {@code seq}, which is added here) and returns its
     * sequence. Blocks while the spool is full.
     */
    synchronized long append(Map<String, Object> report) throws IOException, InterruptedException {
        while (pendingBytes >= limitBytes && !closed) {
            wait();
        }
        long seq = nextSeq++;
        StringBuilder json = new StringBuilder("{\"seq\":").append(seq);
        for (Map.Entry<String, Object> e : report.entrySet()) {
            json.append(',');
            Json.quote(e.getKey(), json);
            json.append(':');
            Json.write(e.getValue(), json);
        }
        json.append('}');
        String line = json.toString();
        channel.write(ByteBuffer.wrap((line + "\n").getBytes(StandardCharsets.UTF_8)));
        pending.add(new Entry(seq, line));
        pendingBytes += line.length();
        notifyAll();
        return seq;
    }

    /**
     * Waits until there is something to send or the timeout passes, then returns up to
     * {@code maxReports} of the oldest unacknowledged reports (JSON text), without removing them.
     */
    synchronized Batch peek(int maxReports, long maxBytes, long timeoutMillis) throws InterruptedException {
        long deadline = System.currentTimeMillis() + timeoutMillis;
        while (pending.isEmpty() && !closed) {
            long left = deadline - System.currentTimeMillis();
            if (left <= 0) {
                break;
            }
            wait(left);
        }
        List<String> batch = new ArrayList<>();
        long bytes = 0;
        long lastSeq = acked;
        for (Entry entry : pending) {
            if (batch.size() >= maxReports || (bytes > 0 && bytes + entry.json.length() > maxBytes)) {
                break;
            }
            batch.add(entry.json);
            bytes += entry.json.length();
            lastSeq = entry.seq;
        }
        return new Batch(batch, lastSeq);
    }

    /** Drops every report up to and including {@code seq}: the manager has it durably. */
    synchronized void acknowledge(long seq) throws IOException {
        if (seq <= acked) {
            return;
        }
        while (!pending.isEmpty() && pending.peekFirst().seq <= seq) {
            pendingBytes -= pending.removeFirst().json.length();
        }
        acked = seq;
        Path temporary = ackedFile.resolveSibling("reports.acked.tmp");
        Files.writeString(temporary, Long.toString(seq));
        Files.move(temporary, ackedFile, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        if (pending.isEmpty()) {
            channel.truncate(0); // everything is acknowledged: the file starts over
        }
        notifyAll();
    }

    /**
     * Waits until every report is acknowledged; false if the timeout passed first or the spool was
     * {@linkplain #abandon() abandoned} (before or during the wait).
     */
    synchronized boolean awaitEmpty(long timeoutMillis) throws InterruptedException {
        long deadline = System.currentTimeMillis() + timeoutMillis;
        while (!pending.isEmpty()) {
            if (abandoned || closed) {
                return false;
            }
            long left = deadline - System.currentTimeMillis();
            if (left <= 0) {
                return false;
            }
            wait(left);
        }
        return true;
    }

    /** The manager will acknowledge nothing more: wakes {@link #awaitEmpty} at once, now and later. */
    synchronized void abandon() {
        abandoned = true;
        notifyAll();
    }

    synchronized int pendingCount() {
        return pending.size();
    }

    synchronized long lastAcknowledged() {
        return acked;
    }

    synchronized void close() throws IOException {
        closed = true;
        notifyAll();
        channel.close();
    }
}
