package nni.store;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Copies an experiment store's WAL into its database file off the commit path, and lets the WAL
 * start over before SQLite's own checkpoint would, inside a commit.
 *
 * <p>Each commit only wakes this thread, which runs a PASSIVE checkpoint (it never blocks writers)
 * on a connection of its own, at most every {@value #MIN_INTERVAL_MILLIS} ms so that a stream of
 * small commits does not turn into a stream of fsyncs. A PASSIVE checkpoint copies the frames that
 * were in the WAL when it began; under a steady stream of commits new ones always arrive meanwhile,
 * so it never reaches the WAL's end and the WAL is never started over. It grew until SQLite's
 * automatic checkpoint at {@value #BACKSTOP_PAGES} pages ran inside the commit that crossed it: that
 * commit synced the WAL and the database file, 40-45 ms of fsyncs at 50,000 metrics/s (strace), and
 * every batch of the group, and those queued behind it, waited for them: the IngestBenchmark's p99.
 *
 * <p>So once the WAL holds {@value #RESTART_FRAMES} frames, a cycle goes on after its PASSIVE
 * checkpoint: it flushes both files' dirty pages (still off the commit path; on Linux an fsync
 * flushes a file's pages whichever descriptor wrote them) and checkpoints again, a few times, each
 * round with less to do, then holds the store's commit lock for one more PASSIVE checkpoint. With no
 * commit running, that one reaches the WAL's end, and its copy and its two fsyncs have only the
 * pages written during the last flush to handle. The next commit then starts the
 * WAL over (SQLite syncs the new header then, about a millisecond). The automatic checkpoint stays
 * as a backstop should this thread fall behind.
 */
final class WalCheckpointer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(WalCheckpointer.class);

    /** SQLite's automatic checkpoint, inside a commit, at this many WAL pages: the backstop. */
    static final int BACKSTOP_PAGES = 8000;
    /** From this many WAL frames a cycle also completes the checkpoint, so that the WAL starts over. */
    static final int RESTART_FRAMES = 4000;
    /** Rounds of checkpoint and flush before the one holding the commit lock. */
    static final int CATCH_UP_ROUNDS = 2;
    static final long MIN_INTERVAL_MILLIS = 250;

    private final Connection connection;
    private final Path database;
    private final Path wal;
    private final Object commitLock;
    private final Thread thread;
    private final Object lock = new Object();
    private final AtomicLong completed = new AtomicLong();
    private boolean dirty;
    private boolean closed;

    /**
     * @param connection a connection of its own to the database, closed by {@link #close()}
     * @param database   the database file (its WAL is beside it)
     * @param commitLock the lock every write of the store holds: while this holds it, nothing commits
     */
    WalCheckpointer(Connection connection, Path database, Object commitLock) {
        this.connection = connection;
        this.database = database;
        this.wal = database.resolveSibling(database.getFileName() + "-wal");
        this.commitLock = commitLock;
        this.thread = new Thread(this::run, "nni-store-checkpoint-" + database.getParent().getParent().getFileName());
        thread.setDaemon(true);
        thread.start();
    }

    /** A transaction was committed: a checkpoint is due within {@value #MIN_INTERVAL_MILLIS} ms. */
    void committed() {
        synchronized (lock) {
            if (!dirty) {
                dirty = true;
                lock.notifyAll();
            }
        }
    }

    /** @return how many checkpoints this thread took to the WAL's end, so that the WAL started over */
    long completedCheckpoints() {
        return completed.get();
    }

    private void run() {
        long last = System.nanoTime() - TimeUnit.MILLISECONDS.toNanos(MIN_INTERVAL_MILLIS);
        while (true) {
            synchronized (lock) {
                try {
                    while (!closed && !dirty) {
                        lock.wait();
                    }
                    long due = last + TimeUnit.MILLISECONDS.toNanos(MIN_INTERVAL_MILLIS);
                    for (long left = due - System.nanoTime(); !closed && left > 0; left = due - System.nanoTime()) {
                        lock.wait(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
                    }
                } catch (InterruptedException e) {
                    return;
                }
                if (closed) {
                    return;
                }
                dirty = false;
            }
            try {
                cycle();
            } catch (SQLException | IOException e) {
                // a later checkpoint, or SQLite's own, catches up; the data is safe in the WAL meanwhile
                LOG.debug("checkpoint failed: {}", e.toString());
            }
            last = System.nanoTime();
        }
    }

    private void cycle() throws SQLException, IOException {
        long[] state = passiveCheckpoint();
        if (state[0] < RESTART_FRAMES) {
            return;
        }
        // each round copies and flushes what arrived during the last one, fewer pages every time
        for (int round = 0; round < CATCH_UP_ROUNDS; round++) {
            flush(wal);
            flush(database);
            state = passiveCheckpoint();
        }
        flush(wal);
        flush(database);
        synchronized (commitLock) {
            state = passiveCheckpoint();
            if (state[0] >= 0 && state[0] == state[1]) {
                completed.incrementAndGet();
            }
        }
    }

    /** @return the frames in the WAL and those copied to the database file (-1, -1 when SQLite was busy) */
    private long[] passiveCheckpoint() throws SQLException {
        try (Statement statement = connection.createStatement();
                ResultSet result = statement.executeQuery("PRAGMA wal_checkpoint(PASSIVE)")) {
            if (!result.next() || result.getInt(1) != 0) {
                return new long[] {-1, -1};
            }
            return new long[] {result.getLong(2), result.getLong(3)};
        }
    }

    private static void flush(Path file) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            channel.force(false);
        } catch (NoSuchFileException e) {
            // no WAL yet (or no longer): nothing to flush
        }
    }

    /** Ends the thread (waiting for a cycle under way) and closes its connection. */
    @Override
    public void close() {
        synchronized (lock) {
            closed = true;
            lock.notifyAll();
        }
        try {
            thread.join(TimeUnit.SECONDS.toMillis(10));
            connection.close();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (SQLException e) {
            LOG.debug("closing the checkpoint connection failed: {}", e.toString());
        }
    }
}
