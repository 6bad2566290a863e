package nni.ui.internal.api;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

import org.junit.Test;

/**
 * The web UI's server side, in the nni.ui bundle (issue 27), stays on the exported API: none of the
 * bundle's classes names a package of the manager, read from the compiled classes' constant pools
 * (an import, a fully qualified name and a lambda's target all count), as FacesOnTheApiTest reads
 * the REST routes'. The manager is on this module's test classpath, so only the check keeps it out.
 */
public class WebUiOnTheApiTest {

    private static final String MANAGER = "nni/manager/";

    @Test
    public void noClassOfTheWebUiUsesTheManager() throws Exception {
        // target/classes: the bundle's classes, nested ones and those of nni.ui.internal included
        Path classes = Path.of(UiApiServlet.class.getResource("UiApiServlet.class").toURI()).getParent().getParent()
                .getParent().getParent();
        Set<String> used = new TreeSet<>();
        Set<String> read = new TreeSet<>();
        List<Path> files;
        try (Stream<Path> walk = Files.walk(classes)) {
            files = walk.filter(f -> f.getFileName().toString().endsWith(".class")).toList();
        }
        for (Path file : files) {
            String name = classes.relativize(file).toString();
            read.add(name.substring(name.lastIndexOf('/') + 1));
            if (new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1).contains(MANAGER)) {
                used.add(name);
            }
        }
        // the servlet, the overview, the live events and the static pages' servlet are there: the folder is the bundle's
        assertTrue("classes read in " + classes + ": " + read, read.containsAll(Set.of("UiApiServlet.class",
                "ExperimentOverview.class", "LiveEvents.class", "TrialTable.class", "WebUi.class")));
        assertEquals(Set.of(), used);
    }
}
