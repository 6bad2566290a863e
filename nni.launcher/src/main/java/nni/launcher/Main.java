package nni.launcher;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.logging.Level;
import java.util.logging.LogManager;
import java.util.stream.Stream;

/**
 * Entry point of the runnable jar. What needs no runtime of its own is answered at once, before
 * any framework or JVM of its own starts ({@link #answerWithoutFramework}: help, version, typos,
 * and validate or client when a runtime runs with the home). Otherwise it turns the command line into system properties, which the
 * framework's bundles read when no configuration in {@code etc/} says otherwise, takes the home
 * folder (one runtime per home), prepares logging, then starts Felix with the bundles of
 * {@code run.bndrun} ({@link RuntimeFramework}), keeping the framework cache between starts.
 *
 * <p>Every setting is a system property so that {@code -D} on the java command line still wins.
 * What cannot work is refused before the framework starts, with one line and a non-zero exit:
 * 2 for an unusable home or option, 4 when the home or the port is taken (3 is a {@code run} stopped early);
 * 4 too when a bundle of the runtime cannot resolve or start ({@link RuntimeFramework}).
 */
public final class Main {

    /** The system properties through which the runtime learns what the command line asked for. */
    public static final String HOME = "nni.home";
    public static final String COMMAND = "nni.command";

    static final int EXIT_USAGE = 2;
    static final int EXIT_TAKEN = 4;
    /** A bundle of the runtime cannot resolve or start: as with a taken home or port, the runtime cannot serve. */
    static final int EXIT_UNUSABLE = 4;

    private static final String PORT = "org.osgi.service.http.port";
    private static final String HOST = "org.apache.felix.http.host";

    /** Held for the life of the process: the home is this runtime's alone. */
    private static RuntimeLock lock;

    /** The runtime cannot start as asked; the message is one line for the user. */
    static final class Refused extends Exception {
        private static final long serialVersionUID = 1L;
        private final int exitCode;

        Refused(int exitCode, String message) {
            super(message, null, false, false);
            this.exitCode = exitCode;
        }

        int exitCode() {
            return exitCode;
        }
    }

    private Main() {
    }

    public static void main(String[] args) throws Exception {
        LaunchOptions options;
        try {
            options = LaunchOptions.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("nni-osgi: " + e.getMessage());
            System.err.println(LaunchOptions.USAGE.lines().findFirst().orElseThrow() + "\n(java -jar nni-osgi.jar --help describes them)");
            System.exit(EXIT_USAGE);
            return;
        }
        int answered;
        try {
            answered = answerWithoutFramework(options);
        } catch (IOException e) {
            System.err.println("nni-osgi: " + describe(e));
            answered = ConsoleConnection.NO_RUNTIME;
        }
        if (answered != NOT_ANSWERED) {
            System.exit(answered);
            return;
        }
        if (JvmRelaunch.wanted(System.getenv())) {
            System.exit(JvmRelaunch.run(options.home(), System.getenv(), args));
            return;
        }
        JvmRelaunch.followLauncher();
        try {
            prepare(options);
        } catch (Refused e) {
            System.err.println("nni-osgi: " + e.getMessage());
            System.exit(e.exitCode());
            return;
        }
        if (options.command().isEmpty() && System.console() != null) {
            startOwnConsole(options.home());
        }
        System.exit(RuntimeFramework.run(Path.of(System.getProperty("org.osgi.framework.storage"))));
    }

    /** {@link #answerWithoutFramework}: the command needs a runtime of its own. */
    private static final int NOT_ANSWERED = -1;

