package nni.ts.kubeflow.internal;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.Test;

import nni.api.config.ConfigProblem;

/** What training-operator's admission webhook refuses, refused by the section check before any job exists. */
public class KubeflowSectionTest {

    private static Map<String, Object> section(String operator, int masterReplicas) {
        Map<String, Object> section = new HashMap<>();
        section.put("platform", "kubeflow");
        section.put("operator", operator);
        section.put("apiVersion", "v1");
        section.put("storage", Map.of("storageType", "nfs", "server", "192.0.2.1", "path", "/exports"));
        section.put("master", role(masterReplicas));
        section.put("worker", role(2));
        return section;
    }

    private static Map<String, Object> role(int replicas) {
        return new HashMap<>(Map.of("replicas", replicas, "command", "python3 trial.py", "gpuNumber", 0, "cpuNumber", 1,
                "memorySize", "1gb", "dockerImage", "msranni/nni:latest", "codeDirectory", "."));
    }

    private static List<ConfigProblem> problems(Map<String, Object> section) {
        return KubeflowSection.check(section, Path.of(".")).problems();
    }

    @Test
    public void aPyTorchJobsMasterHasExactlyOneReplica() {
        assertEquals(List.of(), problems(section("pytorch-operator", 1)));
        for (int replicas : new int[] {0, 2}) {
            List<ConfigProblem> problems = problems(section("pytorch-operator", replicas));
            assertEquals(problems.toString(), 1, problems.size());
            assertEquals("master.replicas", problems.get(0).path());
            assertTrue(problems.get(0).message(), problems.get(0).message().contains("exactly 1 replica, got " + replicas));
        }
    }

    @Test
    public void aTfJobHasAtMostOneChief() {
        assertEquals(List.of(), problems(section("tf-operator", 1)));
        assertEquals(List.of(), problems(section("tf-operator", 0)));
        List<ConfigProblem> problems = problems(section("tf-operator", 3));
        assertEquals(problems.toString(), 1, problems.size());
        assertEquals("master.replicas", problems.get(0).path());
        assertTrue(problems.get(0).message(), problems.get(0).message().contains("at most one Chief"));
    }
}
