package nni.itest.launcher;

import static org.awaitility.Awaitility.await;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;

import org.junit.After;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Issue 17: what an operator gets wrong in the home is said once, plainly, and breaks nothing. A bad
 * value in {@code etc/*.cfg} is reported naming the file, the key and what it accepts, and the
 * platform keeps working (before: it vanished behind a stack trace); a jar in {@code deploy/} with
 * a built-in bundle's symbolic name is refused, and deleting it leaves the built-in platform there.
 */
public class OperatorMistakesIT {

    private static final Path ROOT = Path.of(System.getProperty("nni.root"));
    private static final Duration WAIT = Duration.ofSeconds(60);

    @Rule
    public TemporaryFolder folder = new TemporaryFolder();

    private RuntimeProcess runtime;

    @After
    public void stop() throws InterruptedException {
        if (runtime != null) {
            runtime.close();
        }
    }

    private JsonNode local() throws Exception {
        for (JsonNode platform : runtime.get("platforms")) {
            if (platform.get("name").asText().equals("local")) {
                return platform;
            }
        }
        return null;
    }

    /** @return whether the local platform is listed, active (a moment of restart lists none) */
    private boolean localIsActive() throws Exception {
        JsonNode local = local();
        return local != null && local.get("state").asText().equals("active");
    }

    /** @return the value the running local platform component has for a setting (the web UI's platform form) */
    private String effective(String setting) throws Exception {
        HttpResponse<String> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(runtime.endpoint()
                + "api/v1/nni-ui/platforms")).build(), HttpResponse.BodyHandlers.ofString());
        for (JsonNode platform : RuntimeProcess.JSON.readTree(response.body()).get("platforms")) {
            if (platform.get("name").asText().equals("local") && platform.get("configuration").isObject()) {
                for (JsonNode attribute : platform.get("configuration").get("attributes")) {
                    if (attribute.get("id").asText().equals(setting)) {
                        return attribute.get("effective").asText(null);
                    }
                }
            }
        }
        return null;
    }

    /**
     * Replaces a watched file in one step, as an editor saving through a rename does: written in place, FileInstall
     * may read it truncated, empty, and apply the defaults before the new text arrives.
     */
    private static void replace(Path file, String text) throws Exception {
        Path draft = Files.writeString(file.getParent().getParent().resolve(file.getFileName() + ".draft"), text);
        Files.move(draft, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    private static int count(String text, String part) {
        int count = 0;
        for (int at = text.indexOf(part); at >= 0; at = text.indexOf(part, at + 1)) {
            count++;
        }
        return count;
    }

    /**
     * The runtime keeps its cache, and Config Admin the configurations FileInstall gave it, between
     * starts: at the next start a bad one comes again from Config Admin, before FileInstall (level 15)
     * reads etc/. It is checked as a file's is: the platform starts on its defaults with the file named,
     * not with a stack trace. (nni.runtime starts at level 9 with SCR and Metatype so that its check is
     * registered before any level-10 component is configured; this test passed also with the bundle at
     * level 10, installed last, so it does not show that the level is needed, only what must hold.)
     */
    @Test(timeout = 180_000)
    public void aBadConfigurationKeptFromTheLastStartIsCheckedBeforeThePlatformGetsItAtTheNextStart() throws Exception {
        Path home = folder.newFolder("home").toPath();
        Path experiments = folder.newFolder("experiments").toPath();
        Path config = Files.createDirectories(home.resolve("etc")).resolve("nni.ts.local.cfg");
        Files.writeString(config, "kill.grace.seconds=abc\n");
        String refused = config + ": kill.grace.seconds: expected an integer -2147483648-2147483647, got \"abc\"; NNI local platform "
                + "keeps its defaults";
        runtime = RuntimeProcess.start(home, experiments);
        runtime.endpoint();
        await().atMost(WAIT).until(() -> runtime.log().contains(refused));
        await().atMost(WAIT).until(this::localIsActive);
        runtime.close();
        int before = runtime.log().length();

        runtime = RuntimeProcess.start(home, experiments);
        runtime.endpoint();
        await().atMost(WAIT).until(() -> runtime.log().substring(before).contains(refused));
        await().atMost(WAIT).until(this::localIsActive);
        String secondStart = runtime.log().substring(before);
        assertEquals(secondStart, 1, count(secondStart, refused));
        assertFalse(secondStart, secondStart.lines().anyMatch(line -> line.contains("Exception")
                && (line.contains("nni.ts.local") || line.contains("LocalPlatform") || line.contains("kill.grace"))));
        assertFalse(secondStart, secondStart.lines().anyMatch(line -> line.strip().startsWith("at nni.ts.local")));
    }

    @Test(timeout = 180_000)
    public void badConfigurationValuesAndAShadowOfABuiltInBundle() throws Exception {
        Path home = folder.newFolder("home").toPath();
        Path etc = Files.createDirectories(home.resolve("etc"));
        Path config = etc.resolve("nni.ts.local.cfg");
        Files.writeString(config, "kill.grace.seconds=abc\npython.sdk=sometimes\n");
        runtime = RuntimeProcess.start(home, folder.newFolder("experiments").toPath());
        runtime.endpoint();

        String first = config + ": kill.grace.seconds: expected an integer -2147483648-2147483647, got \"abc\"; python.sdk: expected one of auto, "
                + "always, never, got \"sometimes\"; NNI local platform keeps its defaults";
        await().atMost(WAIT).until(() -> runtime.log().contains(first));
        await().atMost(WAIT).until(this::localIsActive);

        // a good value, then a bad one: the component keeps the good one
        replace(config, "kill.grace.seconds=7\n");
        await().atMost(WAIT).until(() -> "7".equals(effective("kill.grace.seconds")));
        replace(config, "kill.grace.seconds=8\npython.sdk=often\n");
        String second = config + ": python.sdk: expected one of auto, always, never, got \"often\"; NNI local platform keeps its "
                + "previous configuration";
        await().atMost(WAIT).until(() -> runtime.log().contains(second));
        // the component is given its previous configuration again, and DS restarts it with that (its
        // service leaves and comes back): what must hold is that it comes back, active, with the good value
        await().atMost(WAIT).until(this::localIsActive);
        assertEquals("7", effective("kill.grace.seconds"));

        // the built-in local platform's own jar dropped into deploy/: refused; deleted: nothing lost
        Path shadow = home.resolve("deploy").resolve("my-local.jar");
        Path builtIn;
        try (var jars = Files.list(ROOT.resolve("nni.ts.local").resolve("target"))) {
            builtIn = jars.filter(p -> p.getFileName().toString().matches("nni\\.ts\\.local-\\d.*\\.jar")).findFirst().orElseThrow();
        }
        Files.copy(builtIn, shadow, StandardCopyOption.REPLACE_EXISTING);
        await().atMost(WAIT).until(() -> runtime.log().contains(shadow + ": not installed: nni.ts.local is built into the runtime"));
        Files.delete(shadow);
        await().atMost(WAIT).until(() -> runtime.log().contains(shadow + " removed; the built-in nni.ts.local was never replaced"));
        await().atMost(WAIT).until(this::localIsActive);
        assertEquals(1, runtime.get("platforms").findValues("name").stream().filter(n -> n.asText().equals("local")).count());

        String log = runtime.log();
        assertEquals(log, 1, count(log, first));
        assertEquals(log, 1, count(log, second));
        assertFalse(log, log.lines().anyMatch(line -> line.contains("Exception")
                && (line.contains("nni.ts.local") || line.contains("LocalPlatform") || line.contains("kill.grace"))));
        assertFalse(log, log.lines().anyMatch(line -> line.strip().startsWith("at nni.ts.local")));
        assertFalse(log, log.contains("bundle nni.ts.local 1.0.0.SNAPSHOT stopped"));
        assertTrue(runtime.console(), runtime.process.isAlive());
    }
}
