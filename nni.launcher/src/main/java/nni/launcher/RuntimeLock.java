package nni.launcher;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * One runtime per home: an exclusive lock on {@code <home>/runtime.lock}, which holds the pid of
 * the runtime that has it. Two runtimes on one home would share the framework cache, the
 * configurations and the log, and corrupt them.
 *
 * <p>The operating system releases the lock when the process ends, however it ends (kill -9
 * included), so a lock left by a dead runtime is simply taken: there is nothing stale to detect.
 * The file itself stays; its content is only the last holder's pid, for the message a second
 * runtime shows.
 */
final class RuntimeLock {

    static final String FILE = "runtime.lock";

    /** Another runtime holds the home. */
    static final class HeldException extends Exception {
        private static final long serialVersionUID = 1L;
        private final String holder;

        HeldException(String holder) {
            super("held by pid " + holder, null, false, false);
            this.holder = holder;
        }

        /** @return the pid the holder wrote, or {@code "unknown"} when it has not written it yet */
        String holder() {
            return holder;
        }
    }

    private final FileChannel channel;
    private final FileLock lock;

    private RuntimeLock(FileChannel channel, FileLock lock) {
        this.channel = channel;
        this.lock = lock;
    }

    /**
     * Takes the home for this process; hold on to the result for as long as the runtime runs.
     *
     * @throws HeldException when another process holds it
     */
    static RuntimeLock acquire(Path home) throws IOException, HeldException {
        Path file = home.resolve(FILE);
        FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
        try {
            FileLock lock;
            try {
                lock = channel.tryLock();
            } catch (java.nio.channels.OverlappingFileLockException e) {
                throw new HeldException(Long.toString(launcherPid())); // this very process has it
            }
            if (lock == null) {
                throw new HeldException(holder(channel));
            }
            channel.truncate(0);
            channel.write(ByteBuffer.wrap((launcherPid() + "\n").getBytes(StandardCharsets.US_ASCII)), 0);
            channel.force(false);
            return new RuntimeLock(channel, lock);
        } catch (IOException | HeldException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    /**
     * @return whether a runtime runs with this home now: another process holds its lock. Reads
     *         only; a home without the lock file (or without the home) has none, and stays so.
     */
    static boolean heldElsewhere(Path home) throws IOException {
        Path file = home.resolve(FILE);
        if (!java.nio.file.Files.isRegularFile(file)) {
            return false;
        }
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            FileLock shared = channel.tryLock(0, Long.MAX_VALUE, true);
            if (shared == null) {
                return true;
            }
            shared.release();
            return false;
        } catch (java.nio.channels.OverlappingFileLockException e) {
            return false; // this very process holds it: it is the runtime
        }
    }

    /** @return the pid of the process the user started: the launcher's when the runtime runs in its child JVM ({@link JvmRelaunch}) */
    private static long launcherPid() {
        return Long.getLong(JvmRelaunch.LAUNCHER_PID, ProcessHandle.current().pid());
    }

    private static String holder(FileChannel channel) throws IOException {
        ByteBuffer content = ByteBuffer.allocate(32);
        channel.read(content, 0);
        String pid = new String(content.array(), 0, content.position(), StandardCharsets.US_ASCII).strip();
        return pid.matches("[0-9]+") ? pid : "unknown";
    }

    /** Gives the home back (also done by the operating system when the process ends). */
    void release() throws IOException {
        try {
            lock.release();
        } finally {
            channel.close();
        }
    }
}
