package nni.itest.launcher;

import static org.awaitility.Awaitility.await;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.After;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * Issue 28 item 3 and issue 29 item 2: help, a command's help, version and a typo are answered
 * without starting the OSGi framework (the home they name is never made: no lock, no log, no
 * framework cache); validate and client use the runtime already running with the home instead
 * of being refused; and the runtime started without a command shows its web UI's address, not
 * the log's start-up lines.
 */
public class InstantCommandsIT {

    @Rule
    public TemporaryFolder folder = new TemporaryFolder();

    private RuntimeProcess runtime;

    @After
    public void stop() throws Exception {
        if (runtime != null) {
            runtime.close();
        }
    }

    private static final String CONFIG = """
            searchSpace: {x: {_type: choice, _value: [1, 2]}}
            trialCommand: python3 trial.py
            trialConcurrency: 1
            tuner: {name: TPE}
            trainingService: {platform: %s}
            """;

    @Test(timeout = 120_000)
    public void helpCommandHelpAndVersionStartNoFramework() throws Exception {
        Path userHome = folder.newFolder("user").toPath();
        Path home = userHome.resolve("runtime");
        Map<String, String> environment = Map.of("HOME", userHome.toString());
        Path outputs = folder.newFolder("out").toPath();
        for (String asks : List.of("help", "--help", "-h")) {
            JarProcess.Result help = JarProcess.run(userHome, environment, outputs, "--home", home.toString(), asks);
            assertEquals(asks + ": " + help, 0, help.code());
            assertTrue(asks + ": " + help.out(), help.out().startsWith("usage: java -jar nni-osgi.jar")
                    && help.out().contains("validate FILE...") && help.out().contains("exit codes:"));
        }
        for (List<String> asks : List.of(List.of("run", "--help"), List.of("run", "config.yml", "-h"), List.of("help", "run"))) {
            JarProcess.Result help = JarProcess.run(userHome, environment, outputs, arguments(home, asks));
            assertEquals(asks + ": " + help, 0, help.code());
            assertTrue(asks + ": " + help.out(), help.out().contains("run CONFIG") && help.out().contains("run the experiment in CONFIG"));
            assertFalse(asks + ": " + help.out(), help.out().contains("validate FILE"));
        }
        JarProcess.Result validateHelp = JarProcess.run(userHome, environment, outputs, "--home", home.toString(), "validate", "-h");
        assertEquals(0, validateHelp.code());
        assertTrue(validateHelp.out(), validateHelp.out().contains("check experiment files"));

        JarProcess.Result version = JarProcess.run(userHome, environment, outputs, "--home", home.toString(), "version");
        assertEquals(version.toString(), 0, version.code());
        assertEquals("", version.err());
        assertTrue(version.out(), version.out().contains("manager: ") && version.out().contains("framework: org.apache.felix.framework ")
                && version.out().contains("java: " + System.getProperty("java.version")));
        assertTrue(version.out(), version.out().contains("platforms: adl, aml, dlc, dlts, frameworkcontroller, kubeflow, local, openpai, remote\n"));

        // client alone wants a running runtime's console: without one it says so and how to go on
        JarProcess.Result console = JarProcess.run(userHome, environment, outputs, "--home", home.toString(), "client");
        assertEquals(console.toString(), 4, console.code());
        assertEquals("", console.out());
        assertTrue(console.err(), console.err().startsWith("nni-osgi: client: no runtime is running with the home " + home));
        assertTrue(console.err(), console.err().contains("give client one command to run in a quiet runtime of its own")
                && console.err().contains("usage: java -jar nni-osgi.jar") && console.err().contains("client [COMMAND ...]"));

        // no runtime ran: the home (its lock, log, framework cache, JVM archive) was never made
        assertFalse(Files.exists(home));
        assertFalse(Files.exists(userHome.resolve(".nni-osgi")));
    }

