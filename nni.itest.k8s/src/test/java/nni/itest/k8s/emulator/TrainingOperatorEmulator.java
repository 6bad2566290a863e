package nni.itest.k8s.emulator;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;

/**
 * One TFJob or PyTorchJob as the Kubeflow training operator (v1.8) runs it: condition
 * {@code Created}, then a pod per replica ({@code <job>-<type>-<index>}, labels
 * {@code training.kubeflow.org/*}, the replica spec's {@code restartPolicy}, {@code TF_CONFIG} or
 * PyTorch's {@code MASTER_ADDR}/{@code RANK}/...), {@code Running} once a pod runs, then
 * {@code Succeeded} (the Master, or the Chief, or else every Worker succeeded) or {@code Failed}
 * (a replica failed under {@code restartPolicy: Never}), each new condition appended last,
 * {@code replicaStatuses}, {@code startTime} and {@code completionTime}. Pods are not cleaned up
 * ({@code cleanPodPolicy: None}, the default).
 */
final class TrainingOperatorEmulator implements OperatorEmulator.Controller {

    private final OperatorEmulator emulator;
    private final GenericKubernetesResource job;
    private final ResourceDefinitionContext type;
    private final boolean pytorch;
    private final Map<String, Pod> pods = new LinkedHashMap<>();
    private final Map<String, String> replicaTypeOf = new LinkedHashMap<>();
    private boolean ended;

    TrainingOperatorEmulator(OperatorEmulator emulator, GenericKubernetesResource job, ResourceDefinitionContext type) {
        this.emulator = emulator;
        this.job = job;
        this.type = type;
        this.pytorch = type.getKind().equals("PyTorchJob");
    }

    @SuppressWarnings("unchecked")
    private Map<String, Map<String, Object>> replicaSpecs() {
        Map<String, Object> spec = (Map<String, Object>) job.getAdditionalProperties().get("spec");
        return (Map<String, Map<String, Object>>) spec.get(pytorch ? "pytorchReplicaSpecs" : "tfReplicaSpecs");
    }

    @Override
    @SuppressWarnings("unchecked")
    public void start(GenericKubernetesResource created) {
        String name = job.getMetadata().getName();
        condition("Created", type.getKind() + "Created", type.getKind() + " " + name + " is created.");
        Map<String, Map<String, Object>> specs = replicaSpecs();
        int world = specs.values().stream().mapToInt(s -> ((Number) s.getOrDefault("replicas", 1)).intValue()).sum();
        int rank = 0;
        for (String replicaType : List.of("Master", "Chief", "PS", "Worker", "Evaluator")) {
            Map<String, Object> spec = specs.get(replicaType);
            if (spec == null) {
                continue;
            }
            int replicas = ((Number) spec.getOrDefault("replicas", 1)).intValue();
            for (int index = 0; index < replicas; index++) {
                String podName = name + "-" + replicaType.toLowerCase(Locale.ROOT) + "-" + index;
                Map<String, String> labels = new LinkedHashMap<>();
                labels.put("training.kubeflow.org/job-name", name);
                labels.put("training.kubeflow.org/operator-name", pytorch ? "pytorchjob-controller" : "tfjob-controller");
                labels.put("training.kubeflow.org/replica-type", replicaType.toLowerCase(Locale.ROOT));
                labels.put("training.kubeflow.org/replica-index", Integer.toString(index));
                Map<String, String> env = new LinkedHashMap<>();
                if (pytorch) {
                    env.put("MASTER_PORT", "23456");
                    env.put("MASTER_ADDR", name + "-master-0");
                    env.put("WORLD_SIZE", Integer.toString(world));
                    env.put("RANK", Integer.toString(replicaType.equals("Master") ? 0 : ++rank));
                    env.put("PYTHONUNBUFFERED", "1");
                } else {
                    env.put("TF_CONFIG", tfConfig(specs, replicaType, index));
                }
                replicaTypeOf.put(podName, replicaType);
                String restartPolicy = (String) spec.getOrDefault("restartPolicy", pytorch ? "OnFailure" : "Never");
                if (!restartPolicy.equals("Never")) {
                    throw new IllegalStateException("the emulator runs replicas with restartPolicy Never only, got " + restartPolicy);
                }
                emulator.createPod(job, (Map<String, Object>) spec.get("template"), podName, labels, Map.of(), restartPolicy, null, env, this);
            }
        }
    }

    private String tfConfig(Map<String, Map<String, Object>> specs, String replicaType, int index) {
        String name = job.getMetadata().getName();
        List<String> cluster = new ArrayList<>();
        specs.forEach((rt, spec) -> {
            int replicas = ((Number) spec.getOrDefault("replicas", 1)).intValue();
            List<String> hosts = new ArrayList<>();
            for (int i = 0; i < replicas; i++) {
                hosts.add("\"" + name + "-" + rt.toLowerCase(Locale.ROOT) + "-" + i + "." + job.getMetadata().getNamespace() + ".svc:2222\"");
            }
            cluster.add("\"" + rt.toLowerCase(Locale.ROOT) + "\":[" + String.join(",", hosts) + "]");
        });
        return "{\"cluster\":{" + String.join(",", cluster) + "},\"task\":{\"type\":\"" + replicaType.toLowerCase(Locale.ROOT)
                + "\",\"index\":" + index + "},\"environment\":\"cloud\"}";
    }

