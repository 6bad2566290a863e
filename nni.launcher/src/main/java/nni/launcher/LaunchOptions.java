package nni.launcher;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The runnable jar's command line:
 *
 * <pre>
 * java -jar nni-osgi.jar [--port N] [--host ADDRESS] [--home DIR] [COMMAND [ARGS...]]
 * </pre>
 *
 * Without a command the runtime starts and runs until stopped (with a Gogo console when a terminal
 * is attached). A command ({@code run <config>}, {@code validate <file>}) is carried out by the
 * runtime, which then stops with the command's exit code.
 *
 * @param port    HTTP port, or {@code null} for the default (8080, or {@code -Dorg.osgi.service.http.port})
 * @param host    address to bind, or {@code null} for the default (127.0.0.1)
 * @param home    the folder holding {@code deploy/}, {@code etc/} and {@code log/}
 * @param command the command and its arguments; empty to just run
 */
public record LaunchOptions(Integer port, String host, Path home, List<String> command) {

    public static final String USAGE = String.join("\n",
            "usage: java -jar nni-osgi.jar [--port N] [--host ADDRESS] [--home DIR] [COMMAND [ARGS...]]",
            "  --port N        HTTP port of the REST API, trial reports and web UI (default 8080)",
            "  --host ADDRESS  address the HTTP port binds to (default 127.0.0.1)",
            "  --home DIR      folder with deploy/ (platform bundles), etc/ (*.cfg) and log/ (default: .)",
            "commands:",
            "  (none)               start the runtime; a Gogo console when a terminal is attached",
            "  run CONFIG           run the experiment in CONFIG to its end, then stop",
            "  validate FILE        check an experiment file and print OK or its problems");

    /**
     * @throws IllegalArgumentException with a message for the user when the line is malformed
     */
    public static LaunchOptions parse(String... args) {
        Integer port = null;
        String host = null;
        Path home = Path.of("").toAbsolutePath();
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
                case "--home" -> home = Path.of(valueOf(args, ++i, arg)).toAbsolutePath();
                default -> {
                    if (arg.startsWith("--port=")) {
                        port = parsePort(arg.substring("--port=".length()));
                    } else if (arg.startsWith("-")) {
                        throw new IllegalArgumentException("unknown option " + arg);
                    } else {
                        command.add(arg);
                    }
                }
            }
        }
        return new LaunchOptions(port, host, home.normalize(), List.copyOf(command));
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
}