    @Test(timeout = 120_000)
    public void aTypoIsRefusedWithTheNearestCommandOrOption() throws Exception {
        Path userHome = folder.newFolder("user").toPath();
        Path home = userHome.resolve("runtime");
        Map<String, String> environment = Map.of("HOME", userHome.toString());
        Path outputs = folder.newFolder("out").toPath();

        JarProcess.Result command = JarProcess.run(userHome, environment, outputs, "--home", home.toString(), "valdiate", "x.yml");
        assertEquals(command.toString(), 2, command.code());
        assertEquals("", command.out());
        assertTrue(command.err(), command.err().startsWith("nni-osgi: unknown command 'valdiate'; did you mean validate?"));

        JarProcess.Result option = JarProcess.run(userHome, environment, outputs, "--home", home.toString(), "--prot", "0", "version");
        assertEquals(option.toString(), 2, option.code());
        assertTrue(option.err(), option.err().startsWith("nni-osgi: unknown option --prot; did you mean --port?"));

        JarProcess.Result far = JarProcess.run(userHome, environment, outputs, "--home", home.toString(), "frobnicate");
        assertEquals(far.toString(), 2, far.code());
        assertTrue(far.err(), far.err().startsWith("nni-osgi: unknown command 'frobnicate' (java -jar nni-osgi.jar help lists them)"));

        assertFalse(Files.exists(home));
    }

    @Test(timeout = 240_000)
    public void validateAndClientUseTheRuntimeRunningWithTheHome() throws Exception {
        Path home = folder.newFolder("home").toPath();
        Path project = folder.newFolder("project").toPath();
        Files.writeString(project.resolve("good.yml"), CONFIG.formatted("local"));
        Files.writeString(project.resolve("typo.yml"), CONFIG.formatted("lokal"));
        Map<String, String> environment = Map.of("HOME", folder.getRoot().toString());
        Path outputs = folder.newFolder("out").toPath();
        runtime = RuntimeProcess.start(home, folder.newFolder("experiments").toPath());
        runtime.endpoint();

        // relative names are the client's folder's; the verdict names the file as given
        JarProcess.Result good = JarProcess.run(project, environment, outputs, "--home", home.toString(), "validate", "good.yml");
        assertEquals(good.toString(), 0, good.code());
        assertEquals("OK: good.yml\n", good.out());
        assertEquals("", good.err());

        JarProcess.Result typo = JarProcess.run(project, environment, outputs, "--home", home.toString(), "validate", "typo.yml", "good.yml");
        assertEquals(typo.toString(), 1, typo.code());
        assertEquals("OK: good.yml\n", typo.out());
        assertTrue(typo.err(), typo.err().startsWith("typo.yml:5:29: trainingService.platform: expected a platform name"));

        JarProcess.Result client = JarProcess.run(project, environment, outputs, "--home", home.toString(), "client", "nni:validate",
                "good.yml");
        assertEquals(client.toString(), 0, client.code());
        assertTrue(client.out(), client.out().startsWith("OK: " + project.resolve("good.yml")));
        assertTrue(runtime.process.isAlive());

        // no runtime with another home: the line runs in a quiet one of its own, which stops after it
        Path other = folder.getRoot().toPath().resolve("other");
        JarProcess.Result quiet = JarProcess.run(project, environment, outputs, "--port", "0", "--home", other.toString(), "client",
                "nni:platforms");
        assertEquals(quiet.toString(), 0, quiet.code());
        assertTrue(quiet.out(), quiet.out().startsWith("PLATFORM") && quiet.out().contains("local"));
        assertTrue(Files.readString(other.resolve("log").resolve("nni.log")).contains("platform 'local' bound"));
    }

    @Test(timeout = 180_000)
    public void theRuntimesStartShowsItsWebUiAddressAndNotTheLog() throws Exception {
        Path home = folder.newFolder("home").toPath();
        runtime = RuntimeProcess.start(home, folder.newFolder("experiments").toPath());
        String address = runtime.endpoint() + "ui/";
        await().atMost(Duration.ofSeconds(60)).until(() -> runtime.console().contains("web UI: " + address + "\n"));
        await().atMost(Duration.ofSeconds(60)).until(() -> runtime.log().contains("platform 'local' bound"));
        String console = runtime.console();
        assertFalse(console, console.contains("jetty"));
        assertFalse(console, console.contains(" INFO "));
        assertTrue(runtime.log(), runtime.log().contains("Started Jetty"));
    }

    private static String[] arguments(Path home, List<String> command) {
        return java.util.stream.Stream.concat(java.util.stream.Stream.of("--home", home.toString()), command.stream())
                .toArray(String[]::new);
    }
}