    @Override
    public void podChanged(Pod pod) {
        pods.put(pod.getMetadata().getName(), pod);
        if (ended) {
            return;
        }
        Map<String, int[]> counts = new LinkedHashMap<>(); // active, succeeded, failed per replica type
        for (Pod each : pods.values()) {
            int[] count = counts.computeIfAbsent(replicaTypeOf.get(each.getMetadata().getName()), k -> new int[3]);
            switch (each.getStatus().getPhase()) {
                case "Running" -> count[0]++;
                case "Succeeded" -> count[1]++;
                case "Failed" -> count[2]++;
                default -> { }
            }
        }
        Map<String, Map<String, Object>> specs = replicaSpecs();
        String name = job.getMetadata().getName();
        String ns = job.getMetadata().getNamespace();
        for (Map.Entry<String, int[]> entry : counts.entrySet()) {
            if (entry.getValue()[2] > 0) {
                end("Failed", type.getKind() + "Failed", type.getKind() + " " + ns + "/" + name + " has failed because "
                        + entry.getValue()[2] + " " + entry.getKey() + " replica(s) failed.", counts);
                return;
            }
        }
        String lead = specs.containsKey("Master") ? "Master" : specs.containsKey("Chief") ? "Chief" : null;
        boolean succeeded = lead != null ? counts.getOrDefault(lead, new int[3])[1] == replicas(specs.get(lead))
                : specs.containsKey("Worker") && counts.getOrDefault("Worker", new int[3])[1] == replicas(specs.get("Worker"));
        if (succeeded) {
            end("Succeeded", type.getKind() + "Succeeded", type.getKind() + " " + ns + "/" + name + " successfully completed.", counts);
            return;
        }
        boolean anyRunning = counts.values().stream().anyMatch(c -> c[0] > 0);
        if (anyRunning) {
            emulator.writeStatus(type, job, true, status -> {
                List<Map<String, Object>> conditions = conditions(status);
                if (conditions.isEmpty() || !"Running".equals(conditions.get(conditions.size() - 1).get("type"))) {
                    set(conditions, "Running", type.getKind() + "Running", type.getKind() + " " + ns + "/" + name + " is running.");
                    status.putIfAbsent("startTime", Kubelet.now());
                }
                status.put("replicaStatuses", replicaStatuses(counts));
                status.put("lastReconcileTime", Kubelet.now());
                return status;
            });
        }
    }

    private static int replicas(Map<String, Object> spec) {
        return ((Number) spec.getOrDefault("replicas", 1)).intValue();
    }

    private void end(String conditionType, String reason, String message, Map<String, int[]> counts) {
        ended = true;
        emulator.writeStatus(type, job, true, status -> {
            List<Map<String, Object>> conditions = conditions(status);
            for (Map<String, Object> condition : conditions) {
                if ("Running".equals(condition.get("type"))) {
                    condition.put("status", "False");
                }
            }
            set(conditions, conditionType, reason, message);
            status.put("replicaStatuses", replicaStatuses(counts));
            status.putIfAbsent("startTime", Kubelet.now());
            status.put("completionTime", Kubelet.now());
            status.put("lastReconcileTime", Kubelet.now());
            return status;
        });
    }

    private void condition(String conditionType, String reason, String message) {
        emulator.writeStatus(type, job, true, status -> {
            set(conditions(status), conditionType, reason, message);
            status.putIfAbsent("replicaStatuses", Map.of());
            return status;
        });
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> conditions(Map<String, Object> status) {
        List<Map<String, Object>> conditions = status.get("conditions") instanceof List<?> l
                ? l.stream().map(c -> new LinkedHashMap<>((Map<String, Object>) c)).collect(Collectors.toCollection(ArrayList::new))
                : new ArrayList<>();
        status.put("conditions", conditions);
        return conditions;
    }

    /** The operator's setCondition: a condition of the same type is replaced, the new one goes last. */
    private static void set(List<Map<String, Object>> conditions, String conditionType, String reason, String message) {
        conditions.removeIf(c -> conditionType.equals(c.get("type")));
        Map<String, Object> condition = new LinkedHashMap<>();
        condition.put("type", conditionType);
        condition.put("status", "True");
        condition.put("reason", reason);
        condition.put("message", message);
        condition.put("lastUpdateTime", Kubelet.now());
        condition.put("lastTransitionTime", Kubelet.now());
        conditions.add(condition);
    }

    private static Map<String, Object> replicaStatuses(Map<String, int[]> counts) {
        Map<String, Object> statuses = new LinkedHashMap<>();
        counts.forEach((rt, c) -> statuses.put(rt, Map.of("active", c[0], "succeeded", c[1], "failed", c[2])));
        return statuses;
    }
}