    /**
     * Answers what needs no framework of this process's own, at once: help, a command's help, an
     * unknown command, {@code version}; {@code client} and {@code validate} when a runtime runs
     * with the home (its console answers them). Nothing is written to the home.
     *
     * @return the exit code, or {@link #NOT_ANSWERED} when this process must start the runtime
     */
    static int answerWithoutFramework(LaunchOptions options) throws IOException, InterruptedException {
        List<String> command = options.command();
        if (command.isEmpty()) {
            return NOT_ANSWERED;
        }
        String name = command.get(0);
        if (name.equals("help")) {
            if (command.size() == 1) {
                System.out.println(LaunchOptions.USAGE);
                return 0;
            }
            Optional<LaunchOptions.Command> described = LaunchOptions.command(command.get(1));
            if (described.isEmpty()) {
                return unknownCommand(command.get(1));
            }
            System.out.println(LaunchOptions.help(described.get()));
            return 0;
        }
        Optional<LaunchOptions.Command> known = LaunchOptions.command(name);
        if (known.isEmpty()) {
            return unknownCommand(name);
        }
        if (options.asksForCommandHelp()) {
            System.out.println(LaunchOptions.help(known.get()));
            return 0;
        }
        switch (name) {
            case "version" -> {
                return Versions.print(options.home(), System.out, System.err);
            }
            case "client" -> {
                // a console to a runtime that runs already; a line without one runs in a quiet runtime of its own
                List<String> line = command.subList(1, command.size());
                if (line.isEmpty()) {
                    return RunningRuntime.find(options.home()) == null ? noRuntimeForAConsole(options.home())
                            : Console.interactive(options.home(), false);
                }
                // one that is starting answers once its console is up; what a killed one left (log/endpoint) is no runtime
                return RunningRuntime.find(options.home()) == null ? NOT_ANSWERED
                        : Console.runOnce(options.home(), line, System.out, System.err);
            }
            case "validate" -> {
                if (command.size() == 1) {
                    System.err.println("usage: validate <experiment file>...");
                    return EXIT_USAGE;
                }
                ConsoleConnection running = RunningRuntime.find(options.home());
                return running == null ? NOT_ANSWERED
                        : RunningRuntime.validate(running, command.subList(1, command.size()), System.out, System.err);
            }
            default -> {
                return NOT_ANSWERED;
            }
        }
    }

    /**
     * {@code client} alone asks for a console to a running runtime: without one there is nothing to
     * connect to (a quiet runtime of its own would stop as the session ends), so it says so and how
     * to go on, and exits as a client whose runtime does not answer.
     */
    private static int noRuntimeForAConsole(Path home) {
        System.err.println("nni-osgi: client: no runtime is running with the home " + home + ", so there is no console to connect to;"
                + " start one (java -jar nni-osgi.jar --home " + home + ") and run client again, or give client one command to run"
                + " in a quiet runtime of its own (client nni:platforms)");
        System.err.println(LaunchOptions.help(LaunchOptions.command("client").orElseThrow()));
        return ConsoleConnection.NO_RUNTIME;
    }

    private static int unknownCommand(String name) {
        System.err.println("nni-osgi: unknown command '" + name + "'" + DidYouMean.among(name,
                LaunchOptions.COMMANDS.stream().map(LaunchOptions.Command::name).toList()) + " (java -jar nni-osgi.jar help lists them)");
        return EXIT_USAGE;
    }

    /**
     * The runtime's own terminal gets the console ({@link Console}) once the runtime answers: its
     * port is in {@code log/endpoint} and its console token in {@code console.token} (both removed
     * at start, so that only this runtime's count). Leaving it stops the runtime.
     */
    private static void startOwnConsole(Path home) {
        Thread console = new Thread(() -> {
            Path endpoint = home.resolve("log").resolve("endpoint");
            Path token = home.resolve("console.token");
            // bounded: a runtime that never answers leaves its terminal without a console
            for (int waited = 0; waited < CONSOLE_WAIT_MILLIS && !(Files.exists(endpoint) && Files.exists(token)); waited += 100) {
                try {
                    Thread.sleep(100);
                } catch (InterruptedException e) {
                    return;
                }
            }
            if (Console.interactive(home, true) == 0) {
                System.exit(0); // the framework stops in the launcher's shutdown hook; trials are detached
            }
        }, "nni-console");
        console.setDaemon(true);
        console.start();
    }

    private static final int CONSOLE_WAIT_MILLIS = 300_000;

