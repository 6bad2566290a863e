package nni.launcher;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.logging.Level;

/**
 * The runnable jar's command line:
 *
 * <pre>
 * java -jar nni-osgi.jar [--port N] [--host ADDRESS] [--home DIR] [-v] [--log-level L] [COMMAND [ARGS...]]
 * </pre>
 *
 * Without a command the runtime starts and runs until stopped (with a Gogo console when a terminal
 * is attached). A command ({@code run <config>}, {@code validate <file>}) is carried out by the
 * runtime, which then stops with the command's exit code.
 *
 * @param port     HTTP port, or {@code null} for the default (8080, or {@code -Dorg.osgi.service.http.port})
 * @param host     address to bind, or {@code null} for the default (127.0.0.1)
 * @param home     the folder holding {@code deploy/}, {@code etc/} and {@code log/}: {@code --home}, else
 *                 {@code $NNI_OSGI_HOME}, else {@code ~/.nni-osgi}
 * @param command  the command and its arguments; empty to just run
 * @param verbose  whether a command shows the runtime's log on the console too
 * @param logLevel the least level logged (to the log file, and to the console where the log is shown)
 */
public record LaunchOptions(Integer port, String host, Path home, List<String> command, boolean verbose, Level logLevel) {

    /** The environment variable naming the runtime's home when {@code --home} does not. */
    public static final String HOME_VARIABLE = "NNI_OSGI_HOME";
    /** The home's folder in the user's home directory when neither {@code --home} nor the variable names one. */
    public static final String DEFAULT_HOME = ".nni-osgi";

    /** A command of the jar's command line, as the usage text describes it. */
    record Command(String name, String synopsis, List<String> description) {

        /** @return the command's lines in the usage's list of commands: synopsis, then description, aligned */
        String listing() {
            StringBuilder text = new StringBuilder();
            for (int i = 0; i < description.size(); i++) {
                String head = i == 0 ? synopsis : "";
                text.append("  ").append(head).append(" ".repeat(Math.max(1, 22 - head.length()))).append(description.get(i)).append('\n');
            }
            return text.toString();
        }
    }

    /** The commands the launcher knows, in the usage's order: the one source of their help. */
    static final List<Command> COMMANDS = List.of(
            new Command("", "(none)", List.of("start the runtime until stopped; a console when a terminal is attached",
                    "(Ctrl-D or exit there stops the runtime; Ctrl-C interrupts a command)")),
            new Command("run", "run CONFIG", List.of("run the experiment in CONFIG to its end, then stop")),
            new Command("resume", "resume ID", List.of("continue a stopped or crashed experiment to its end")),
            new Command("validate", "validate FILE...", List.of("check experiment files and print OK or their problems",
                    "(in the runtime running with this home, if one runs)")),
            new Command("version", "version", List.of("the versions of the runtime and its platforms")),
            new Command("client", "client [COMMAND ...]", List.of("run one console command (client nni:trials --head 3) in the runtime",
                    "running with this home, else in a quiet one of its own; without a command,",
                    "a console to the running runtime (exit 4 when none runs)")),
            new Command("help", "help [COMMAND]", List.of("this text, or one command's (also COMMAND --help, -h)")));

    /** The options the launcher knows, for "did you mean" (the usage describes them). */
    static final List<String> OPTIONS = List.of("--port", "--host", "--home", "-v", "--verbose", "--log-level", "--help", "-h");

    private static final String SYNOPSIS = "java -jar nni-osgi.jar [--port N] [--host ADDRESS] [--home DIR] [-v] [--log-level LEVEL]";

    public static final String USAGE = String.join("\n",
            "usage: " + SYNOPSIS + " [COMMAND [ARGS...]]",
            "options:",
            "  --port N           the one HTTP port: REST API, trial reports and web UI (default 8080; 0 = any free port)",
            "  --host ADDRESS     address the HTTP port binds to (default 127.0.0.1); beyond loopback the port asks",
            "                     for the login token in <home>/login.token",
            "  --home DIR         the runtime's folder: deploy/ (platform bundles), etc/ (*.cfg, logging.properties),",
            "                     log/ (nni.log, endpoint) (default: $" + HOME_VARIABLE + ", else ~/" + DEFAULT_HOME + ")",
            "  -v, --verbose      a command also shows the runtime's log on the console (it is always in <home>/log/nni.log)",
            "  --log-level LEVEL  critical, error, warning, info (default), debug or trace",
            "  -h, --help         this text",
            "commands:",
            String.join("", COMMANDS.stream().map(Command::listing).toList()).stripTrailing(),
            "exit codes:",
            "  0 done; 1 the experiment ended in ERROR, a file has problems or a command failed; 2 a bad command line,",
            "  experiment file or home; 3 run/resume: stopped before its end; 4 the home or port is in use, a bundle cannot",
            "  resolve or start, an etc/*.cfg value was refused, or (client) no runtime answers;",
            "  5 run/resume: the experiment ended with no trial that succeeded; 117 the runtime stopped itself (a login",
            "  token others may read while the port is bound beyond loopback); 130 interrupted",
            "console commands: help lists them (nni:create, nni:experiments, nni:trials, nni:top, ...); COMMAND --help",
            "describes one");

