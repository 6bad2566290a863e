package nni.itest.launcher;

import static org.awaitility.Awaitility.await;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * {@code java -jar nni-osgi.jar} without JVM options of its own runs the runtime in a child JVM
 * with the launcher's settings and a class data sharing archive of the home's; the parent only
 * waits, hands on the exit code, stops the child when it is stopped and takes it along when it is
 * killed. JVM options on the java command line keep the runtime in that JVM. A Java without the
 * base archive every archive extends (a jlink image) runs the child without one.
 */
public class JvmRelaunchIT {

    private static final Duration WAIT = Duration.ofSeconds(60);

    @Rule
    public TemporaryFolder folder = new TemporaryFolder();

    @Test(timeout = 300_000)
    public void theRuntimeRunsInAChildJvmWithTheLaunchersSettingsAndItsArchiveFromTheSecondStart() throws Exception {
        Path home = folder.newFolder("home").toPath();
        Path experiments = folder.newFolder("experiments").toPath();
        ProcessHandle firstChild;
        try (RuntimeProcess runtime = RuntimeProcess.start(home, experiments)) {
            runtime.endpoint();
            firstChild = childJvm(runtime.process.toHandle());
            List<String> options = arguments(firstChild);
            assertTrue(options.toString(), options.containsAll(List.of("-XX:+UseSerialGC", "-Xms16m", "-Xmx256m",
                    "-XX:TieredStopAtLevel=1", "-Dnni.experiments.dir=" + experiments)));
            assertTrue(options.toString(), options.stream().anyMatch(option -> option.startsWith("-XX:ArchiveClassesAtExit=")));
            // the home's lock names the process the user started: stopping that one stops the runtime
            assertEquals(Long.toString(runtime.process.pid()), Files.readString(home.resolve("runtime.lock")).strip());
            assertEquals(200, runtime.request("GET", "check-status", null).statusCode());

            runtime.process.destroy(); // SIGTERM: the child stops in order, then the parent ends
            runtime.awaitExit(WAIT);
            assertFalse(firstChild.isAlive());
        }
        Path archive = home.resolve("jvm").resolve("nni-osgi.jsa");
        try (Stream<Path> written = Files.list(home.resolve("jvm"))) {
            // the archive and the key naming the jar and the JVM it was made from (bin/nni-osgi reads it too)
            assertEquals(List.of(archive, home.resolve("jvm").resolve("nni-osgi.key")), written.sorted().toList());
        }
        assertTrue(archive.toString(), Files.size(archive) > 0);

        try (RuntimeProcess runtime = RuntimeProcess.start(home, experiments)) {
            runtime.endpoint();
            ProcessHandle child = childJvm(runtime.process.toHandle());
            assertTrue(arguments(child).toString(), arguments(child).contains("-XX:SharedArchiveFile=" + archive));
            assertEquals(200, runtime.request("GET", "check-status", null).statusCode());

            runtime.process.destroyForcibly(); // the launcher is killed outright: the child goes with it
            await().atMost(WAIT).until(() -> !child.isAlive());
        }
    }

    @Test(timeout = 180_000)
    public void theChildsExitCodeIsTheLaunchersAndItsMessagesReachTheUser() throws Exception {
        Path userHome = folder.newFolder("user").toPath();
        try (ServerSocket taken = new ServerSocket()) {
            taken.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            JarProcess.Result result = JarProcess.run(userHome, Map.of("HOME", userHome.toString()),
                    folder.getRoot().toPath().resolve("out"), "--port", Integer.toString(taken.getLocalPort()), "client", "nni:platforms");
            assertEquals(result.toString(), 4, result.code());
            assertTrue(result.err(), result.err().startsWith("nni-osgi: port " + taken.getLocalPort() + " on 127.0.0.1 is in use"));
        }
        // client without a runtime on the home runs its line in a quiet runtime of its own
        JarProcess.Result version = JarProcess.run(userHome, Map.of("HOME", userHome.toString()),
                folder.getRoot().toPath().resolve("out"), "--port", "0", "client", "nni:platforms");
        assertEquals(version.toString(), 0, version.code());
        assertTrue(version.out(), version.out().startsWith("PLATFORM") && version.out().contains("local"));
        assertEquals("", version.err());
    }

