package nni.api;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.After;
import org.junit.Before;
import org.junit.Test;

/**
 * The build's baselining compares: nni.api is built again by Maven, from a copy of this module
 * whose sources were changed, against the released jar kept in {@code nni.api/baseline/} (the
 * pom's {@code nni.api.baseline.version}).
 * A change the package version does not allow fails the build; an addition under a minor bump
 * passes. Each case is one real {@code mvn verify} of the copy (no tests), a few seconds.
 */
public class BaselineIT {

    private static final Path MODULE = Paths.get(System.getProperty("nni.api.dir", "."));
    private static final long BUILD_MINUTES = 5;

    private Path root;
    private Path copy;

    @Before
    public void copyTheModule() throws IOException {
        root = Files.createTempDirectory(MODULE.resolve("target"), "baseline-");
        copyTree(MODULE.resolve("../cnf/pom.xml"), root.resolve("cnf/pom.xml"));
        copyTree(MODULE.resolve("../bnd.bnd"), root.resolve("bnd.bnd"));
        copy = root.resolve("nni.api");
        for (String part : new String[] {"pom.xml", "bnd.bnd", "baseline", "src/main"}) {
            copyTree(MODULE.resolve(part), copy.resolve(part));
        }
    }

    @After
    public void removeTheCopy() throws IOException {
        if (root != null) {
            try (Stream<Path> walk = Files.walk(root)) {
                walk.sorted((a, b) -> b.getNameCount() - a.getNameCount()).forEach(p -> p.toFile().delete());
            }
        }
    }

    @Test
    public void removingAPublicMethodFailsTheBuild() throws Exception {
        edit("nni/api/platform/Capacity.java",
                Pattern.compile("\\s*/\\*\\* @return a capacity of \\{@code count\\} free trial slots \\*/\\s*"
                        + "public static Capacity freeTrialSlots\\(int count\\) \\{[^}]*}"),
                "");

        Build build = build();

        assertEquals(build.output, 1, build.exitCode);
        // whatever minor version the package has reached since the release, a removal needs the next major
        assertTrue(build.report, build.packageLine("nni.api.platform").matches(".*PACKAGE\\s+MAJOR\\s+"
                + Pattern.quote(version("nni/api/platform")) + "\\s+" + Pattern.quote(released("nni.api.platform"))
                + "\\s+" + Pattern.quote(nextMajor(released("nni.api.platform"))) + ".*"));
        assertTrue(build.output, build.output.contains("Baseline problems detected"));
    }

    @Test
    public void addingAMethodWithoutAMinorBumpFailsTheBuild() throws Exception {
        addAMethodToTrialJob();

        Build build = build();

        assertEquals(build.output, 1, build.exitCode);
        assertEquals("nni.api.model as released", "1.0.0", released("nni.api.model"));
        assertTrue(build.report, build.packageLine("nni.api.model").matches(".*PACKAGE\\s+MINOR\\s+1\\.0\\.0\\s+1\\.0\\.0\\s+1\\.1\\.0.*"));
    }

    @Test
    public void addingAMethodUnderAMinorBumpPasses() throws Exception {
        addAMethodToTrialJob();
        edit("nni/api/model/package-info.java", Pattern.compile("Version\\(\"1\\.0\\.0\"\\)"),
                "Version(\"1.1.0\")");

        Build build = build();

        assertEquals(build.output, 0, build.exitCode);
        assertTrue(build.report, build.packageLine("nni.api.model").matches(".*PACKAGE\\s+MINOR\\s+1\\.1\\.0\\s+1\\.0\\.0\\s+ok.*"));
        // the packages the edit did not touch stay as they are: accepted at whatever version they have
        assertTrue(build.report, build.packageLine("nni.api.platform").matches(".*PACKAGE\\s+\\w+\\s+"
                + Pattern.quote(version("nni/api/platform")) + "\\s+" + Pattern.quote(released("nni.api.platform")) + "\\s+ok.*"));
    }

    /** @return the version a package of this module declares in its package-info.java */
    private String version(String packagePath) throws IOException {
        String info = Files.readString(copy.resolve("src/main/java").resolve(packagePath).resolve("package-info.java"));
        Matcher version = Pattern.compile("Version\\(\"([0-9.]+)\"\\)").matcher(info);
        assertTrue(packagePath + "/package-info.java declares no version", version.find());
        return version.group(1);
    }

