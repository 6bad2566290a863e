package nni.itest.launcher;

import static org.awaitility.Awaitility.await;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.After;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import com.fasterxml.jackson.databind.JsonNode;

/** The jar as users start it: a platform bundle dropped into deploy/ appears and disappears; SIGTERM stops it. */
public class LauncherIT {

    @Rule
    public TemporaryFolder folder = new TemporaryFolder();

    private RuntimeProcess runtime;

    @After
    public void stop() throws InterruptedException {
        if (runtime != null) {
            runtime.close();
        }
    }

    private static List<String> platformNames(JsonNode platforms) {
        List<String> names = new ArrayList<>();
        platforms.forEach(p -> names.add(p.get("name").asText()));
        return names;
    }

    @Test(timeout = 120_000)
    public void deployedPlatformComesAndGoesAndSigtermStopsTheRuntime() throws Exception {
        Path home = folder.newFolder("home").toPath();
        runtime = RuntimeProcess.start(home, folder.newFolder("experiments").toPath());
        assertTrue(platformNames(runtime.get("platforms")).contains("local"));
        assertEquals("INITIALIZED", runtime.get("check-status").get("status").asText());

        Path deployed = home.resolve("deploy").resolve("nni.itest.platform.jar");
        Files.copy(Path.of(System.getProperty("nni.itest.platform.jar")), deployed);
        await().atMost(Duration.ofSeconds(20)).until(() -> platformNames(runtime.get("platforms")).contains("echo"));

        Files.delete(deployed);
        await().atMost(Duration.ofSeconds(20)).until(() -> !platformNames(runtime.get("platforms")).contains("echo"));

        runtime.process.destroy();
        int code = runtime.awaitExit(Duration.ofSeconds(60));
        // the JVM ends with 128 + SIGTERM after its shutdown hooks stopped the framework
        assertEquals(runtime.console(), 143, code);
        assertFalse(runtime.process.isAlive());
    }
}
