package nni.web.internal;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

import org.junit.Test;

import nni.web.internal.rest.NniApiServlet;

/**
 * Issue 27: nni.web is a face on the exported APIs; none of its classes, nested ones and lambdas
 * included, refers to a class of the manager. Read from the compiled classes' constant pools, where
 * every class a class uses is named (an import, a fully qualified name, a lambda's target, a
 * signature), so whichever class is added to the bundle is checked. The manager's configuration
 * PIDs this bundle kept ({@code nni.manager.login}, ...) are strings, not classes, and do not count.
 */
public class FacesOnTheApiTest {

    /** How a class of the engine is named in a constant pool: the manager's and its libraries' (store, config). */
    private static final List<String> ENGINE = List.of("nni/manager/", "nni/store/", "nni/config/");

    @Test
    public void noClassOfTheBundleRefersToTheManager() throws Exception {
        List<Path> classes = mainClasses();
        assertTrue("the REST servlet is among the classes read: " + classes,
                classes.stream().anyMatch(c -> c.endsWith(Path.of("rest", "NniApiServlet.class"))));
        Set<String> users = new TreeSet<>();
        for (Path file : classes) {
            String constants = constantPool(file);
            if (ENGINE.stream().anyMatch(constants::contains)) {
                users.add(file.getFileName().toString());
            }
        }
        assertEquals("classes of nni.web that use the manager", Set.of(), users);
    }

    /** The check sees a use where there is one: the REST servlet names the experiment API it uses. */
    @Test
    public void theCheckSeesTheClassesAClassUses() throws Exception {
        Path servlet = mainClasses().stream().filter(c -> c.endsWith(Path.of("rest", "NniApiServlet.class"))).findFirst().orElseThrow();
        assertTrue(constantPool(servlet).contains("nni/api/experiment/ExperimentService"));
    }

    /** @return every class file of the bundle's main classes (the tests' classes are in a folder of their own) */
    private static List<Path> mainClasses() throws Exception {
        Path root = Path.of(NniApiServlet.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        try (Stream<Path> files = Files.walk(root)) {
            return files.filter(f -> f.getFileName().toString().endsWith(".class")).sorted().toList();
        }
    }

    private static String constantPool(Path classFile) throws IOException {
        return new String(Files.readAllBytes(classFile), StandardCharsets.ISO_8859_1);
    }
}