    static void prepare(LaunchOptions options) throws Refused, IOException {
        Path home = options.home();
        try {
            for (String folder : List.of("deploy", "etc", "log", "tmp")) {
                Files.createDirectories(home.resolve(folder));
            }
            lock = RuntimeLock.acquire(home);
        } catch (RuntimeLock.HeldException e) {
            throw new Refused(EXIT_TAKEN, "the home " + home + " is in use by another runtime (pid " + e.holder()
                    + "); stop that one, or give this one another --home");
        } catch (IOException e) {
            throw new Refused(EXIT_USAGE, "cannot use " + home + " as the runtime's home: " + describe(e));
        }
        Path temporary = home.resolve("tmp");
        clear(temporary);
        // what a killed runtime left: the console finds this runtime by these once it answers
        Files.deleteIfExists(home.resolve("log").resolve("endpoint"));
        Files.deleteIfExists(home.resolve("console.token"));
        // the JVM always sets java.io.tmpdir (to /tmp): only a -D on the command line is the user's choice
        if (ManagementFactory.getRuntimeMXBean().getInputArguments().stream().noneMatch(a -> a.startsWith("-Djava.io.tmpdir="))) {
            System.setProperty("java.io.tmpdir", temporary.toString());
        }
        // sqlite-jdbc unpacks its native library here, where the next start removes what a killed runtime left
        setDefault("org.sqlite.tmpdir", temporary.toString());
        setDefault(HOME, home.toString());
        setDefault("felix.fileinstall.dir", home.resolve("deploy") + "," + home.resolve("etc"));
        setDefault("org.osgi.framework.storage", home.resolve("felix-cache").toString());
        // the framework cache is kept between starts, Config Admin's copy of the configurations is not:
        // etc/ is where they live, and a configuration whose file went while the runtime was down goes with it
        setDefault("felix.cm.dir", temporary.resolve("configurations").toString());
        if (options.port() != null) {
            System.setProperty(PORT, options.port().toString());
        }
        setDefault(PORT, "8080");
        if (options.host() != null) {
            System.setProperty(HOST, options.host());
        }
        setDefault(HOST, "127.0.0.1");
        if (!options.command().isEmpty()) {
            List<String> command = options.command();
            // client's line runs in this quiet runtime's console as one line, file names made absolute as for a running one
            System.setProperty(COMMAND, command.get(0).equals("client") ? "client\n" + Console.line(command.subList(1, command.size()))
                    : String.join("\n", command));
        }
        // Gogo's own shell runs lines given with -Dgosh.args only: the console is nni.launcher.Console
        setDefault("gosh.args", "--nointeractive");
        requireFreePort(home);
        // the runtime started without a command shows its warnings and its web UI's address, not every start-up line
        Level console = options.verbose() ? options.logLevel() : options.command().isEmpty() ? Level.WARNING : null;
        configureLogging(home, options.logLevel(), console);
        if (console == null) {
            ConsoleCapture.install();
        }
    }

    /**
     * Refuses to start when the HTTP port is taken: Felix HTTP would log the failure and carry on
     * without a port, and nothing (nnictl, trial keepers, the REST API) could reach the runtime.
     * The port is the one Jetty will use: {@code etc/org.apache.felix.http.cfg}, else the property.
     */
    private static void requireFreePort(Path home) throws Refused {
        Properties http = new Properties();
        Path file = home.resolve("etc").resolve("org.apache.felix.http.cfg");
        if (Files.isRegularFile(file)) {
            try (Reader reader = Files.newBufferedReader(file, StandardCharsets.ISO_8859_1)) {
                http.load(reader);
            } catch (IOException | IllegalArgumentException e) {
                // Config Admin reports a broken file; the port is checked with the properties
            }
        }
        String portText = http.getProperty(PORT, System.getProperty(PORT)).strip();
        String host = http.getProperty(HOST, System.getProperty(HOST)).strip();
        int port;
        try {
            port = Integer.parseInt(portText);
        } catch (NumberFormatException e) {
            throw new Refused(EXIT_USAGE, PORT + ": expected a port number 0-65535, got \"" + portText + "\"");
        }
        if (port <= 0) {
            return;
        }
        InetAddress address;
        try {
            address = InetAddress.getByName(host);
        } catch (UnknownHostException e) {
            throw new Refused(EXIT_USAGE, "--host: unknown host \"" + host + "\"");
        }
        try (ServerSocket probe = new ServerSocket()) {
            probe.setReuseAddress(true);
            probe.bind(new InetSocketAddress(address, port));
        } catch (IOException e) {
            throw new Refused(EXIT_TAKEN, "port " + port + " on " + host + " is in use (" + describe(e)
                    + "); stop what uses it, or choose another with --port");
        }
    }

