package nni.itest.launcher;

import static org.awaitility.Awaitility.await;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * {@code bin/nni-osgi} runs the jar as {@code java -jar} does, but once the home has an archive of
 * this jar and this Java it becomes the runtime's JVM itself (exec) with the launcher's options and
 * that archive: no parent JVM waits.
 */
public class StartScriptIT {

    private static final Duration WAIT = Duration.ofSeconds(120);

    @Rule
    public TemporaryFolder folder = new TemporaryFolder();

    @Test(timeout = 300_000)
    public void theScriptRunsTheJarAndOnceTheHomeHasAnArchiveBecomesTheRuntimesJvmWithIt() throws Exception {
        Path userHome = folder.newFolder("user").toPath();
        Path home = userHome.resolve(".nni-osgi");
        Process first = start(userHome, "--port", "0", "client", "nni:platforms");
        assertTrue(first.waitFor(120, TimeUnit.SECONDS));
        String out = Files.readString(folder.getRoot().toPath().resolve("out.txt"));
        assertEquals(out + Files.readString(folder.getRoot().toPath().resolve("err.txt")), 0, first.exitValue());
        assertTrue(out, out.startsWith("PLATFORM") && out.contains("local"));
        Path archive = home.resolve("jvm").resolve("nni-osgi.jsa");
        assertTrue(Files.isRegularFile(archive) && Files.isRegularFile(home.resolve("jvm").resolve("nni-osgi.key")));

        Process runtime = start(userHome, "--port", "0");
        try {
            Path endpoint = home.resolve("log").resolve("endpoint");
            await().atMost(WAIT).until(() -> Files.exists(endpoint) || !runtime.isAlive());
            assertTrue(runtime.isAlive());
            List<String> arguments = runtime.info().arguments().map(List::of).orElse(List.of());
            assertTrue(arguments.toString(), JarProcess.isJava(runtime.toHandle()) && arguments.containsAll(List.of("-XX:+UseSerialGC",
                    "-Xmx256m", "-XX:TieredStopAtLevel=1", "-XX:SharedArchiveFile=" + archive)));
            assertEquals(Optional.empty(), runtime.descendants().filter(JarProcess::isJava).findAny());
            assertEquals(Long.toString(runtime.pid()), Files.readString(home.resolve("runtime.lock")).strip());
            // the JVM maps the archive's file only when it accepted it
            assertTrue(Files.readString(Path.of("/proc", Long.toString(runtime.pid()), "maps")).contains(archive.toRealPath().toString()));
        } finally {
            JarProcess.end(runtime);
        }
    }

    private Process start(Path userHome, String... args) throws Exception {
        List<String> command = new java.util.ArrayList<>(List.of(Path.of(System.getProperty("nni.root"), "bin", "nni-osgi").toString()));
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command).directory(userHome.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectOutput(folder.getRoot().toPath().resolve("out.txt").toFile())
                .redirectError(folder.getRoot().toPath().resolve("err.txt").toFile());
        builder.environment().remove("NNI_OSGI_HOME");
        builder.environment().remove("NNI_OSGI_JAVA_OPTIONS");
        builder.environment().put("HOME", userHome.toString());
        builder.environment().put("JAVA_HOME", System.getProperty("java.home"));
        return builder.start();
    }
}
