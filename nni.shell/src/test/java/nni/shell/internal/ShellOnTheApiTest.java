package nni.shell.internal;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Set;

import org.junit.Test;

import nni.manager.internal.ManagerNames;
import nni.shell.internal.command.ExperimentCommands;

/**
 * The Gogo commands, the launch commands, the console's route, the nnictl bridge and the log files,
 * in the nni.shell bundle (issue 27), stay on the exported API: none of the bundle's classes names a
 * class of the manager.
 */
public class ShellOnTheApiTest {

    @Test
    public void noClassOfTheShellUsesTheManager() throws Exception {
        List<Path> classes = ManagerNames.classesBeside(ExperimentCommands.class);
        // one class of each package is there: the folder is the bundle's
        for (String present : List.of("command/ExperimentCommands.class", "launch/LaunchCommandRunner.class",
                "console/ConsoleServlet.class", "nnictl/NnictlBridge.class", "logs/ExperimentLogFiles.class")) {
            assertTrue(present + " among the classes read: " + classes, classes.stream().anyMatch(c -> c.endsWith(Path.of(present))));
        }
        assertEquals("classes of nni.shell that use the manager", Set.of(), ManagerNames.managerUsers(classes));
    }
}
