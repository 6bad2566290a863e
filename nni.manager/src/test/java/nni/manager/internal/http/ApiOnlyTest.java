package nni.manager.internal.http;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

import org.junit.Test;

import nni.manager.internal.service.ExperimentServiceComponent;

/**
 * NNI's REST routes use the engine only through {@code nni.api.experiment}, so that they can move
 * out of the manager: no compiled class of this package (lambdas and nested classes included)
 * refers to the engine's {@code internal.experiment} or {@code internal.store} packages. A class's
 * constant pool names every class it refers to (types, method descriptors, casts), so the check
 * reads the class files' bytes for those package names.
 */
public class ApiOnlyTest {

    private static final List<String> ENGINE = List.of("nni/manager/internal/experiment/", "nni/manager/internal/store/");

    @Test
    public void noClassOfTheRoutesRefersToTheEngine() throws Exception {
        Map<String, List<String>> references = engineReferences(classesOf(ExperimentRoutes.class));
        assertTrue("no classes found", references.keySet().stream().anyMatch(name -> name.startsWith("ExperimentRoutes")));
        references.values().removeIf(List::isEmpty);
        assertEquals("classes of nni.manager.internal.http that use the engine rather than nni.api.experiment",
                Map.of(), references);
    }

    /** The check sees what it looks for: the service, which adapts the engine, refers to both packages. */
    @Test
    public void theCheckFindsTheEngineWhereItIsUsed() throws Exception {
        Map<String, List<String>> references = engineReferences(classesOf(ExperimentServiceComponent.class));
        assertEquals(ENGINE, references.get("ExperimentServiceComponent.class"));
        assertFalse(references.isEmpty());
    }

    private static Path classesOf(Class<?> type) throws URISyntaxException {
        Path root = Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
        return root.resolve(type.getPackageName().replace('.', '/'));
    }

    /** @return for each class file in the folder, the engine packages its bytes name */
    private static Map<String, List<String>> engineReferences(Path folder) throws IOException {
        Map<String, List<String>> references = new TreeMap<>();
        try (Stream<Path> files = Files.list(folder)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".class")).toList()) {
                // class names are modified UTF-8 in the pool: plain ASCII for these package names
                String bytes = new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1);
                references.put(file.getFileName().toString(), ENGINE.stream().filter(bytes::contains).toList());
            }
        }
        return references;
    }
}
