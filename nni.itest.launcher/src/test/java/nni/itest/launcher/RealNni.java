package nni.itest.launcher;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import org.junit.Assume;

/**
 * NNI 3.0's own Python package, the test equipment beside the checkout ({@code ../shared/nni-3.0},
 * launcher {@code python3-nni}: its README): the real counterpart of the runtime's dispatcher,
 * trials, client and nnictl. Found from the system property {@code nni.real}, else in a
 * {@code shared/nni-3.0} next to the working directory or one of its parents. Where it is absent or
 * cannot import {@code nni} (its Debian packages are missing: {@code .ci/run} installs them as
 * root), the tests that need it are skipped, and the reason is printed, never silently.
 */
final class RealNni {

    private static final String LAUNCHER = "python3-nni";
    private static Path found;
    private static String missing;

    private RealNni() {
    }

    /**
     * Writes {@code etc/nni.dispatcher.cfg} into a runtime home: the real dispatcher imports numpy,
     * scipy and scikit-learn, which takes long on a loaded machine, so it gets minutes to connect
     * and to answer pings.
     *
     * @param python the {@code python.command}, or null to leave it to {@code NNI_OSGI_PYTHON}
     */
    static Path patientHome(Path home, Path python) throws IOException {
        Files.createDirectories(home.resolve("etc"));
        Files.writeString(home.resolve("etc").resolve("nni.dispatcher.cfg"), (python == null ? "" : "python.command=" + python + "\n")
                + "connect.seconds=600\nsilence.seconds=120\n");
        return home;
    }

    /** @return the {@code python3-nni} launcher; skips the calling test (saying why) when there is none that imports nni */
    static synchronized Path python(String test) {
        if (found == null && missing == null) {
            locate();
        }
        if (found == null) {
            System.out.println(test + ": SKIPPED, the real nni package is not usable here: " + missing);
        }
        Assume.assumeTrue(test + ": the real nni package is not usable here: " + missing, found != null);
        return found;
    }

    private static void locate() {
        Path launcher = null;
        String configured = System.getProperty("nni.real");
        if (configured != null && !configured.isBlank()) {
            launcher = Path.of(configured).resolve(LAUNCHER);
        } else {
            for (Path dir = Path.of("").toAbsolutePath(); dir != null && launcher == null; dir = dir.getParent()) {
                Path candidate = dir.resolve("shared").resolve("nni-3.0").resolve(LAUNCHER);
                if (Files.isExecutable(candidate)) {
                    launcher = candidate;
                }
            }
        }
        if (launcher == null || !Files.isExecutable(launcher)) {
            missing = "no ../shared/nni-3.0/" + LAUNCHER + " beside the checkout or its parents (nor -Dnni.real=DIR)";
            return;
        }
        try {
            Process probe = new ProcessBuilder(launcher.toString(), "-c", "import nni, sys; sys.stdout.write(nni.__version__)")
                    .redirectErrorStream(true).start();
            probe.getOutputStream().close();
            String output = new String(probe.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            if (!probe.waitFor(120, TimeUnit.SECONDS) || probe.exitValue() != 0) {
                String last = output.lines().reduce((first, second) -> second).orElse("");
                missing = launcher + " cannot import nni (" + last + "): run ../shared/nni-3.0/install-deps as root (.ci/run does)";
                return;
            }
            found = launcher;
        } catch (IOException e) {
            missing = launcher + " cannot be run: " + e.getMessage();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            missing = "interrupted while probing " + launcher;
        }
    }
}
