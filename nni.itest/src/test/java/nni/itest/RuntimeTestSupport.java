package nni.itest;

import static org.ops4j.pax.exam.CoreOptions.bundle;
import static org.ops4j.pax.exam.CoreOptions.composite;
import static org.ops4j.pax.exam.CoreOptions.frameworkProperty;
import static org.ops4j.pax.exam.CoreOptions.junitBundles;
import static org.ops4j.pax.exam.CoreOptions.mavenBundle;
import static org.ops4j.pax.exam.CoreOptions.systemProperty;
import static org.ops4j.pax.exam.CoreOptions.when;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import javax.inject.Inject;

import org.apache.felix.service.command.CommandProcessor;
import org.apache.felix.service.command.CommandSession;
import org.ops4j.pax.exam.Option;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceReference;

/**
 * What every integration test boots: the runtime's bundles in Felix, HTTP on a free port, the
 * reactor's own bundles from their target folders. Subclasses add options through
 * {@link #additionalOptions()}.
 */
public abstract class RuntimeTestSupport {

    @Inject
    protected BundleContext context;

    /** @return the path of a reactor bundle's jar, e.g. {@code nni.api.testkit} */
    public static String reactorBundle(String artifactId) {
        return Path.of(System.getProperty("nni.bundles.dir"), artifactId, "target",
                artifactId + "-" + System.getProperty("nni.version") + ".jar").toUri().toString();
    }

    /** @return the path of the example platform's jar ({@code examples/echo-platform}), a bundle the tests install and remove */
    public static String echoPlatformBundle() {
        return Path.of(System.getProperty("nni.bundles.dir"), "examples", "echo-platform", "target",
                "nni.example.echo-" + System.getProperty("nni.version") + ".jar").toUri().toString();
    }

    protected Option baseOptions() {
        return composite(runtime(httpPort()), additionalOptions());
    }

    /**
     * @param httpPort the HTTP port, "0" for a free one
     * @return the runtime's bundles and settings without a test class's additions; static for test
     *         classes with another base class (the conformance kit's)
     */
    public static Option runtime(String httpPort) {
        return composite(
                frameworkProperty("org.osgi.service.http.port").value(httpPort),
                frameworkProperty("org.apache.felix.http.host").value("127.0.0.1"),
                // as in run.bndrun: lets nni.web's HTTP limits see each request's connection (JettyLimits)
                frameworkProperty("org.apache.felix.proxy.load.balancer.connection.enable").value("true"),
                systemProperty("nni.bundles.dir").value(System.getProperty("nni.bundles.dir")),
                systemProperty("nni.version").value(System.getProperty("nni.version")),
                systemProperty("nni.itest.scratch").value(System.getProperty("nni.itest.scratch")),
                when(System.getProperty("java.util.logging.config.file") != null).useOptions(
                        systemProperty("java.util.logging.config.file").value(System.getProperty("java.util.logging.config.file"))),
                mavenBundle("org.slf4j", "slf4j-api").versionAsInProject().startLevel(2),
                mavenBundle("org.slf4j", "slf4j-jdk14").versionAsInProject().startLevel(2),
                mavenBundle("org.apache.aries.spifly", "org.apache.aries.spifly.dynamic.framework.extension").versionAsInProject(),
                mavenBundle("org.osgi", "org.osgi.util.function").versionAsInProject(),
                mavenBundle("org.osgi", "org.osgi.util.promise").versionAsInProject(),
                mavenBundle("org.osgi", "org.osgi.service.component").versionAsInProject(),
                mavenBundle("org.apache.felix", "org.apache.felix.scr").versionAsInProject(),
                mavenBundle("org.apache.felix", "org.apache.felix.configadmin").versionAsInProject(),
                mavenBundle("org.apache.felix", "org.apache.felix.gogo.runtime").versionAsInProject(),
                mavenBundle("org.apache.felix", "org.apache.felix.gogo.command").versionAsInProject(),
                mavenBundle("org.apache.felix", "org.apache.felix.http.servlet-api").versionAsInProject(),
                mavenBundle("commons-fileupload", "commons-fileupload").versionAsInProject(),
                mavenBundle("commons-io", "commons-io").versionAsInProject(),
                mavenBundle("org.apache.felix", "org.apache.felix.http.jetty12").versionAsInProject(),
                mavenBundle("com.fasterxml.jackson.core", "jackson-core").versionAsInProject(),
                mavenBundle("com.fasterxml.jackson.core", "jackson-annotations").versionAsInProject(),
                mavenBundle("com.fasterxml.jackson.core", "jackson-databind").versionAsInProject(),
                mavenBundle("org.yaml", "snakeyaml").versionAsInProject(),
                mavenBundle("org.xerial", "sqlite-jdbc").versionAsInProject(),
                mavenBundle("com.github.mwiede", "jsch").versionAsInProject(),
                bundle(reactorBundle("nni.api")),
                bundle(reactorBundle("nni.http")),
                // the engine's SQLite store, a library of the manager's
                bundle(reactorBundle("nni.store")),
                // the engine's reading of experiment files, a library of the manager's
                bundle(reactorBundle("nni.config")),
                bundle(reactorBundle("nni.manager")),
                // the checks of etc/ configurations (ConfigurationRefusals, which the launch commands read) and of deploy/ jars
                bundle(reactorBundle("nni.runtime")),
                // NNI's v1 experiment files, converted to v2 for the manager (a ConfigFormat service)
                bundle(reactorBundle("nni.config.v1")),
                bundle(reactorBundle("nni.keeper")),
                bundle(reactorBundle("nni.web")),
                // the web UI's pages and its JSON routes (EndedExperimentsIT reads the experiments list there)
                bundle(reactorBundle("nni.ui")),
                // the Gogo commands, the nnictl registry and the log files the tests read
                bundle(reactorBundle("nni.shell")),
                bundle(reactorBundle("nni.ts.local")),
                junitBundles(),
                mavenBundle("org.awaitility", "awaitility").versionAsInProject(),
                mavenBundle("org.hamcrest", "hamcrest").versionAsInProject());
    }

