package nni.shell.internal.command;

import java.nio.file.Path;
import java.util.OptionalInt;

import org.apache.felix.service.command.CommandSession;
import org.apache.felix.service.command.Job;

/**
 * What the console's client said about itself, as the console servlet put it into the Gogo session
 * of a line: its working folder (the session's current directory), against which a command's file
 * arguments are resolved, and whether its output is a terminal and how wide. A line run without a
 * client (Gogo's own shell) has the runtime's folder and no terminal.
 */
public final class ClientSide {

    /** The session variable holding the client terminal's width in columns; absent when its output is no terminal. */
    public static final String TERMINAL_COLUMNS = "nni.client.columns";

    private ClientSide() {
    }

    /** @return {@code name} as the client means it: an absolute name as given, a relative one resolved in the client's folder */
    public static Path file(String name) {
        Path given = Path.of(name);
        if (given.isAbsolute()) {
            return given; // as the user wrote it: messages name the file so
        }
        CommandSession session = session();
        Path base = session == null || session.currentDir() == null ? Path.of("").toAbsolutePath() : session.currentDir();
        return base.resolve(given).normalize();
    }

    /** @return the width of the client's terminal, empty when its output is not a terminal */
    static OptionalInt terminalColumns() {
        CommandSession session = session();
        return session != null && session.get(TERMINAL_COLUMNS) instanceof Integer columns ? OptionalInt.of(columns)
                : OptionalInt.empty();
    }

    private static CommandSession session() {
        Job job = Job.Utils.current();
        return job == null ? null : job.session();
    }
}
