package nni.manager.internal;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * For the faces' tests (nni.ui, nni.shell; issue 27): which classes of a bundle name a class of the
 * manager. Read from the compiled classes' constant pools, where every class a class uses is named
 * (an import, a fully qualified name, a lambda's target, a signature), so a class added to the bundle
 * is checked without being listed. The manager is on a face's test classpath; only this keeps it
 * out of the face's main classes.
 */
public final class ManagerNames {

    /**
     * How a class of the engine is named in a constant pool: the manager's, and those of the
     * libraries only the manager uses (its store, its reading of config files).
     */
    private static final List<String> ENGINE = List.of("nni/manager/", "nni/store/", "nni/config/");

    private ManagerNames() {
    }

    /** @return every class file of the classes folder {@code member} was loaded from */
    public static List<Path> classesBeside(Class<?> member) throws IOException, URISyntaxException {
        Path root = Path.of(member.getProtectionDomain().getCodeSource().getLocation().toURI());
        try (Stream<Path> files = Files.walk(root)) {
            return files.filter(f -> f.getFileName().toString().endsWith(".class")).sorted().toList();
        }
    }

    /** @return the file names of those classes that name a class of the engine */
    public static Set<String> managerUsers(List<Path> classes) throws IOException {
        Set<String> users = new TreeSet<>();
        for (Path file : classes) {
            String constants = new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1);
            if (ENGINE.stream().anyMatch(constants::contains)) {
                users.add(file.getFileName().toString());
            }
        }
        return users;
    }
}