    @Test(timeout = 180_000)
    public void jvmOptionsOnTheCommandLineOrSameInTheEnvironmentKeepTheRuntimeInTheStartedJvm() throws Exception {
        Path userHome = folder.newFolder("user").toPath();
        Path outputs = folder.getRoot().toPath().resolve("out");
        for (var start : List.<Map.Entry<List<String>, Map<String, String>>>of(
                Map.entry(List.of("-Xmx300m"), Map.of("HOME", userHome.toString())),
                Map.entry(List.of(), Map.of("HOME", userHome.toString(), "NNI_OSGI_JAVA_OPTIONS", "same")))) {
            try (JarProcess runtime = JarProcess.start(userHome, start.getValue(), outputs, start.getKey(), "--port", "0")) {
                Path endpoint = userHome.resolve(".nni-osgi").resolve("log").resolve("endpoint");
                await().atMost(WAIT).until(() -> Files.exists(endpoint) || !runtime.process.isAlive());
                assertTrue(runtime.output(), runtime.process.isAlive());
                assertEquals(start.toString(), Optional.empty(), runtime.process.descendants().filter(JarProcess::isJava).findAny());
                assertEquals(Long.toString(runtime.process.pid()),
                        Files.readString(userHome.resolve(".nni-osgi").resolve("runtime.lock")).strip());
            }
        }
    }

    @Test(timeout = 600_000)
    public void aJavaWithoutABaseArchiveRunsTheRuntimeWithoutOne() throws Exception {
        Path jre = LinkedJre.link(folder.getRoot().toPath().resolve("jre"), LinkedJre.RUNTIME_MODULES);
        assertFalse(Files.exists(jre.resolve("lib").resolve("server").resolve("classes.jsa")));
        Path userHome = folder.newFolder("user").toPath();
        for (int start = 1; start <= 2; start++) {
            try (JarProcess jar = JarProcess.start(jre, userHome, Map.of("HOME", userHome.toString()), folder.getRoot().toPath()
                    .resolve("out"), List.of(), "--port", "0", "client", "nni:platforms")) {
                JarProcess.Result version = jar.await();
                assertEquals(start + ": " + version, 0, version.code());
                assertTrue(version.out(), version.out().startsWith("PLATFORM") && version.out().contains("local"));
                assertEquals("", version.err());
            }
            try (Stream<Path> archives = Files.list(userHome.resolve(".nni-osgi").resolve("jvm"))) {
                assertEquals(List.of(), archives.toList());
            }
        }
    }

    @Test(timeout = 300_000)
    public void aJarStartedThroughASymbolicLinkRunsInAChildJvmThatMapsTheHomesArchive() throws Exception {
        Path link = Files.createSymbolicLink(folder.getRoot().toPath().resolve("nni-osgi.jar"),
                Path.of(System.getProperty("nni.jar")).toAbsolutePath());
        Path userHome = folder.newFolder("user").toPath();
        Path outputs = folder.getRoot().toPath().resolve("out");
        Path java = Path.of(System.getProperty("java.home"));
        Map<String, String> environment = Map.of("HOME", userHome.toString());
        try (JarProcess first = JarProcess.start(java, link, userHome, environment, outputs, List.of(), "--port", "0", "client",
                "nni:platforms")) {
            JarProcess.Result result = first.await();
            assertEquals(result.toString(), 0, result.code());
        }
        Path archive = userHome.resolve(".nni-osgi").resolve("jvm").resolve("nni-osgi.jsa");
        assertTrue(Files.isRegularFile(archive));
        try (JarProcess runtime = JarProcess.start(java, link, userHome, environment, outputs, List.of(), "--port", "0")) {
            Path endpoint = userHome.resolve(".nni-osgi").resolve("log").resolve("endpoint");
            await().atMost(WAIT).until(() -> Files.exists(endpoint) || !runtime.process.isAlive());
            assertTrue(runtime.output(), runtime.process.isAlive());
            ProcessHandle child = childJvm(runtime.process.toHandle());
            // the JVM maps the archive's file only when it accepted it: the launcher's option alone proves nothing
            String mapped = Files.readString(Path.of("/proc", Long.toString(child.pid()), "maps"));
            assertTrue(arguments(child).toString(), mapped.contains(archive.toRealPath().toString()));
        }
    }

    /** @return the runtime's JVM under the launcher's, once it runs */
    private static ProcessHandle childJvm(ProcessHandle launcher) {
        return await().atMost(WAIT).until(() -> launcher.children().filter(JarProcess::isJava).findFirst(), Optional::isPresent)
                .orElseThrow();
    }

    private static List<String> arguments(ProcessHandle process) {
        return process.info().arguments().map(List::of).orElse(List.of());
    }
}
