package nni.itest.k8s;

import static org.junit.Assert.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.Test;

/**
 * The Roles nni.ts.k8s/README.md gives under "Kubernetes RBAC" are the ones the mock API server grants its
 * limited user ({@link MockCluster#LIMITED_TOKEN}) and the tests run with: that README shows the test
 * resources verbatim, so that the documentation cannot drift from what is tested.
 */
public class RbacDocsTest {

    @Test
    public void theReadmeShowsTheTestedRolesVerbatim() throws Exception {
        String readme = Files.readString(Path.of("..", "nni.ts.k8s", "README.md"));
        for (String file : new String[] {"nni-experiments.yaml", "nni-keeper-secrets.yaml", "nni-keeper-token-secret.yaml"}) {
            String yaml = RoleRules.resource(file);
            assertTrue("nni.ts.k8s/README.md shows src/test/resources/rbac/" + file + " as it is", readme.contains("```yaml\n" + yaml + "```\n"));
        }
    }
}
