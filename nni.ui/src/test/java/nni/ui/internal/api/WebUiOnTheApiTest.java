package nni.ui.internal.api;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Set;

import org.junit.Test;

import nni.manager.internal.ManagerNames;

/**
 * The web UI's server side, in the nni.ui bundle (issue 27), stays on the exported API: none of the
 * bundle's classes, nested ones and those of nni.ui.internal included, names a class of the manager.
 */
public class WebUiOnTheApiTest {

    @Test
    public void noClassOfTheWebUiUsesTheManager() throws Exception {
        List<Path> classes = ManagerNames.classesBeside(UiApiServlet.class);
        // the servlet, the overview, the live events and the static pages' servlet are there: the folder is the bundle's
        for (String present : List.of("UiApiServlet.class", "ExperimentOverview.class", "LiveEvents.class", "TrialTable.class", "WebUi.class")) {
            assertTrue(present + " among the classes read: " + classes, classes.stream().anyMatch(c -> c.endsWith(present)));
        }
        assertEquals("classes of nni.ui that use the manager", Set.of(), ManagerNames.managerUsers(classes));
    }
}
