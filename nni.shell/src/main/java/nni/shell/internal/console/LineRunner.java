package nni.shell.internal.console;

import java.io.PrintStream;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

import org.apache.felix.service.command.CommandSession;
import org.apache.felix.service.command.Converter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one console line in a Gogo session the way a user expects of a shell: {@code help} lists the
 * commands with their descriptions, {@code COMMAND --help} (or {@code -h}) shows that command's
 * help, a value is printed as Gogo prints it, and a failure is one line saying what went wrong,
 * never an exception's class name. Ctrl-C arrives as an interrupt of the thread that runs the line;
 * the servlet, not this, says "interrupted", once, whether or not the line noticed in time.
 */
final class LineRunner {

    private static final Logger LOG = LoggerFactory.getLogger(LineRunner.class);

    /** What a line ended with: 0 done, 1 failed, 130 interrupted (as a shell reports SIGINT). */
    static final int DONE = 0;
    static final int FAILED = 1;
    static final int INTERRUPTED = 130;

    private final CommandHelp help;

    LineRunner(CommandHelp help) {
        this.help = help;
    }

    /**
     * @param out where the line's output goes
     * @param err where its error message goes
     * @return {@link #DONE}, {@link #FAILED} or {@link #INTERRUPTED}
     */
    int run(CommandSession session, String line, PrintStream out, PrintStream err) {
        String trimmed = line.strip();
        if (trimmed.isEmpty()) {
            return DONE;
        }
        if (trimmed.equals("help")) {
            out.print(help.listing());
            return DONE;
        }
        String[] words = trimmed.split("\\s+");
        String command = words[0];
        if (command.equals("telnetd") || command.equals("gogo:telnetd")) {
            // Gogo's telnet console would let anyone on the machine in without a token
            err.println("the telnet console is not offered: use java -jar nni-osgi.jar client, which asks for the runtime's token");
            return FAILED;
        }
        if (words.length >= 2 && List.of("--help", "-h").contains(words[words.length - 1])) {
            trimmed = "help " + helpName(command);
        } else if (words.length == 2 && command.equals("help")) {
            trimmed = "help " + helpName(words[1]);
        }
        String unknownOption = trimmed.startsWith("help ") ? null : unknownOption(words);
        if (unknownOption != null) {
            err.println(unknownOption);
            return FAILED;
        }
        try {
            Object value = session.execute(trimmed);
            if (value != null) {
                out.println(session.format(value, Converter.INSPECT));
            }
            return DONE;
        } catch (InterruptedException e) {
            return INTERRUPTED;
        } catch (Exception e) {
            if (Thread.currentThread().isInterrupted() || e.getCause() instanceof InterruptedException) {
                return INTERRUPTED;
            }
            err.println(message(command, e));
            return FAILED;
        }
    }

    /**
     * @return what is wrong when one of NNI's commands is given an option it does not have (Gogo
     *         would take it for an argument, and say only that the arguments do not fit), else null
     */
    private String unknownOption(String[] words) {
        String name = helpName(words[0]);
        if (!name.startsWith("nni:") || !help.commands().containsKey(name)) {
            return null;
        }
        Set<String> options = help.options(name);
        // the command's own words end where Gogo's syntax (a pipe, a second command) begins
        for (int i = 1; i < words.length && !words[i].matches(".*[|;].*"); i++) {
            if (words[i].matches("--?[A-Za-z][\\w-]*") && !options.contains(words[i])) {
                String usage = words[0] + " --help shows its usage";
                if (options.isEmpty()) {
                    return words[0] + " has no options, and no " + words[i] + "; " + usage;
                }
                return words[0] + ": unknown option " + words[i] + Suggestions.closest(words[i], options)
                        .map(option -> "; did you mean " + option + "?").orElse("") + " (" + usage + ")";
            }
        }
        return null;
    }

    /** @return the name {@code help} knows a command by: scoped, and nni:import as nni:importdata */
    private String helpName(String command) {
        String name = command;
        if (!name.contains(":")) {
            Map<String, String> commands = help.commands();
            name = commands.containsKey("nni:" + name) ? "nni:" + name
                    : commands.keySet().stream().filter(n -> n.endsWith(":" + command)).findFirst().orElse(name);
        }
        return name.equals("nni:import") ? "nni:importdata" : name;
    }

    /**
     * @return the registered command closest to a mistyped one: as {@code scope:function} when it was
     *         typed with a scope, else by its function name (NNI's and Felix's answer unscoped)
     */
    private Optional<String> suggestion(String command) {
        Set<String> names = new TreeSet<>(List.of("help"));
        for (String name : help.commands().keySet()) {
            if (!name.equals("nni:_import")) {
                names.add(command.contains(":") ? name : name.substring(name.indexOf(':') + 1));
            }
        }
        return Suggestions.closest(command, names);
    }

    /** @return what went wrong, for the user: the exception's message, with Gogo's own failures in words */
    private String message(String command, Exception e) {
        String type = e.getClass().getSimpleName();
        String text = e.getMessage() == null ? "" : e.getMessage();
        if (type.equals("CommandNotFoundException")) {
            return "unknown command: " + command + suggestion(command).map(name -> "; did you mean " + name + "?").orElse("")
                    + " (help lists the commands)";
        }
        if (e instanceof IllegalArgumentException && text.startsWith("Cannot coerce")) {
            return command + ": these arguments do not fit the command; " + command + " --help shows its usage";
        }
        if (text.isBlank()) {
            LOG.warn("console command '{}' failed", command, e);
            return command + " failed (details in the runtime's log)";
        }
        return text;
    }
}
