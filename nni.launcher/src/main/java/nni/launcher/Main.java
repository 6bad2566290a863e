package nni.launcher;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.InvocationTargetException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.logging.LogManager;

/**
 * Entry point of the runnable jar. Turns the command line into system properties, which the
 * framework's bundles read when no configuration in {@code etc/} says otherwise, prepares the home
 * folder and logging, then hands over to bnd's embedded launcher, which starts Felix with the
 * bundles of {@code run.bndrun}.
 *
 * <p>Every setting is a system property so that {@code -D} on the java command line still wins.
 */
public final class Main {

    /** The system properties through which the runtime learns what the command line asked for. */
    public static final String HOME = "nni.home";
    public static final String COMMAND = "nni.command";

    private static final String EMBEDDED_LAUNCHER = "aQute.launcher.pre.EmbeddedLauncher";

    private Main() {
    }

    public static void main(String[] args) throws Exception {
        LaunchOptions options;
        try {
            options = LaunchOptions.parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("nni-osgi: " + e.getMessage());
            System.err.println(LaunchOptions.USAGE);
            System.exit(2);
            return;
        }
        if (options.command().size() == 1 && List.of("help", "-h", "--help").contains(options.command().get(0))) {
            System.out.println(LaunchOptions.USAGE);
            return;
        }
        prepare(options);
        try {
            Class.forName(EMBEDDED_LAUNCHER).getMethod("main", String[].class).invoke(null, (Object) new String[0]);
        } catch (InvocationTargetException e) {
            throw e.getCause() instanceof Exception cause ? cause : e;
        }
    }

    static void prepare(LaunchOptions options) throws IOException {
        Path home = options.home();
        for (String folder : List.of("deploy", "etc", "log")) {
            Files.createDirectories(home.resolve(folder));
        }
        setDefault(HOME, home.toString());
        setDefault("felix.fileinstall.dir", home.resolve("deploy") + "," + home.resolve("etc"));
        setDefault("org.osgi.framework.storage", home.resolve("felix-cache").toString());
        if (options.port() != null) {
            System.setProperty("org.osgi.service.http.port", options.port().toString());
        }
        setDefault("org.osgi.service.http.port", "8080");
        if (options.host() != null) {
            System.setProperty("org.apache.felix.http.host", options.host());
        }
        setDefault("org.apache.felix.http.host", "127.0.0.1");
        if (!options.command().isEmpty()) {
            System.setProperty(COMMAND, String.join("\n", options.command()));
        }
        boolean console = options.command().isEmpty() && System.console() != null;
        setDefault("gosh.args", console ? "" : "--nointeractive");
        configureLogging(home);
    }

    /**
     * Log records go to the console and to {@code log/nni.log}, unless {@code etc/logging.properties}
     * or {@code -Djava.util.logging.config.file} says otherwise. SLF4J reaches
     * java.util.logging through slf4j-jdk14 inside the framework.
     */
    private static void configureLogging(Path home) throws IOException {
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
                "handlers=java.util.logging.ConsoleHandler, java.util.logging.FileHandler",
                ".level=INFO",
                "java.util.logging.ConsoleHandler.level=INFO",
                "java.util.logging.FileHandler.level=ALL",
                "java.util.logging.FileHandler.pattern=" + home.resolve("log").resolve("nni.log").toString().replace("\\", "/"),
                "java.util.logging.FileHandler.append=true",
                "java.util.logging.FileHandler.limit=0",
                "java.util.logging.FileHandler.count=1",
                "java.util.logging.FileHandler.formatter=java.util.logging.SimpleFormatter",
                "java.util.logging.SimpleFormatter.format=%1$tF %1$tT.%1$tL %4$-7s [%3$s] %5$s%6$s%n",
                // SPI Fly reports every service provider it registers; only its problems matter here.
                "org.apache.aries.spifly.level=WARNING",
                "");
        LogManager.getLogManager().readConfiguration(new ByteArrayInputStream(config.getBytes(StandardCharsets.ISO_8859_1)));
    }

    private static void setDefault(String key, String value) {
        if (System.getProperty(key) == null) {
            System.setProperty(key, value);
        }
    }
}
