package nni.manager.internal.ui;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.Test;

/**
 * The web UI's server side, ready for the nni.ui bundle (issue 27): none of its classes uses a package
 * of the manager other than its own, read from the compiled classes' constant pools (an import, a
 * fully qualified name and a lambda's target all count), as FacesOnTheApiTest reads the REST routes'.
 */
public class WebUiOnTheApiTest {

    private static final Pattern INTERNAL = Pattern.compile("nni/manager/internal/([a-z]+)/");

    @Test
    public void noClassOfTheWebUiUsesTheManager() throws Exception {
        Path folder = Path.of(UiApiServlet.class.getResource("UiApiServlet.class").toURI()).getParent();
        Set<String> used = new TreeSet<>();
        Set<String> read = new TreeSet<>();
        try (Stream<Path> classes = Files.list(folder)) {
            for (Path file : classes.filter(f -> f.getFileName().toString().endsWith(".class")).toList()) {
                read.add(file.getFileName().toString());
                Matcher matcher = INTERNAL.matcher(new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1));
                while (matcher.find()) {
                    if (!"ui".equals(matcher.group(1))) {
                        used.add(file.getFileName() + " -> " + matcher.group(1));
                    }
                }
            }
        }
        // the servlet, the overview and one class moved last are there: the folder is the UI's
        assertTrue("classes read in " + folder + ": " + read,
                read.containsAll(Set.of("UiApiServlet.class", "ExperimentOverview.class", "TrialTable.class")));
        assertEquals(Set.of(), used);
    }
}
