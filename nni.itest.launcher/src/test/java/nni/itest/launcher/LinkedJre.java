package nni.itest.launcher;

import static org.junit.Assert.assertEquals;
import static org.junit.Assume.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A Java runtime image made by {@code jlink} from the tests' own JDK, as a user's packaged or
 * trimmed JRE is: without a base class data sharing archive ({@code lib/server/classes.jsa}),
 * since {@code --generate-cds-archive} is not given, and with only the modules named.
 */
final class LinkedJre {

    /** The Java modules the runtime's bundles and launcher use (what their manifests import). */
    static final List<String> RUNTIME_MODULES = List.of("java.base", "java.instrument", "java.logging", "java.management",
            "java.naming", "java.net.http", "java.rmi", "java.security.jgss", "java.sql", "java.xml", "jdk.unsupported");

    private LinkedJre() {
    }

    /** @return the java home of a new image in {@code output} with {@code modules}; skips the test on a JDK without jmods */
    static Path link(Path output, List<String> modules) throws IOException, InterruptedException {
        Path jdk = Path.of(System.getProperty("java.home"));
        assumeTrue("the tests' Java has no jmods to link an image from: " + jdk, Files.isDirectory(jdk.resolve("jmods")));
        long begun = System.nanoTime();
        Process jlink = new ProcessBuilder(jdk.resolve("bin").resolve("jlink").toString(), "--add-modules", String.join(",", modules),
                "--output", output.toString(), "--no-header-files", "--no-man-pages", "--strip-debug")
                .redirectErrorStream(true).start();
        String said = new String(jlink.getInputStream().readAllBytes());
        if (!jlink.waitFor(300, TimeUnit.SECONDS)) {
            jlink.destroyForcibly();
            throw new AssertionError("jlink still running after 300 s");
        }
        assertEquals(said, 0, jlink.exitValue());
        System.out.printf("jlink of %d modules: %d ms%n", modules.size(), TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - begun));
        return output;
    }
}
