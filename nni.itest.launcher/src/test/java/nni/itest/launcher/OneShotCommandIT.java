package nni.itest.launcher;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * The jar's one-shot commands as a first-time user meets them: run in a project folder with a
 * fresh home directory, they print their own output only, write nothing where they run, keep the
 * full log in the per-user home, and refuse what cannot work in one line.
 */
public class OneShotCommandIT {

    @Rule
    public TemporaryFolder folder = new TemporaryFolder();

    private static final String CONFIG = """
            searchSpace: {x: {_type: choice, _value: [1, 2]}}
            trialCommand: python3 trial.py
            trialConcurrency: 1
            tuner: {name: TPE}
            trainingService: {platform: %s}
            """;

    @Test(timeout = 120_000)
    public void validateInAnEmptyFolderPrintsOnlyItsVerdictAndLeavesTheFolderEmpty() throws Exception {
        Path home = folder.newFolder("home").toPath();
        Path project = folder.newFolder("project").toPath();
        Path config = Files.writeString(folder.newFolder("configs").toPath().resolve("x.yml"), CONFIG.formatted("local"));

        JarProcess.Result result = JarProcess.run(project, Map.of("HOME", home.toString()), folder.getRoot().toPath().resolve("out"),
                "--port", "0", "validate", config.toString());

        assertEquals(result.toString(), 0, result.code());
        assertEquals("OK: " + config + "\n", result.out());
        assertEquals("", result.err());
        try (var left = Files.list(project)) {
            assertEquals(0, left.count());
        }
        // the runtime's home is ~/.nni-osgi, and the whole log is there
        Path log = home.resolve(".nni-osgi").resolve("log").resolve("nni.log");
        assertTrue(Files.readString(log).contains("platform 'local' bound"));
        assertTrue(Files.isDirectory(home.resolve(".nni-osgi").resolve("deploy")));
    }

    @Test(timeout = 120_000)
    public void verboseBringsTheLogToTheConsoleAndAnUnknownPlatformIsAnError() throws Exception {
        Path home = folder.newFolder("home").toPath();
        Path config = Files.writeString(folder.getRoot().toPath().resolve("typo.yml"), CONFIG.formatted("lokal"));
        Map<String, String> environment = Map.of("HOME", home.toString(), "NNI_OSGI_HOME", home.resolve("runtime").toString());
        Path outputs = folder.getRoot().toPath().resolve("out");

        JarProcess.Result quiet = JarProcess.run(folder.getRoot().toPath(), environment, outputs, "--port", "0", "validate", config.toString());
        assertEquals(1, quiet.code());
        assertEquals("", quiet.out());
        assertEquals(config + ":5:29: trainingService.platform: expected a platform name (adl, aml, dlc, dlts, "
                + "frameworkcontroller, kubeflow, local, openpai, remote), got \"lokal\"\n", quiet.err());

        JarProcess.Result verbose = JarProcess.run(folder.getRoot().toPath(), environment, outputs, "-v", "--port", "0", "client", "nni:platforms");
        assertEquals(0, verbose.code());
        assertTrue(verbose.out(), verbose.out().startsWith("PLATFORM") && verbose.out().contains("frameworkcontroller"));
        assertTrue(verbose.err(), verbose.err().contains("platform 'local' bound"));
        // $NNI_OSGI_HOME names the home when --home does not
        assertTrue(Files.exists(home.resolve("runtime").resolve("log").resolve("nni.log")));
        assertFalse(Files.exists(home.resolve(".nni-osgi")));
    }

    @Test(timeout = 120_000)
    public void aTakenPortAndAnUnusableHomeAreRefusedInOneLine() throws Exception {
        Path home = folder.newFolder("home").toPath();
        Path outputs = folder.getRoot().toPath().resolve("out");
        Map<String, String> environment = Map.of("HOME", home.toString());
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            JarProcess.Result result = JarProcess.run(home, environment, outputs, "--port", Integer.toString(taken.getLocalPort()), "client",
                    "nni:platforms");
            assertEquals(4, result.code());
            assertEquals("", result.out());
            assertTrue(result.err(), result.err().startsWith("nni-osgi: port " + taken.getLocalPort() + " on 127.0.0.1 is in use"));
            assertEquals(result.err(), 1, result.err().lines().count());
        }
        Path file = Files.writeString(home.resolve("a-file"), "");
        JarProcess.Result result = JarProcess.run(home, environment, outputs, "--home", file.resolve("runtime").toString(), "client",
                "nni:platforms");
        assertEquals(2, result.code());
        assertEquals("nni-osgi: cannot use " + file.resolve("runtime") + " as the runtime's home: not a directory: "
                + file.resolve("runtime") + "\n", result.err());
    }
}