    /**
     * @return a new empty folder below the build's {@code target/scratch} (failsafe's
     *         {@code nni.itest.scratch}): what a test writes stays with the build, never in /tmp
     */
    public static Path scratch(String prefix) throws IOException {
        Path root = Files.createDirectories(Path.of(System.getProperty("nni.itest.scratch")));
        return Files.createTempDirectory(root, prefix);
    }

    /**
     * @return the folder {@code code} below the test class's {@code nni.it.root} (a framework
     *         property the class sets), made if it is missing: where a test writes its trial code
     */
    protected Path codeFolder() throws IOException {
        return Files.createDirectories(Path.of(context.getProperty("nni.it.root")).resolve("code"));
    }

    /**
     * Writes a local experiment into a code folder: its trial script {@code trial.sh}, which each
     * trial runs with bash, and its config file, with every trial running at once
     * ({@code trialConcurrency} as {@code maxTrialNumber}).
     *
     * @param searchSpace          the search space's one line, e.g. {@code x: {_type: choice, _value: [1, 2]}}
     * @param trainingServiceLines settings of the local platform beside {@code platform: local}
     * @return the config file, for {@code nni:create}
     */
    protected static Path localExperiment(Path code, String trialScript, String searchSpace, int trials, String tuner,
                                          String... trainingServiceLines) throws IOException {
        Files.writeString(code.resolve("trial.sh"), trialScript);
        StringBuilder config = new StringBuilder("""
                searchSpace:
                  %s
                trialCommand: bash trial.sh
                trialCodeDirectory: .
                trialConcurrency: %d
                maxTrialNumber: %d
                tuner:
                  name: %s
                trainingService:
                  platform: local
                """.formatted(searchSpace, trials, trials, tuner));
        for (String line : trainingServiceLines) {
            config.append("  ").append(line).append('\n');
        }
        return Files.writeString(code.resolve("config.yml"), config);
    }

    /** @return the HTTP port the runtime listens on; "0" picks a free one */
    protected String httpPort() {
        return "0";
    }

    /** @return options a test class adds to the base set */
    protected Option additionalOptions() {
        return composite();
    }

    /** @return {@code http://127.0.0.1:<port>/} of the runtime's one HTTP endpoint */
    protected URI endpoint() {
        try {
            var refs = context.getServiceReferences((String) null, "(osgi.http.endpoint=*)");
            if (refs == null || refs.length == 0) {
                throw new IllegalStateException("no HTTP runtime service");
            }
            Object endpoint = refs[0].getProperty("osgi.http.endpoint");
            String first = endpoint instanceof String[] all ? all[0] : endpoint.toString();
            return URI.create(first.endsWith("/") ? first : first + "/");
        } catch (org.osgi.framework.InvalidSyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * One client for every GET of the tests: a client per request would keep its connection open
     * until it is collected, and a test polling for minutes would reach the manager's limit of
     * connections per address (then its next request is closed unanswered).
     */
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    /**
     * @return status code and body of a GET below the endpoint; a loaded machine may take many
     *         seconds to answer (a check-status of a runtime just started took over 10 s at load 55)
     */
    protected HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return HTTP.send(HttpRequest.newBuilder(endpoint().resolve(path)).timeout(Duration.ofSeconds(60)).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /**
     * Runs a Gogo command line in a fresh session, as a user at the console would.
     *
     * @return the value the line evaluates to or, when it has none, what it printed
     */
    protected Object command(String line) throws Exception {
        Ran ran = run(line);
        return ran.value() != null ? ran.value() : ran.printed();
    }

    /** @return what a Gogo command line printed, whatever its value (as {@code type}, which prints and returns true) */
    protected String printed(String line) throws Exception {
        return run(line).printed();
    }

    private record Ran(Object value, String printed) {
    }

    private Ran run(String line) throws Exception {
        CommandProcessor processor = service(CommandProcessor.class, null);
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(printed, true, StandardCharsets.UTF_8);
        CommandSession session = processor.createSession(System.in, out, out);
        try {
            Object value = session.execute(line);
            return new Ran(value, printed.toString(StandardCharsets.UTF_8));
        } finally {
            session.close();
        }
    }

    protected <S> S service(Class<S> type, String filter) throws Exception {
        var refs = context.getServiceReferences(type, filter);
        if (refs.isEmpty()) {
            return null;
        }
        ServiceReference<S> ref = refs.iterator().next();
        return context.getService(ref);
    }

    protected static byte[] readAll(InputStream in) throws IOException {
        try (in) {
            return in.readAllBytes();
        }
    }
}
