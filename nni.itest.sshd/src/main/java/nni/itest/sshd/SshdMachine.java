package nni.itest.sshd;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** One "machine": an sshd on its own loopback address and port. Stop and start it to simulate an outage. */
public final class SshdMachine {

    private static final Duration START_WAIT = Duration.ofSeconds(20);

    private final String host;
    private final int port;
    private final List<String> command;
    private final Path log;
    private final boolean hasJava;
    private Process process;

    /** @param command starts sshd in the foreground (the process is sshd itself, whatever wraps its start) */
    SshdMachine(String host, int port, List<String> command, Path log, boolean hasJava) {
        this.host = host;
        this.port = port;
        this.command = List.copyOf(command);
        this.log = log;
        this.hasJava = hasJava;
    }

    /** @return false for a machine whose logins find no {@code java} on their PATH */
    public boolean hasJava() {
        return hasJava;
    }

    public String host() {
        return host;
    }

    public int port() {
        return port;
    }

    /** Starts sshd and returns once it accepts connections. */
    public synchronized void start() throws IOException {
        if (process != null && process.isAlive()) {
            return;
        }
        process = new ProcessBuilder(command)
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        long deadline = System.nanoTime() + START_WAIT.toNanos();
        while (true) {
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress(host, port), 500);
                return;
            } catch (IOException notYet) {
                if (!process.isAlive()) {
                    throw new IOException("sshd for " + host + ":" + port + " exited with " + process.exitValue() + "; see " + log);
                }
                if (System.nanoTime() > deadline) {
                    throw new IOException("sshd for " + host + ":" + port + " did not accept connections within " + START_WAIT);
                }
                try {
                    process.waitFor(50, TimeUnit.MILLISECONDS); // wakes at once if sshd dies
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IOException("interrupted");
                }
            }
        }
    }

    /** Stops sshd and the sessions it serves (their processes go on running, as on a real outage of the daemon). */
    public synchronized void stop() {
        if (process == null) {
            return;
        }
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
        try {
            process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        process = null;
    }

    @Override
    public String toString() {
        return "sshd " + host + ":" + port;
    }
}
