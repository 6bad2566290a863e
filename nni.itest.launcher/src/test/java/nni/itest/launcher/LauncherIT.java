package nni.itest.launcher;

import static org.awaitility.Awaitility.await;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.stream.Stream;

import org.junit.After;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The jar as users start it: a platform bundle dropped into deploy/ appears and disappears; SIGTERM
 * stops it; a second start reopens the framework cache, and a bundle the cache holds in another
 * version is updated.
 */
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

        Path deployed = home.resolve("deploy").resolve("nni.example.echo.jar");
        Files.copy(Path.of(System.getProperty("nni.example.echo.jar")), deployed);
        await().atMost(Duration.ofSeconds(20)).until(() -> platformNames(runtime.get("platforms")).contains("echo"));

        Files.delete(deployed);
        await().atMost(Duration.ofSeconds(20)).until(() -> !platformNames(runtime.get("platforms")).contains("echo"));

        runtime.process.destroy();
        int code = runtime.awaitExit(Duration.ofSeconds(60));
        // the JVM ends with 128 + SIGTERM after its shutdown hooks stopped the framework
        assertEquals(runtime.console(), 143, code);
        assertFalse(runtime.process.isAlive());
    }

    @Test(timeout = 180_000)
    public void secondStartReopensTheKeptCacheAndUpdatesAChangedBundle() throws Exception {
        Path home = folder.newFolder("home").toPath();
        Path experiments = folder.newFolder("experiments").toPath();
        runtime = RuntimeProcess.start(home, experiments);
        List<String> platforms = allPlatforms();
        stopRuntime();
        Path record = home.resolve("felix-cache").resolve("nni-bundles.properties");
        FileTime recorded = Files.getLastModifiedTime(record);
        List<String> bundles = cachedBundles(home);

        runtime = RuntimeProcess.start(home, experiments);
        assertEquals(platforms, allPlatforms());
        stopRuntime();
        assertEquals("nothing installed again", recorded, Files.getLastModifiedTime(record));
        assertEquals(bundles, cachedBundles(home));

        // as if the cache held nni.ts.local of another build: the next start updates that bundle alone
        Properties stamps = new Properties();
        try (var in = Files.newInputStream(record)) {
            stamps.load(in);
        }
        String local = stamps.stringPropertyNames().stream().filter(l -> l.contains("nni.ts.local-")).findFirst().orElseThrow();
        String stamp = stamps.getProperty(local);
        stamps.setProperty(local, "0:0");
        try (var out = Files.newOutputStream(record)) {
            stamps.store(out, null);
        }
        runtime = RuntimeProcess.start(home, experiments);
        assertEquals(platforms, allPlatforms());
        stopRuntime();
        stamps.clear();
        try (var in = Files.newInputStream(record)) {
            stamps.load(in);
        }
        assertEquals(stamp, stamps.getProperty(local));
        assertEquals(bundles, cachedBundles(home));
        Path localBundle = home.resolve("felix-cache").resolve(bundles.stream().filter(b -> b.endsWith(local)).findFirst().orElseThrow()
                .split(" ")[0]);
        assertTrue("a second revision of " + local, Files.isDirectory(localBundle.resolve("version0.1")));
    }

    /**
     * @return the platforms once every platform bundle of the jar ({@code jar/nni.ts.*} in its
     * launcher.properties) has its platform listed: the endpoint answers before the last is bound
     */
    private List<String> allPlatforms() throws Exception {
        Properties launch = new Properties();
        try (var jar = new java.util.zip.ZipFile(System.getProperty("nni.jar")); var in = jar.getInputStream(jar.getEntry("launcher.properties"))) {
            launch.load(in);
        }
        long platformBundles = Stream.of(launch.getProperty("launch.bundles").split(",")).filter(b -> b.startsWith("jar/nni.ts.")).count();
        await().atMost(Duration.ofSeconds(60)).until(() -> runtime.get("platforms").size() >= platformBundles);
        return platformNames(runtime.get("platforms"));
    }

    private void stopRuntime() throws Exception {
        runtime.process.destroy();
        runtime.assertExit(143, Duration.ofSeconds(60));
        runtime = null;
    }

    /** @return "bundleN location" of every bundle in the framework cache, sorted */
    private static List<String> cachedBundles(Path home) throws Exception {
        try (Stream<Path> folders = Files.list(home.resolve("felix-cache"))) {
            List<String> bundles = new ArrayList<>();
            for (Path folder : folders.filter(f -> f.getFileName().toString().matches("bundle\\d+")
                    && Files.isRegularFile(f.resolve("bundle.info"))).sorted().toList()) {
                List<String> info = Files.readAllLines(folder.resolve("bundle.info"));
                bundles.add(folder.getFileName() + " " + info.get(1));
            }
            return bundles;
        }
    }
}
