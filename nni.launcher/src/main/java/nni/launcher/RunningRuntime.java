package nni.launcher;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

/**
 * The runtime already running with a home, used by a command instead of a quiet runtime of its
 * own (which the home's lock would refuse): {@code validate} sends {@code nni:validate} to it
 * through the console ({@link ConsoleConnection}), as {@code client} sends its line.
 */
final class RunningRuntime {

    /** How long a runtime that holds the home may take to answer (it may be starting). */
    private static final long ANSWER_MILLIS = 120_000;
    private static final long LOOK_MILLIS = 200;

    private RunningRuntime() {
    }

    /**
     * @return the console of the runtime running with this home once it answers, or {@code null}
     *         when none runs (none held the home, or the one that did stopped before answering)
     */
    static ConsoleConnection find(Path home) throws IOException, InterruptedException {
        long until = System.nanoTime() + ANSWER_MILLIS * 1_000_000;
        ConsoleConnection.Unreachable last = null;
        while (RuntimeLock.heldElsewhere(home)) {
            try {
                return ConsoleConnection.of(home);
            } catch (ConsoleConnection.Unreachable e) {
                last = e;
            }
            if (System.nanoTime() > until) {
                throw new IOException("the runtime running with the home " + home + " did not answer within "
                        + ANSWER_MILLIS / 1000 + " s: " + last.getMessage());
            }
            // the lock file tells no one when the runtime answers: its endpoint file appears then
            Thread.sleep(LOOK_MILLIS);
        }
        return null;
    }

    /**
     * {@code validate FILE...} in the running runtime: each file made absolute here (the runtime
     * resolves names in its own folder) and named in the verdict as the user gave it.
     *
     * @return 0 when every file is valid, 1 when one is not or cannot be checked, 130 interrupted
     */
    static int validate(ConsoleConnection runtime, List<String> files, PrintStream out, PrintStream err)
            throws InterruptedException {
        int code = 0;
        for (String file : files) {
            String absolute = Path.of(file).toAbsolutePath().normalize().toString();
            ByteArrayOutputStream verdict = new ByteArrayOutputStream();
            ByteArrayOutputStream failure = new ByteArrayOutputStream();
            int ended;
            try {
                ended = runtime.run(Console.line(List.of("nni:validate", absolute)), ConsoleConnection.newRunId(), -1,
                        new PrintStream(verdict, true, StandardCharsets.UTF_8), new PrintStream(failure, true, StandardCharsets.UTF_8));
            } catch (ConsoleConnection.Unreachable | IOException e) {
                err.println("nni-osgi: validate " + file + ": " + (e instanceof IOException io ? Main.describe(io) : e.getMessage()));
                return ConsoleConnection.NO_RUNTIME;
            }
            String text = verdict.toString(StandardCharsets.UTF_8).replace(absolute, file).stripTrailing();
            err.print(failure.toString(StandardCharsets.UTF_8).replace(absolute, file));
            if (ended == 130) {
                return ended;
            }
            boolean ok = ended == 0 && text.startsWith("OK: ");
            if (!text.isEmpty()) {
                (ok ? out : err).println(text);
            }
            if (!ok) {
                code = 1;
            }
        }
        return code;
    }
}
