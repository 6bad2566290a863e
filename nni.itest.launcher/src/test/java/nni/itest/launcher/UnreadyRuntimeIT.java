package nni.itest.launcher;

import static org.awaitility.Awaitility.await;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * A runtime that can never be ready as its home and its Java are ends a one-shot command at once
 * with exit code 4 and the reasons on standard error, instead of waiting for readiness until a
 * time-out or for ever: a bundle in {@code deploy/} that cannot resolve, a refused value in an
 * {@code etc/*.cfg} file, a Java that lacks a module the runtime's own bundles need. A runtime
 * without a command shows the last on its terminal. The elapsed times are printed, not asserted.
 */
public class UnreadyRuntimeIT {

    @Rule
    public TemporaryFolder folder = new TemporaryFolder();

    /** An experiment whose one trial succeeds at once: what {@code run} would run. */
    private Path experiment() throws IOException {
        Path code = folder.newFolder("code").toPath();
        Files.writeString(code.resolve("config.yml"), """
                searchSpace:
                  x: {_type: choice, _value: [1]}
                trialCommand: "true"
                trialCodeDirectory: .
                trialConcurrency: 1
                maxTrialNumber: 1
                tuner: {name: Random}
                trainingService: {platform: local}
                """);
        return code.resolve("config.yml");
    }

    private JarProcess.Result timed(String what, Path java, Path userHome, String... args) throws Exception {
        long begun = System.nanoTime();
        try (JarProcess jar = JarProcess.start(java, userHome, Map.of("HOME", userHome.toString()), folder.getRoot().toPath()
                .resolve("out"), List.of(), args)) {
            JarProcess.Result result = jar.await();
            System.out.printf("%s: exit %d after %d ms%n", what, result.code(), TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - begun));
            return result;
        }
    }

    private static Path javaHome() {
        return Path.of(System.getProperty("java.home"));
    }

    @Test(timeout = 300_000)
    public void aDeployedBundleThatCannotResolveEndsRunWithTheFileTheBundleAndWhatItLacks() throws Exception {
        Path userHome = folder.newFolder("user").toPath();
        Path deploy = Files.createDirectories(userHome.resolve(".nni-osgi").resolve("deploy"));
        Manifest manifest = new Manifest();
        Attributes headers = manifest.getMainAttributes();
        headers.put(Attributes.Name.MANIFEST_VERSION, "1.0");
        headers.putValue("Bundle-ManifestVersion", "2");
        headers.putValue("Bundle-SymbolicName", "test.unresolvable");
        headers.putValue("Bundle-Version", "1.2.3");
        headers.putValue("Import-Package", "does.not.exist");
        Path jar = deploy.resolve("unresolvable.jar");
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar), manifest)) {
            out.finish();
        }

        JarProcess.Result run = timed("run with an unresolvable bundle", javaHome(), userHome, "--port", "0", "run",
                experiment().toString());
        assertEquals(run.toString(), 4, run.code());
        assertTrue(run.err(), run.err().contains("nni-osgi: " + jar + ": bundle test.unresolvable 1.2.3 cannot resolve: it needs "
                + "package does.not.exist, which no bundle provides"));
        assertEquals(run.out(), "", run.out());
    }

    @Test(timeout = 300_000)
    public void aDeployedBundleWhoseActivatorThrowsEndsRunWithTheFileTheBundleAndTheActivatorsError() throws Exception {
        Path userHome = folder.newFolder("user").toPath();
        Path deploy = Files.createDirectories(userHome.resolve(".nni-osgi").resolve("deploy"));
        String activator = nni.itest.launcher.fixture.RefusingActivator.class.getName();
        Manifest manifest = new Manifest();
        Attributes headers = manifest.getMainAttributes();
        headers.put(Attributes.Name.MANIFEST_VERSION, "1.0");
        headers.putValue("Bundle-ManifestVersion", "2");
        headers.putValue("Bundle-SymbolicName", "test.refusing");
        headers.putValue("Bundle-Version", "2.0.1");
        headers.putValue("Bundle-Activator", activator);
        Path jar = deploy.resolve("refusing.jar");
        String entry = activator.replace('.', '/') + ".class";
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar), manifest);
             java.io.InputStream type = getClass().getClassLoader().getResourceAsStream(entry)) {
            out.putNextEntry(new java.util.jar.JarEntry(entry));
            type.transferTo(out);
            out.closeEntry();
        }

        JarProcess.Result run = timed("run with a bundle whose activator throws", javaHome(), userHome, "--port", "0", "run",
                experiment().toString());
        assertEquals(run.toString(), 4, run.code());
        assertTrue(run.err(), run.err().contains("nni-osgi: " + jar + ": bundle test.refusing 2.0.1 cannot start: "));
        assertTrue(run.err(), run.err().contains("the licence server at 127.0.0.1:9 does not answer"));
        assertEquals(run.out(), "", run.out());
    }

    @Test(timeout = 300_000)
    public void aRefusedConfigurationValueEndsValidateWithTheFileTheKeyAndWhatItAccepts() throws Exception {
        Path userHome = folder.newFolder("user").toPath();
        Path etc = Files.createDirectories(userHome.resolve(".nni-osgi").resolve("etc"));
        Path cfg = Files.writeString(etc.resolve("nni.ts.local.cfg"), "kill.grace.seconds=abc\n");

        JarProcess.Result validate = timed("validate with a bad etc value", javaHome(), userHome, "--port", "0", "validate",
                experiment().toString());
        assertEquals(validate.toString(), 4, validate.code());
        assertTrue(validate.err(), validate.err().contains("nni-osgi: " + cfg + ": kill.grace.seconds: expected an integer"));
        assertTrue(validate.err(), validate.err().contains("got \"abc\""));
    }

    @Test(timeout = 600_000)
    public void aJavaWithoutAModuleTheRuntimeNeedsEndsRunAndShowsOnTheRuntimesTerminal() throws Exception {
        List<String> modules = LinkedJre.RUNTIME_MODULES.stream().filter(module -> !module.equals("java.sql")).toList();
        Path jre = LinkedJre.link(folder.getRoot().toPath().resolve("jre"), modules);
        Path userHome = folder.newFolder("user").toPath();
        // the engine's store needs java.sql (SQLite's JDBC driver), and the manager needs the store
        String lacking = "bundle nni.store 1.0.0.SNAPSHOT cannot resolve: it needs package java.sql, which no bundle provides and "
                + "this Java (" + jre + ") lacks";
        String manager = "bundle nni.manager 1.0.0.SNAPSHOT cannot resolve: it needs bundle nni.store, which cannot resolve";

        JarProcess.Result run = timed("run on a Java without java.sql", jre, userHome, "--port", "0", "run", experiment().toString());
        assertEquals(run.toString(), 4, run.code());
        assertTrue(run.err(), run.err().contains("nni-osgi: " + lacking));
        assertTrue(run.err(), run.err().contains("nni-osgi: " + manager));

        try (JarProcess runtime = JarProcess.start(jre, userHome, Map.of("HOME", userHome.toString()), folder.getRoot().toPath()
                .resolve("out"), List.of(), "--port", "0")) {
            await().atMost(Duration.ofSeconds(120)).until(() -> runtime.output().contains(lacking) || !runtime.process.isAlive());
            assertTrue(runtime.output(), runtime.output().contains("nni-osgi: " + lacking));
        }
    }
}
