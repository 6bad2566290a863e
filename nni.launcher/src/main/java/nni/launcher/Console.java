package nni.launcher;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.ConsoleHandler;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;

import org.jline.reader.Candidate;
import org.jline.reader.Completer;
import org.jline.reader.EndOfFileException;
import org.jline.reader.LineReader;
import org.jline.reader.LineReaderBuilder;
import org.jline.reader.ParsedLine;
import org.jline.reader.UserInterruptException;
import org.jline.reader.impl.completer.FileNameCompleter;
import org.jline.terminal.Terminal;
import org.jline.terminal.TerminalBuilder;

/**
 * The console a user types into: {@code java -jar nni-osgi.jar client} in any terminal, and the
 * runtime's own terminal. Lines run in the runtime ({@link ConsoleConnection}); here are line
 * editing, history ({@code <home>/console.history}), Tab completion (commands, experiment and
 * trial ids from the runtime; for other arguments file names of this folder) and Ctrl-C, which interrupts the line
 * that runs ({@code nni:top} returns to the prompt) and never stops a runtime. Ctrl-D or
 * {@code exit} leaves; in the runtime's own terminal that stops the runtime.
 */
final class Console {

    private static final String PROMPT = "nni> ";

    private Console() {
    }

    /**
     * Runs one command line ({@code client nni:trials --head 3}); the runtime resolves its relative
     * file names in this process's folder, which {@link ConsoleConnection#run} tells it.
     *
     * @return the line's end code, or {@link ConsoleConnection#NO_RUNTIME}
     */
    static int runOnce(Path home, List<String> words, PrintStream out, PrintStream err) {
        try {
            ConsoleConnection connection = ConsoleConnection.of(home);
            return connection.run(line(words), ConsoleConnection.newRunId(), terminalColumns(), out, err);
        } catch (ConsoleConnection.Unreachable e) {
            err.println("nni-osgi: " + e.getMessage());
            return ConsoleConnection.NO_RUNTIME;
        } catch (IOException e) {
            err.println("nni-osgi: " + Main.describe(e));
            return ConsoleConnection.NO_RUNTIME;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 130;
        }
    }

    /**
     * The interactive console, until Ctrl-D or {@code exit}.
     *
     * @param ownRuntime the runtime's own terminal: warnings and errors of its log are shown above
     *                   the prompt (the log file keeps everything), and leaving stops the runtime
     * @return 0, or {@link ConsoleConnection#NO_RUNTIME} when no runtime answers
     */
    static int interactive(Path home, boolean ownRuntime) {
        ConsoleConnection connection;
        try {
            connection = ConsoleConnection.of(home);
        } catch (ConsoleConnection.Unreachable e) {
            System.err.println("nni-osgi: " + e.getMessage());
            return ConsoleConnection.NO_RUNTIME;
        }
        try (Terminal terminal = TerminalBuilder.builder().system(true).exec(true).jni(false).jna(false).jansi(false)
                .ffm(false).nativeSignals(true).build()) {
            LineReader reader = LineReaderBuilder.builder().terminal(terminal).appName("nni-osgi")
                    .completer(new RuntimeCompleter(connection))
                    .variable(LineReader.HISTORY_FILE, home.resolve("console.history"))
                    .variable(LineReader.HISTORY_SIZE, 1000)
                    .build();
            AtomicReference<String> running = new AtomicReference<>();
            // Ctrl-C while a line runs interrupts that line; at the prompt the reader clears the line
            terminal.handle(Terminal.Signal.INT, signal -> {
                String runId = running.get();
                if (runId != null) {
                    connection.interrupt(runId);
                }
            });
            if (ownRuntime) {
                showWarningsAbovePrompt(reader);
            }
            PrintStream out = new PrintStream(terminal.output(), true, terminal.encoding());
            out.println("nni-osgi console: help lists the commands, Tab completes, Ctrl-C interrupts a command, "
                    + (ownRuntime ? "Ctrl-D or exit stops the runtime" : "Ctrl-D or exit leaves"));
            while (true) {
                String line;
                try {
                    line = reader.readLine(PROMPT);
                } catch (UserInterruptException e) {
                    continue;
                } catch (EndOfFileException e) {
                    break;
                }
                if (line.isBlank()) {
                    continue;
                }
                if (List.of("exit", "quit", "logout").contains(line.strip())) {
                    break;
                }
                String runId = ConsoleConnection.newRunId();
                running.set(runId);
                try {
                    connection.run(line, runId, "dumb".equals(terminal.getType()) ? -1 : terminal.getWidth(), out, out);
                } catch (ConsoleConnection.Unreachable e) {
                    out.println("nni-osgi: " + e.getMessage());
                    if (!ownRuntime) {
                        return ConsoleConnection.NO_RUNTIME;
                    }
                } finally {
                    running.set(null);
                }
            }
            reader.getHistory().save();
            return 0;
        } catch (IOException e) {
            System.err.println("nni-osgi: the console cannot use this terminal: " + Main.describe(e));
            return 1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 130;
        }
    }