    /** @return the version the released jar in baseline/ exports a package at */
    private String released(String packageName) throws IOException {
        Matcher pom = Pattern.compile("<nni.api.baseline.version>([0-9.]+)<").matcher(Files.readString(copy.resolve("pom.xml")));
        assertTrue("the pom names no baseline version", pom.find());
        Path jar = copy.resolve("baseline/nni/nni.api").resolve(pom.group(1)).resolve("nni.api-" + pom.group(1) + ".jar");
        try (JarFile released = new JarFile(jar.toFile())) {
            String exports = released.getManifest().getMainAttributes().getValue("Export-Package");
            Matcher version = Pattern.compile(Pattern.quote(packageName) + ";version=\"([0-9.]+)\"").matcher(exports);
            assertTrue(jar + " does not export " + packageName + ": " + exports, version.find());
            return version.group(1);
        }
    }

    private static String nextMajor(String version) {
        return (Integer.parseInt(version.substring(0, version.indexOf('.'))) + 1) + ".0.0";
    }

    /** A new field's getter, as a platform-facing type gains one: a minor change of nni.api.model. */
    private void addAMethodToTrialJob() throws IOException {
        edit("nni/api/model/TrialJob.java", Pattern.compile("(public String host\\(\\) \\{)"),
                "public String queue() {\n        return \"\";\n    }\n\n    $1");
    }

    private void edit(String source, Pattern what, String replacement) throws IOException {
        Path file = copy.resolve("src/main/java").resolve(source);
        String text = Files.readString(file);
        Matcher matcher = what.matcher(text);
        assertTrue("the test's edit of " + source + " no longer matches it: " + what, matcher.find());
        Files.writeString(file, matcher.replaceFirst(replacement));
    }

    private Build build() throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(Paths.get(System.getProperty("maven.home"), "bin", "mvn").toString());
        command.add("-B");
        if (Boolean.getBoolean("nni.maven.offline")) {
            command.add("-o");
        }
        command.add("-Dmaven.repo.local=" + System.getProperty("nni.maven.repo.local"));
        // the baseline is a file: repository, which an offline build reads only when told so
        command.add("-Daether.offline.protocols=file");
        command.add("-DskipTests");
        command.add("verify");
        Path log = root.resolve("build.log");
        Process process = new ProcessBuilder(command).directory(copy.toFile()).redirectErrorStream(true)
                .redirectOutput(log.toFile()).start();
        if (!process.waitFor(BUILD_MINUTES, TimeUnit.MINUTES)) {
            process.destroyForcibly().waitFor();
            throw new AssertionError("mvn verify of the copy did not end within " + BUILD_MINUTES + " minutes:\n"
                    + Files.readString(log));
        }
        Path report = copy.resolve("target/baseline/nni.api-1.0.0-SNAPSHOT.txt");
        return new Build(process.exitValue(), Files.readString(log),
                Files.exists(report) ? Files.readString(report, StandardCharsets.UTF_8) : "(no baseline report)");
    }

    private static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> walk = Files.walk(from)) {
            walk.forEach(source -> {
                Path target = to.resolve(from.relativize(source).toString());
                try {
                    if (Files.isDirectory(source)) {
                        Files.createDirectories(target);
                    } else {
                        Files.createDirectories(target.getParent());
                        Files.copy(source, target, StandardCopyOption.REPLACE_EXISTING);
                    }
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        }
    }

    private static final class Build {
        final int exitCode;
        final String output;
        final String report;

        Build(int exitCode, String output, String report) {
            this.exitCode = exitCode;
            this.output = output;
            this.report = report;
        }

        /** @return the report's line for one package (a mismatch is marked with a leading *) */
        String packageLine(String packageName) {
            return report.lines().filter(line -> line.replaceFirst("^[ *]+", "").startsWith(packageName + " "))
                    .findFirst().orElseThrow(() -> new AssertionError("no line for " + packageName + " in:\n" + report + "\n" + output));
        }
    }
}
