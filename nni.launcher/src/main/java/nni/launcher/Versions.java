package nni.launcher;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.jar.JarInputStream;
import java.util.jar.Manifest;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * {@code java -jar nni-osgi.jar version} without starting the framework: the versions the runtime's
 * {@code nni:version} shows and the platforms its bundles provide, read from the runnable jar
 * ({@code launcher.properties}, Felix's {@code Felix.properties}, the embedded bundles' component
 * descriptions) and from the home's {@code deploy/} folder. Nothing is written: a home that does
 * not exist stays so.
 */
final class Versions {

    /** The service property that names a platform ({@code nni.api.platform.TrainingPlatform.PLATFORM}). */
    private static final String PLATFORM_PROPERTY = "nni.platform";
    private static final String PLATFORM_SERVICE = "nni.api.platform.TrainingPlatform";
    private static final Pattern PROPERTY_TAG = Pattern.compile("<property\\s[^>]*name=\"" + Pattern.quote(PLATFORM_PROPERTY) + "\"[^>]*>");
    private static final Pattern VALUE = Pattern.compile("value=\"([^\"]*)\"");

    private Versions() {
    }

    /** Prints the versions and the platforms. @return the exit code */
    static int print(Path home, PrintStream out, PrintStream err) {
        try (InputStream in = Versions.class.getClassLoader().getResourceAsStream("launcher.properties")) {
            if (in == null) {
                err.println("nni-osgi: version: the runnable jar has no launcher.properties (run from classes?)");
                return 1;
            }
            Properties launch = new Properties();
            launch.load(in);
            out.println("manager: " + bundleVersion(launch, "nni.manager"));
            out.println("api: " + bundleVersion(launch, "nni.api"));
            out.println("framework: org.apache.felix.framework " + felixVersion());
            out.println("java: " + System.getProperty("java.version"));
            Set<String> platforms = new TreeSet<>(embeddedPlatforms(launch));
            platforms.addAll(deployedPlatforms(home.resolve("deploy")));
            out.println("platforms: " + String.join(", ", platforms));
            return 0;
        } catch (IOException e) {
            err.println("nni-osgi: version: cannot read the runnable jar: " + Main.describe(e));
            return 1;
        }
    }

    /** @return the bundle's version as the framework shows it, from the bundle list's attributes */
    private static String bundleVersion(Properties launch, String symbolicName) {
        Matcher version = Pattern.compile("(?:^|,)" + Pattern.quote(symbolicName) + ";version\\\\?=\"([^\"]+)\"")
                .matcher(launch.getProperty("launch.runbundles.attrs", ""));
        return version.find() ? version.group(1) : "?";
    }

    private static String felixVersion() throws IOException {
        try (InputStream in = Versions.class.getClassLoader().getResourceAsStream("org/apache/felix/framework/Felix.properties")) {
            if (in == null) {
                return "?";
            }
            Properties felix = new Properties();
            felix.load(in);
            return felix.getProperty("felix.version", "?");
        }
    }

    /** @return the platform names of the bundles embedded in the runnable jar */
    private static List<String> embeddedPlatforms(Properties launch) throws IOException {
        List<String> names = new ArrayList<>();
        Path jar;
        try {
            jar = Path.of(Versions.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (java.net.URISyntaxException | RuntimeException e) {
            return names;
        }
        try (ZipFile runnable = new ZipFile(jar.toFile())) {
            for (String path : launch.getProperty("launch.bundles", "").split(",")) {
                ZipEntry entry = runnable.getEntry(path.strip());
                if (entry != null) {
                    try (JarInputStream bundle = new JarInputStream(runnable.getInputStream(entry), false)) {
                        names.addAll(platforms(bundle));
                    }
                }
            }
        }
        return names;
    }

    /**
     * @return the platform names of a bundle read as a stream: its components' descriptions come
     *         right after the manifest in a bnd-built bundle, so only a platform bundle is read further
     */
    private static List<String> platforms(JarInputStream bundle) throws IOException {
        Set<String> descriptions = components(bundle.getManifest());
        List<String> names = new ArrayList<>();
        for (JarEntry entry = bundle.getNextJarEntry(); entry != null && !descriptions.isEmpty(); entry = bundle.getNextJarEntry()) {
            if (descriptions.remove(entry.getName())) {
                names.addAll(platformNames(new String(bundle.readAllBytes(), StandardCharsets.UTF_8)));
            }
        }
        return names;
    }

    /** @return the platform names of the home's deployed bundles (FileInstall's {@code deploy/}) */
    private static List<String> deployedPlatforms(Path deploy) {
        List<String> names = new ArrayList<>();
        if (!Files.isDirectory(deploy)) {
            return names;
        }
        try (var files = Files.list(deploy)) {
            for (Path file : files.filter(path -> path.getFileName().toString().endsWith(".jar")).sorted().toList()) {
                try (JarFile bundle = new JarFile(file.toFile(), false)) {
                    for (String description : components(bundle.getManifest())) {
                        ZipEntry entry = bundle.getEntry(description);
                        if (entry != null) {
                            try (InputStream in = bundle.getInputStream(entry)) {
                                names.addAll(platformNames(new String(in.readAllBytes(), StandardCharsets.UTF_8)));
                            }
                        }
                    }
                } catch (IOException e) {
                    // not a bundle the runtime could install either
                }
            }
        } catch (IOException e) {
            // an unreadable deploy/ holds no platform the runtime could install
        }
        return names;
    }

    /** @return the component descriptions of a bundle that provides a platform service, else none */
    private static Set<String> components(Manifest manifest) {
        Set<String> descriptions = new TreeSet<>();
        if (manifest == null) {
            return descriptions;
        }
        String provided = manifest.getMainAttributes().getValue("Provide-Capability");
        String components = manifest.getMainAttributes().getValue("Service-Component");
        if (provided == null || components == null || !provided.contains(PLATFORM_SERVICE)) {
            return descriptions;
        }
        for (String description : components.split(",")) {
            if (!description.isBlank()) {
                descriptions.add(description.strip());
            }
        }
        return descriptions;
    }

    private static List<String> platformNames(String description) {
        List<String> names = new ArrayList<>();
        Matcher tag = PROPERTY_TAG.matcher(description);
        while (tag.find()) {
            Matcher value = VALUE.matcher(tag.group());
            if (value.find()) {
                names.add(value.group(1));
            }
        }
        return names;
    }
}
