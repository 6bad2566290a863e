package nni.itest.launcher;


import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.awaitility.core.ConditionTimeoutException;

/**
 * A command on a real pseudo-terminal, typed into as a user types: {@code pty_relay.py} (python3's
 * pty module) gives the command a terminal; keys sent here arrive there, Tab, Ctrl-C (which the
 * terminal turns into SIGINT) and Ctrl-D included. What the command shows is kept, and a test waits
 * for text to appear after a mark.
 */
final class PtySession implements AutoCloseable {

    static final String TAB = "\t";
    static final String CTRL_C = "\u0003";
    static final String CTRL_D = "\u0004";
    static final String ENTER = "\r";

    private final Process process;
    private final StringBuffer shown = new StringBuffer();
    private int mark;

    private PtySession(Process process) {
        this.process = process;
        Thread reader = new Thread(() -> {
            try (InputStream in = process.getInputStream()) {
                byte[] buffer = new byte[8192];
                for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
                    shown.append(new String(buffer, 0, n, StandardCharsets.UTF_8));
                }
            } catch (IOException e) {
                shown.append("\n[pty read failed: ").append(e.getMessage()).append("]\n");
            }
        }, "pty-reader");
        reader.setDaemon(true);
        reader.start();
    }

    /** Starts {@code java -jar nni-osgi.jar ARGS} on a terminal of its own, in {@code directory}. */
    static PtySession jar(Path directory, Map<String, String> environment, List<String> javaOptions, String... args)
            throws IOException {
        Path relay;
        try {
            relay = Path.of(PtySession.class.getResource("/console/pty_relay.py").toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
        List<String> command = new ArrayList<>(List.of("python3", relay.toString(),
                Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        command.addAll(javaOptions);
        command.addAll(List.of("-jar", System.getProperty("nni.jar")));
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command).directory(directory.toFile()).redirectErrorStream(true);
        builder.environment().remove("NNI_OSGI_HOME");
        builder.environment().putAll(environment);
        builder.environment().put("TERM", "xterm");
        return new PtySession(builder.start());
    }

    void type(String keys) throws IOException {
        process.getOutputStream().write(keys.getBytes(StandardCharsets.UTF_8));
        process.getOutputStream().flush();
    }

    /** Waits until {@code text} is shown after the mark, then moves the mark past it. */
    void await(String text, Duration patience) {
        try {
            org.awaitility.Awaitility.await().atMost(patience).pollInterval(Duration.ofMillis(50)).until(() -> shown.indexOf(text, mark) >= 0);
        } catch (ConditionTimeoutException e) {
            throw new AssertionError("\"" + text + "\" is not on the terminal after " + patience + "; shown since the mark:\n"
                    + sinceMark());
        }
        mark = shown.indexOf(text, mark) + text.length();
    }

    void await(String text) {
        await(text, Duration.ofSeconds(30));
    }

    String sinceMark() {
        return shown.substring(Math.min(mark, shown.length()));
    }

    String shown() {
        return shown.toString();
    }

    boolean alive() {
        return process.isAlive();
    }

    int awaitExit(Duration patience) throws InterruptedException {
        if (!process.waitFor(patience.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new AssertionError("still running after " + patience + "; shown:\n" + shown);
        }
        return process.exitValue();
    }

    @Override
    public void close() throws InterruptedException {
        JarProcess.end(process);
    }
}