    /** @return the words as one Gogo line, each word quoted when it must be */
    static String line(List<String> words) {
        List<String> quoted = new ArrayList<>();
        for (String word : words) {
            quoted.add(word.isEmpty() || word.matches(".*[\\s\"'|;{}()\\[\\]$<>].*")
                    ? "\"" + word.replace("\\", "\\\\").replace("\"", "\\\"") + "\"" : word);
        }
        return String.join(" ", quoted);
    }

    /**
     * @return the width of the terminal this one-shot client prints on (0 when not known: $COLUMNS
     *         is seldom exported), or -1 when its output goes elsewhere (a pipe, a file)
     */
    private static int terminalColumns() {
        java.io.Console console = System.console();
        if (console == null) {
            return -1;
        }
        try {
            // from Java 22 there is a console even when the output is redirected; isTerminal tells
            if (!(Boolean) java.io.Console.class.getMethod("isTerminal").invoke(console)) {
                return -1;
            }
        } catch (ReflectiveOperationException e) {
            // before Java 22 a console is a terminal
        }
        try {
            return Math.max(0, Integer.parseInt(System.getenv().getOrDefault("COLUMNS", "0").strip()));
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    /** The runtime's log on this terminal: warnings and errors only, printed above the prompt. */
    private static void showWarningsAbovePrompt(LineReader reader) {
        Logger root = Logger.getLogger("");
        for (Handler handler : root.getHandlers()) {
            if (handler instanceof ConsoleHandler) {
                root.removeHandler(handler);
            }
        }
        Handler abovePrompt = new Handler() {
            @Override
            public void publish(LogRecord record) {
                if (isLoggable(record)) {
                    reader.printAbove(getFormatter().format(record).stripTrailing());
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        abovePrompt.setLevel(Level.WARNING);
        abovePrompt.setFormatter(new SimpleFormatter());
        root.addHandler(abovePrompt);
    }

    /** Tab: the runtime's candidates (commands, ids), and this folder's file names for arguments. */
    private static final class RuntimeCompleter implements Completer {
        private final ConsoleConnection connection;
        private final FileNameCompleter files = new FileNameCompleter();

        RuntimeCompleter(ConsoleConnection connection) {
            this.connection = connection;
        }

        @Override
        public void complete(LineReader reader, ParsedLine line, List<Candidate> candidates) {
            String before = line.line().substring(0, line.cursor());
            int offered = candidates.size();
            try {
                for (String candidate : connection.complete(before)) {
                    candidates.add(new Candidate(candidate));
                }
            } catch (ConsoleConnection.Unreachable | IOException e) {
                // nothing to offer from a runtime that does not answer
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            // an argument the runtime has nothing for (a config file, an export's target) is a file name here
            if (line.wordIndex() > 0 && candidates.size() == offered) {
                files.complete(reader, line, candidates);
            }
        }
    }
}
