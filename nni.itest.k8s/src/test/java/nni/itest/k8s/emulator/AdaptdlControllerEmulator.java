package nni.itest.k8s.emulator;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;

/**
 * One AdaptDLJob as AdaptDL's controller runs it ({@code sched/adaptdl_sched/controller.py}):
 * {@code status.phase} Pending, then Starting with an allocation (the emulator's allocator gives
 * {@code replicas} replicas, at most {@code spec.maxReplicas}) and group 0's pods
 * ({@code <job>-<group>-<rank>}, labels {@code adaptdl/job}, annotations {@code adaptdl/rank}...,
 * {@code restartPolicy: Never}, {@code ADAPTDL_*} variables, a {@code /dev/shm} volume), Running
 * once all are ready, Succeeded when all succeeded or Failed ({@code reason: PodFailure},
 * {@code message: "<pod> Failed"}) when one failed, with {@code completionTimestamp};
 * {@code replicas}, {@code readyReplicas}, {@code group}.
 */
final class AdaptdlControllerEmulator implements OperatorEmulator.Controller {

    private final OperatorEmulator emulator;
    private final GenericKubernetesResource job;
    private final int replicas;
    private final Map<String, Pod> pods = new LinkedHashMap<>();
    private boolean running;
    private boolean completed;

    @SuppressWarnings("unchecked")
    AdaptdlControllerEmulator(OperatorEmulator emulator, GenericKubernetesResource job, int replicas) {
        this.emulator = emulator;
        this.job = job;
        Map<String, Object> spec = (Map<String, Object>) job.getAdditionalProperties().get("spec");
        int max = spec.get("maxReplicas") instanceof Number n ? n.intValue() : Integer.MAX_VALUE;
        this.replicas = Math.max(1, Math.min(replicas, max));
    }

    @Override
    @SuppressWarnings("unchecked")
    public void start(GenericKubernetesResource created) {
        phase("Pending", null, null, false);
        List<String> allocation = new ArrayList<>();
        for (int i = 0; i < replicas; i++) {
            allocation.add(Kubelet.NODE);
        }
        emulator.writeStatus(OperatorEmulator.ADAPTDLJOB, job, true, status -> {
            status.put("phase", "Starting");
            status.put("allocation", allocation);
            status.put("group", 0);
            status.put("replicas", replicas);
            status.put("readyReplicas", 0);
            return status;
        });
        String name = job.getMetadata().getName();
        Map<String, Object> spec = (Map<String, Object>) job.getAdditionalProperties().get("spec");
        Map<String, Object> template = new LinkedHashMap<>((Map<String, Object>) spec.get("template"));
        Map<String, Object> podSpec = new LinkedHashMap<>((Map<String, Object>) template.get("spec"));
        List<Object> volumes = new ArrayList<>((List<Object>) podSpec.getOrDefault("volumes", List.of()));
        volumes.add(Map.of("name", "adaptdl-shm", "emptyDir", Map.of("medium", "Memory")));
        podSpec.put("volumes", volumes);
        List<Object> containers = new ArrayList<>();
        for (Object item : (List<Object>) podSpec.get("containers")) {
            Map<String, Object> container = new LinkedHashMap<>((Map<String, Object>) item);
            List<Object> mounts = new ArrayList<>((List<Object>) container.getOrDefault("volumeMounts", List.of()));
            mounts.add(Map.of("name", "adaptdl-shm", "mountPath", "/dev/shm"));
            container.put("volumeMounts", mounts);
            containers.add(container);
        }
        podSpec.put("containers", containers);
        template.put("spec", podSpec);
        for (int rank = 0; rank < replicas; rank++) {
            String podName = name + "-0-" + rank;
            Map<String, String> env = new LinkedHashMap<>();
            env.put("ADAPTDL_JOB_ID", job.getMetadata().getNamespace() + "/" + name);
            env.put("ADAPTDL_MASTER_PORT", "47000");
            env.put("ADAPTDL_NUM_NODES", "1");
            env.put("ADAPTDL_NUM_RESTARTS", "0");
            env.put("ADAPTDL_NUM_REPLICAS", Integer.toString(replicas));
            env.put("ADAPTDL_REPLICA_RANK", Integer.toString(rank));
            env.put("ADAPTDL_SUPERVISOR_URL", "http://adaptdl-supervisor:8080");
            env.put("ADAPTDL_SCHED_VERSION", "0.2.11");
            emulator.createPod(job, template, podName,
                    Map.of("adaptdl", "true", "adaptdl/job", name, "petuum.com/nodegroup", "all"),
                    Map.of("adaptdl/replicas", Integer.toString(replicas), "adaptdl/group", "0", "adaptdl/rank", Integer.toString(rank),
                            "adaptdl/node", Kubelet.NODE),
                    "Never", podName, env, this);
        }
    }

    @Override
    public void podChanged(Pod pod) {
        pods.put(pod.getMetadata().getName(), pod);
        if (completed) {
            return;
        }
        for (Pod each : pods.values()) {
            if ("Failed".equals(each.getStatus().getPhase())) {
                completed = true;
                phase("Failed", "PodFailure", each.getMetadata().getName() + " Failed", true);
                return;
            }
        }
        long succeeded = pods.values().stream().filter(p -> "Succeeded".equals(p.getStatus().getPhase())).count();
        if (succeeded == replicas) {
            completed = true;
            phase("Succeeded", null, null, true);
            return;
        }
        long ready = pods.values().stream().filter(p -> "Running".equals(p.getStatus().getPhase())).count();
        if (!running && ready == replicas) {
            running = true;
            emulator.writeStatus(OperatorEmulator.ADAPTDLJOB, job, true, status -> {
                status.put("phase", "Running");
                status.put("readyReplicas", (int) ready);
                return status;
            });
        }
    }

    private void phase(String phase, String reason, String message, boolean done) {
        emulator.writeStatus(OperatorEmulator.ADAPTDLJOB, job, true, status -> {
            status.put("phase", phase);
            if (reason != null) {
                status.put("reason", reason);
                status.put("message", message);
            }
            if (done) {
                status.putIfAbsent("completionTimestamp", Kubelet.now());
                status.put("allocation", List.of());
            }
            return status;
        });
    }
}
