package nni.shell.internal.launch;

import java.io.PrintStream;
import java.util.List;

/**
 * A command given on the runnable jar's command line ({@code java -jar nni-osgi.jar validate x.yml}),
 * carried out inside the started runtime by {@link LaunchCommandRunner}. Implementations are DS
 * components registering this interface with the property {@value #NAME}.
 */
public interface LaunchCommand {

    /** Service property: the command word, e.g. {@code run}. */
    String NAME = "nni.launch.command";

    /**
     * Carries out the command. Runs on its own thread; may block until done.
     *
     * @param arguments the words after the command word
     * @return the process exit code (0 = success)
     */
    int execute(List<String> arguments, PrintStream out, PrintStream err) throws Exception;

    /**
     * @return whether the command runs only in a runtime that became ready as its files say; one
     *         that does not ({@code version}) runs anyway, after the reasons on standard error
     */
    default boolean needsReadyRuntime() {
        return true;
    }
}