    /** Empties the runtime's temporary folder: it is this runtime's alone, and what is there was left by a killed one. */
    private static void clear(Path folder) {
        try (Stream<Path> walk = Files.walk(folder)) {
            walk.sorted(Comparator.reverseOrder()).filter(path -> !path.equals(folder)).forEach(path -> {
                try {
                    Files.deleteIfExists(path);
                } catch (IOException e) {
                    // best effort: a file we cannot remove does no harm
                }
            });
        } catch (IOException e) {
            // best effort
        }
    }

    /** @return what went wrong, in words: no exception class names */
    static String describe(IOException e) {
        if (e instanceof FileSystemException failed) {
            String what = failed.getFile() == null ? "" : failed.getFile();
            if (failed instanceof FileAlreadyExistsException) {
                return what + " exists and is not a directory";
            }
            if (failed instanceof AccessDeniedException) {
                return "permission denied: " + what;
            }
            if (failed instanceof NoSuchFileException) {
                return "no such file or directory: " + what;
            }
            String reason = failed.getReason();
            return (reason == null ? "cannot be used" : reason.substring(0, 1).toLowerCase() + reason.substring(1)) + ": " + what;
        }
        String message = e.getMessage();
        if (message == null || message.isBlank()) {
            return "input/output error";
        }
        return message.substring(0, 1).toLowerCase() + message.substring(1);
    }

    /**
     * Log records go to {@code log/nni.log}, and to the console from {@code consoleLevel} on (with
     * {@code -v} as to the file; without, the runtime's warnings when it runs without a command, nothing
     * while a one-shot command runs); {@code etc/logging.properties} or {@code -Djava.util.logging.config.file}
     * replace this. SLF4J reaches java.util.logging through slf4j-jdk14 inside the framework.
     *
     * @param consoleLevel the least level shown on the console, or {@code null} for none
     */
    private static void configureLogging(Path home, Level level, Level consoleLevel) throws IOException {
        boolean console = consoleLevel != null;
        if (System.getProperty("java.util.logging.config.file") != null) {
            return;
        }
        Path custom = home.resolve("etc").resolve("logging.properties");
        if (Files.isRegularFile(custom)) {
            try (InputStream in = Files.newInputStream(custom)) {
                LogManager.getLogManager().readConfiguration(in);
            }
            return;
        }
        String config = String.join("\n",
                "handlers=" + (console ? "java.util.logging.ConsoleHandler, " : "") + "java.util.logging.FileHandler",
                ".level=" + level.getName(),
                "java.util.logging.ConsoleHandler.level=" + (console ? consoleLevel : level).getName(),
                "java.util.logging.FileHandler.level=ALL",
                "java.util.logging.FileHandler.pattern=" + home.resolve("log").resolve("nni.log").toString()
                        .replace("\\", "/").replace("%", "%%"),
                "java.util.logging.FileHandler.append=true",
                "java.util.logging.FileHandler.limit=0",
                "java.util.logging.FileHandler.count=1",
                "java.util.logging.FileHandler.formatter=java.util.logging.SimpleFormatter",
                "java.util.logging.SimpleFormatter.format=%1$tF %1$tT.%1$tL %4$-7s [%3$s] %5$s%6$s%n",
                // SPI Fly reports every service provider it registers; only its problems matter here.
                "org.apache.aries.spifly.level=WARNING",
                "");
        // Properties files are ISO 8859-1 with \\uXXXX escapes; a home with other characters needs them escaped
        StringBuilder escaped = new StringBuilder();
        config.chars().forEach(c -> escaped.append(c < 0x80 ? String.valueOf((char) c) : String.format("\\u%04x", c)));
        LogManager.getLogManager().readConfiguration(new ByteArrayInputStream(escaped.toString().getBytes(StandardCharsets.ISO_8859_1)));
    }

    private static void setDefault(String key, String value) {
        if (System.getProperty(key) == null) {
            System.setProperty(key, value);
        }
    }
}
