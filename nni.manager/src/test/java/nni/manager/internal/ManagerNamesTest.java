package nni.manager.internal;

import static org.junit.Assert.assertTrue;

import java.nio.file.Path;
import java.util.List;

import org.junit.Test;

import nni.manager.internal.service.ExperimentServiceComponent;

/** The faces' check sees a use where there is one: the API's implementation names the engine. */
public class ManagerNamesTest {

    @Test
    public void theCheckSeesAClassThatUsesTheManager() throws Exception {
        List<Path> classes = ManagerNames.classesBeside(ExperimentServiceComponent.class);
        assertTrue("the service's class is among those read", classes.stream()
                .anyMatch(c -> c.endsWith(Path.of("service", "ExperimentServiceComponent.class"))));
        assertTrue(ManagerNames.managerUsers(classes).contains("ExperimentServiceComponent.class"));
    }
}
