package nni.shell.internal.nnictl;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The process whose pid NNI's tools see as an experiment's manager. nnictl stops an experiment by
 * sending SIGTERM to the registered pid and waiting for it to exit; NNI's Python client sends
 * {@code DELETE /experiment} and then waits for that pid to exit. NNI runs one manager process per
 * experiment; this runtime runs several experiments, so each gets a tiny shell of its own instead of
 * the runtime's pid, which would stop them all.
 *
 * <p>The shell ignores the terminal's signals (INT, QUIT, HUP), answers SIGTERM by printing
 * {@code stop} (the runtime then stops that experiment and only then ends the shell, so that the
 * waiting client returns once the experiment has stopped), and exits when its input closes: when
 * the runtime ends it, or dies. A SIGKILL is taken as a stop request too. It runs in a session of
 * its own where {@code setsid} exists, so that signals to the runtime's process group miss it.
 */
final class PidSentinel implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(PidSentinel.class);
    private static final boolean HAS_SETSID = Files.isExecutable(Path.of("/usr/bin/setsid")) || Files.isExecutable(Path.of("/bin/setsid"));
    /** dash's and bash's {@code read} return 1 after a trapped signal, as on end of input: the flag tells them apart. */
    private static final String SCRIPT = String.join("\n",
            "trap '' INT QUIT HUP",
            "trap 'stopping=1; echo stop' TERM",
            "while :; do",
            "  stopping=",
            "  read -r _ && continue",
            "  [ -n \"$stopping\" ] && continue",
            "  exit 0",
            "done",
            "");

    private final Process process;
    private final AtomicBoolean closing = new AtomicBoolean();

    private PidSentinel(Process process) {
        this.process = process;
    }

    /**
     * @param experimentId  shown in {@code ps} as the process's name, {@code nni-experiment-<id>}
     * @param stopRequested run (on {@code executor}) when someone asks the experiment to stop through
     *                      the pid: SIGTERM, or SIGKILL
     * @param executor      runs the reader of the shell's output
     */
    static PidSentinel start(String experimentId, Runnable stopRequested, Executor executor) throws IOException {
        List<String> command = new ArrayList<>();
        if (HAS_SETSID) {
            command.add("setsid");
        }
        command.addAll(List.of("sh", "-c", SCRIPT, "nni-experiment-" + experimentId));
        Process process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        PidSentinel sentinel = new PidSentinel(process);
        executor.execute(() -> {
            try (BufferedReader lines = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.US_ASCII))) {
                String line;
                while ((line = lines.readLine()) != null) {
                    if (line.equals("stop") && !sentinel.closing.get()) {
                        LOG.info("experiment {}: stop requested through its pid {}", experimentId, process.pid());
                        stopRequested.run();
                    }
                }
            } catch (IOException e) {
                LOG.debug("experiment {}: sentinel output closed", experimentId, e);
            }
        });
        process.onExit().thenRunAsync(() -> {
            if (!sentinel.closing.get()) {
                LOG.info("experiment {}: its pid {} was killed; stopping it", experimentId, process.pid());
                stopRequested.run();
            }
        }, executor);
        return sentinel;
    }

    long pid() {
        return process.pid();
    }

    boolean alive() {
        return process.isAlive();
    }

    /** Ends the process (its input closes) and waits a little for it, so that clients waiting on the pid return. */
    @Override
    public void close() {
        closing.set(true);
        try {
            process.getOutputStream().close();
            if (!process.waitFor(2, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (IOException e) {
            process.destroyForcibly();
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