    /** @return the command of that name, if the launcher knows it */
    static Optional<Command> command(String name) {
        return COMMANDS.stream().filter(command -> !command.name().isEmpty() && command.name().equals(name)).findFirst();
    }

    /** @return one command's help: its usage line and its lines of the usage text */
    static String help(Command command) {
        return "usage: " + SYNOPSIS + " " + command.synopsis() + "\n" + command.listing().stripTrailing()
                + "\n(options: java -jar nni-osgi.jar --help)";
    }

    /**
     * @return the words after the command word ask for the command's help ({@code run --help}, {@code validate -h});
     *         {@code client nni:create --help} asks the console for its command's
     */
    boolean asksForCommandHelp() {
        List<String> asks = List.of("--help", "-h");
        return command.size() >= 2 && (command.get(0).equals("client") ? asks.contains(command.get(1))
                : command.stream().skip(1).anyMatch(asks::contains));
    }

    private static final Map<String, Level> LEVELS = Map.of("critical", Level.SEVERE, "fatal", Level.SEVERE,
            "error", Level.SEVERE, "warning", Level.WARNING, "info", Level.INFO, "debug", Level.FINE,
            "trace", Level.FINEST);

    /** Parses the command line with the process's environment. */
    public static LaunchOptions parse(String... args) {
        return parse(System.getenv(), args);
    }

    /**
     * @param environment where {@code HOME} and {@value #HOME_VARIABLE} are read
     * @throws IllegalArgumentException with a message for the user when the line is malformed
     */
    public static LaunchOptions parse(Map<String, String> environment, String... args) {
        Integer port = null;
        String host = null;
        String home = null;
        boolean verbose = false;
        Level logLevel = Level.INFO;
        List<String> command = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            if (!command.isEmpty()) {
                command.add(arg);
                continue;
            }
            switch (arg) {
                case "--port" -> port = parsePort(valueOf(args, ++i, arg));
                case "--host" -> host = valueOf(args, ++i, arg);
                case "--home" -> home = valueOf(args, ++i, arg);
                case "-v", "--verbose" -> verbose = true;
                case "--log-level" -> logLevel = parseLevel(valueOf(args, ++i, arg));
                case "-h", "--help" -> command.add("help");
                default -> {
                    if (arg.startsWith("--port=")) {
                        port = parsePort(arg.substring("--port=".length()));
                    } else if (arg.startsWith("--home=")) {
                        home = arg.substring("--home=".length());
                    } else if (arg.startsWith("--log-level=")) {
                        logLevel = parseLevel(arg.substring("--log-level=".length()));
                    } else if (arg.startsWith("-")) {
                        throw new IllegalArgumentException("unknown option " + arg + DidYouMean.among(arg, OPTIONS));
                    } else {
                        command.add(arg);
                    }
                }
            }
        }
        return new LaunchOptions(port, host, home(home, environment), List.copyOf(command), verbose, logLevel);
    }

    /** The home: the option, else the environment variable, else {@code ~/.nni-osgi}; {@code ~} is {@code $HOME}. */
    private static Path home(String option, Map<String, String> environment) {
        String userHome = environment.get("HOME");
        if (userHome == null || userHome.isEmpty()) {
            userHome = System.getProperty("user.home");
        }
        String chosen = option;
        if (chosen == null || chosen.isEmpty()) {
            chosen = environment.get(HOME_VARIABLE);
        }
        if (chosen == null || chosen.isEmpty()) {
            return Path.of(userHome, DEFAULT_HOME).toAbsolutePath().normalize();
        }
        if (chosen.equals("~") || chosen.startsWith("~/")) {
            chosen = userHome + chosen.substring(1);
        }
        return Path.of(chosen).toAbsolutePath().normalize();
    }

    private static String valueOf(String[] args, int index, String option) {
        if (index >= args.length) {
            throw new IllegalArgumentException(option + " needs a value");
        }
        return args[index];
    }

    private static int parsePort(String text) {
        try {
            int port = Integer.parseInt(text);
            if (port >= 0 && port <= 65535) {
                return port;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException("--port: expected a port number 0-65535, got \"" + text + "\"");
    }

    private static Level parseLevel(String text) {
        Level level = LEVELS.get(text.toLowerCase(Locale.ROOT));
        if (level == null) {
            throw new IllegalArgumentException("--log-level: expected critical, error, warning, info, debug or trace, got \""
                    + text + "\"");
        }
        return level;
    }
}
