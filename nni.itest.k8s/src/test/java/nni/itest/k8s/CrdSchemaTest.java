package nni.itest.k8s;

import static org.junit.Assert.assertEquals;

import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.Test;

/** The schema check refuses what the operators' CRDs refuse, and what an API server would prune. */
public class CrdSchemaTest {

    private static Map<String, Object> framework(String name, String role, int tasks) {
        return Map.of("apiVersion", "frameworkcontroller.microsoft.com/v1", "kind", "Framework",
                "metadata", Map.of("name", name, "labels", Map.of("app", "nni-kubernetes-trial")),
                "spec", Map.of("executionType", "Start", "taskRoles", List.of(Map.of("name", role, "taskNumber", tasks,
                        "frameworkAttemptCompletionPolicy", Map.of("minFailedTaskCount", 1, "minSucceededTaskCount", -1),
                        "task", Map.of("pod", Map.of("spec", Map.of("containers", List.of())))))));
    }

    @Test
    public void frameworkNamesTaskNumbersAndUnknownFields() {
        assertEquals(List.of(), KubernetesCluster.FRAMEWORKS.violations(framework("nniexpab12cd34trialxy9z1", "worker", 1)));
        assertEquals(Set.of("metadata.name: \"nni-exp-x\" does not match ^[a-z0-9]{1,63}$",
                "spec.taskRoles[0].name: \"Worker\" does not match ^[a-z0-9]{1,63}$",
                "spec.taskRoles[0].taskNumber: 10001 is above the maximum 10000"),
                Set.copyOf(KubernetesCluster.FRAMEWORKS.violations(framework("nni-exp-x", "Worker", 10001))));
        Map<String, Object> unknown = Map.of("apiVersion", "frameworkcontroller.microsoft.com/v1", "kind", "Framework",
                "metadata", Map.of("name", "f"), "spec", Map.of("executionType", "Run", "taskroles", List.of()));
        assertEquals(Set.of("spec.executionType: \"Run\" is not one of [Create, Start, Stop]",
                "spec.taskroles: unknown field (the API server would drop it)"), Set.copyOf(KubernetesCluster.FRAMEWORKS.violations(unknown)));
    }

    @Test
    public void tfJobReplicaSpecs() {
        Map<String, Object> replica = Map.of("replicas", 1, "restartPolicy", "Never", "template", Map.of("spec", Map.of(
                "containers", List.of(Map.of("name", "tensorflow", "image", "i", "resources", Map.of("limits", Map.of("cpu", "1")))))));
        Map<String, Object> job = Map.of("apiVersion", "kubeflow.org/v1", "kind", "TFJob", "metadata", Map.of("name", "j"),
                "spec", Map.of("tfReplicaSpecs", Map.of("Worker", replica)));
        assertEquals(List.of(), KubernetesCluster.TFJOBS.violations(job));
        Map<String, Object> bad = Map.of("apiVersion", "kubeflow.org/v1", "kind", "TFJob", "metadata", Map.of("name", "j"),
                "spec", Map.of("tfReplicaSpecs", Map.of("Worker", Map.of("replicas", "1", "restartpolicy", "Never",
                        "template", Map.of("spec", Map.of("containers", List.of(Map.of("image", "i"))))))));
        assertEquals(Set.of("spec.tfReplicaSpecs.Worker.replicas: expected integer, got \"1\"",
                "spec.tfReplicaSpecs.Worker.restartpolicy: unknown field (the API server would drop it)",
                "spec.tfReplicaSpecs.Worker.template.spec.containers[0].name: is required"),
                Set.copyOf(KubernetesCluster.TFJOBS.violations(bad)));
    }

    @Test
    public void adaptdlJobNeedsItsTemplate() {
        assertEquals(Set.of("spec.template: is required", "spec.maxReplicas: 0 is below the minimum 1"),
                Set.copyOf(KubernetesCluster.ADAPTDLJOBS.violations(Map.of("apiVersion", "adaptdl.petuum.com/v1", "kind", "AdaptDLJob",
                        "metadata", Map.of("name", "j"), "spec", Map.of("maxReplicas", 0)))));
    }
}
