package nni.api.config;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.Test;

public class KeyPathsTest {

    private static Map<String, Object> experiment() {
        Map<String, Object> machine = new LinkedHashMap<>(Map.of("host", "10.0.0.1", "password", "pw"));
        Map<String, Object> remote = new LinkedHashMap<>(Map.of("platform", "remote", "machineList", new ArrayList<>(List.of(machine))));
        return new LinkedHashMap<>(Map.of("trainingService", new ArrayList<>(List.of(Map.of("platform", "local"), remote))));
    }

    @Test
    public void getFollowsKeysAndIndicesAndAnswersNullWhereNothingIs() {
        Map<String, Object> tree = experiment();
        assertEquals("pw", KeyPaths.get(tree, "trainingService[1].machineList[0].password"));
        assertEquals("local", KeyPaths.get(tree, "trainingService[0].platform"));
        assertNull(KeyPaths.get(tree, "trainingService[2].platform"));
        assertNull(KeyPaths.get(tree, "trainingService[0].platform.name"));
        assertNull(KeyPaths.get(tree, "trainingService.platform"));
    }

    @Test
    public void replacedChangesACopyAtThePathsThatHoldAValueOnly() {
        Map<String, Object> tree = experiment();
        Map<String, Object> copy = KeyPaths.replaced(tree, Map.of("trainingService[1].machineList[0].password", "***",
                "trainingService[1].machineList[0].passphrase", "***", "trainingService[5]", "x"));
        assertEquals("***", KeyPaths.get(copy, "trainingService[1].machineList[0].password"));
        assertNull("no value there: not added", KeyPaths.get(copy, "trainingService[1].machineList[0].passphrase"));
        assertEquals(2, ((List<?>) copy.get("trainingService")).size());
        assertEquals("the input is unchanged", "pw", KeyPaths.get(tree, "trainingService[1].machineList[0].password"));
    }

    @Test
    public void aCopyIsDeep() {
        Map<String, Object> tree = experiment();
        Map<String, Object> copy = KeyPaths.copy(tree);
        @SuppressWarnings("unchecked")
        Map<String, Object> machine = (Map<String, Object>) KeyPaths.get(copy, "trainingService[1].machineList[0]");
        machine.put("host", "changed");
        assertEquals("10.0.0.1", KeyPaths.get(tree, "trainingService[1].machineList[0].host"));
    }
}
