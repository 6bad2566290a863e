package nni.itest.launcher;

import static org.awaitility.Awaitility.await;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/** One runtime per home, with real processes: a second one is refused at once; a killed one's home is taken over. */
public class RuntimeLockIT {

    @Rule
    public TemporaryFolder folder = new TemporaryFolder();

    @Test(timeout = 180_000)
    public void aSecondRuntimeOnAHomeInUseIsRefusedAndAKilledRuntimesHomeIsTakenOver() throws Exception {
        Path userHome = folder.newFolder("user").toPath();
        Path home = userHome.resolve(".nni-osgi");
        Path outputs = folder.getRoot().toPath().resolve("out");
        Map<String, String> environment = Map.of("HOME", userHome.toString());
        try (JarProcess first = JarProcess.start(userHome, environment, outputs, "--port", "0")) {
            Path endpoint = home.resolve("log").resolve("endpoint");
            await().atMost(Duration.ofSeconds(60)).until(() -> Files.exists(endpoint) || !first.process.isAlive());
            assertTrue(first.output(), first.process.isAlive());

            JarProcess.Result second = JarProcess.run(userHome, environment, outputs, "--port", "0", "run", "x.yml");
            assertEquals(4, second.code());
            assertEquals("", second.out());
            assertEquals("nni-osgi: the home " + home + " is in use by another runtime (pid " + first.process.pid()
                    + "); stop that one, or give this one another --home\n", second.err());

            JarProcess.kill9(first.process);
        }
        // kill -9 left the lock file and a framework cache behind; the operating system released the lock
        assertTrue(Files.exists(home.resolve("runtime.lock")));
        // and its log/endpoint names no runtime: the client's line runs in a quiet runtime of its own
        JarProcess.Result after = JarProcess.run(userHome, environment, outputs, "--port", "0", "client", "nni:platforms");
        assertEquals(after.toString(), 0, after.code());
        assertTrue(after.out(), after.out().startsWith("PLATFORM") && after.out().contains("local"));
        assertEquals("", after.err());
    }
}
