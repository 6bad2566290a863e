package nni.ui.internal.api;

import java.io.IOException;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Collections;
import java.util.Enumeration;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;

import org.osgi.framework.BundleContext;

/**
 * A configuration kept as {@code <home>/etc/<pid>.cfg}, where the runtime reads configurations at
 * every start (FileInstall). Written whole and atomically, settings in name order; a new file is
 * readable by its owner only (it may hold a secret), an existing one keeps its permissions.
 */
final class ConfigFile {

    private static final String HOME = "nni.home";
    private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rw-------");

    private ConfigFile() {
    }

    /** @return the file of configuration {@code pid}, or empty when the runtime has no home folder */
    static Optional<Path> of(BundleContext context, String pid) {
        String home = context.getProperty(HOME);
        return home == null || home.isBlank() ? Optional.empty() : Optional.of(Path.of(home, "etc", pid + ".cfg").toAbsolutePath());
    }

    /** @return the file a FileInstall file name (a URL) names, as a path; the text itself when it is no file URL */
    static String path(String fileName) {
        try {
            return Path.of(java.net.URI.create(fileName)).toString();
        } catch (IllegalArgumentException | java.nio.file.FileSystemNotFoundException e) {
            return fileName;
        }
    }

    static void write(Path file, Map<String, String> settings) throws IOException {
        Files.createDirectories(file.getParent());
        Path temporary = file.resolveSibling("." + file.getFileName() + ".new");
        Files.deleteIfExists(temporary);
        boolean posix = Files.getFileAttributeView(file.getParent(), PosixFileAttributeView.class) != null;
        if (posix) {
            Set<PosixFilePermission> permissions = Files.exists(file) ? Files.getPosixFilePermissions(file) : OWNER_ONLY;
            Files.createFile(temporary, PosixFilePermissions.asFileAttribute(permissions));
        } else {
            Files.createFile(temporary);
        }
        Files.writeString(temporary, text(settings), StandardCharsets.ISO_8859_1);
        Files.move(temporary, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    /** @return the settings as a properties file (escaped as {@link Properties} does), in name order */
    static String text(Map<String, String> settings) throws IOException {
        TreeMap<String, String> sorted = new TreeMap<>(settings);
        Properties properties = new Properties() {
            private static final long serialVersionUID = 1L;

            @Override
            public synchronized Enumeration<Object> keys() {
                return Collections.enumeration(sorted.keySet().stream().map(k -> (Object) k).toList());
            }

            @Override
            public Set<Map.Entry<Object, Object>> entrySet() {
                Map<Object, Object> ordered = new java.util.LinkedHashMap<>(sorted);
                return Collections.unmodifiableSet(ordered.entrySet());
            }
        };
        properties.putAll(sorted);
        StringWriter out = new StringWriter();
        properties.store(out, "saved from the web UI's platforms page; read at every start");
        return out.toString();
    }
}
