package nni.ts.kubeflow.internal;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import nni.api.config.Units;
import nni.ts.k8s.CustomResourceType;
import nni.ts.k8s.JobKind;
import nni.ts.k8s.JobRequest;
import nni.ts.k8s.JobState;
import nni.ts.k8s.NniObjects;

/**
 * NNI's TFJob and PyTorchJob, as the Kubeflow training operator defines them
 * ({@code kubeflow.org/<apiVersion>}): the roles as replica specs ({@code worker}, {@code ps},
 * {@code master} become {@code Worker}, {@code PS}, {@code Chief} for TensorFlow and {@code Master},
 * {@code Worker} for PyTorch), one container named {@code tensorflow} or {@code pytorch} per pod with
 * the role's image and resources (requests equal to limits) and the experiment's share (NFS or Azure
 * Files) at {@code /tmp/mount},
 * and {@code restartPolicy: Never} on each replica spec, where the operator reads it (a keeper that
 * ended must not be run again: the tuner decides what to try next). The keeper runs in pod 0 of
 * the Chief/Master, else of the Workers. Status: the type of the last condition.
 */
final class KubeflowJobs implements JobKind {

    /** One configured role. */
    record Role(String key, String replicaType, int replicas, String command, long gpus, long cpus, long memoryMegabytes,
                String image) {
    }

    private final CustomResourceType type;
    private final boolean tensorflow;
    private final List<Role> roles;
    private final Role lead;

    @SuppressWarnings("unchecked")
    KubeflowJobs(Map<String, Object> section) {
        tensorflow = "tf-operator".equals(section.get("operator"));
        String version = String.valueOf(section.get("apiVersion"));
        type = tensorflow
                ? new CustomResourceType("kubeflow.org", version, "TFJob", "tfjobs", "the Kubeflow training operator (TFJob)")
                : new CustomResourceType("kubeflow.org", version, "PyTorchJob", "pytorchjobs", "the Kubeflow training operator (PyTorchJob)");
        roles = new ArrayList<>();
        for (String key : KubeflowSection.ROLES) {
            if (section.get(key) instanceof Map<?, ?> role) {
                roles.add(role(key, (Map<String, Object>) role));
            }
        }
        lead = roles.stream().filter(r -> r.key().equals("master")).findFirst()
                .orElse(roles.stream().filter(r -> r.key().equals("worker")).findFirst().orElse(roles.get(0)));
    }

    private Role role(String key, Map<String, Object> role) {
        String replicaType = switch (key) {
            case "worker" -> "Worker";
            case "ps" -> "PS";
            default -> tensorflow ? "Chief" : "Master";
        };
        return new Role(key, replicaType, ((Number) role.get("replicas")).intValue(), String.valueOf(role.get("command")),
                role.get("gpuNumber") instanceof Number n ? n.longValue() : 0, ((Number) role.get("cpuNumber")).longValue(),
                Units.megabytes(role.get("memorySize")), String.valueOf(role.getOrDefault("dockerImage", "msranni/nni:latest")));
    }

    @Override
    public CustomResourceType type() {
        return type;
    }

    @Override
    public String objectName(String experimentId, boolean perTrial, String id) {
        return perTrial ? NniObjects.dashedTrialName(experimentId, id) : NniObjects.compactName(experimentId, false, id);
    }

    /** The operator names pods {@code <job>-<replica type, lower case>-<index>}; a pod's hostname is its name. */
    @Override
    public String leadTest(String objectName) {
        return "[ \"${HOSTNAME:-}\" = '" + objectName + "-" + lead.replicaType().toLowerCase(Locale.ROOT) + "-0' ]";
    }

    @Override
    public String leadCommand() {
        return lead.command();
    }

    @Override
    public Map<String, Object> job(JobRequest request) {
        Map<String, Object> replicaSpecs = new LinkedHashMap<>();
        for (Role role : roles) {
            Map<String, Object> container = new LinkedHashMap<>();
            container.put("name", tensorflow ? "tensorflow" : "pytorch");
            container.put("image", role.image());
            container.put("command", List.of("sh", "-c", request.script()));
            container.put("env", NniObjects.keeperEnvironment(request.placement(), role.command(), role.gpus()));
            container.put("volumeMounts", List.of(NniObjects.storageMount()));
            container.put("resources", NniObjects.resources(role.cpus(), role.memoryMegabytes(), role.gpus()));
            container.put("terminationMessagePolicy", "FallbackToLogsOnError");
            Map<String, Object> podSpec = new LinkedHashMap<>();
            podSpec.put("containers", List.of(container));
            podSpec.put("volumes", List.of(request.volume()));
            Map<String, Object> template = new LinkedHashMap<>();
            template.put("metadata", Map.of("labels", request.labels()));
            template.put("spec", podSpec);
            Map<String, Object> replicaSpec = new LinkedHashMap<>();
            replicaSpec.put("replicas", role.replicas());
            replicaSpec.put("restartPolicy", "Never");
            replicaSpec.put("template", template);
            replicaSpecs.put(role.replicaType(), replicaSpec);
        }
        Map<String, Object> job = new LinkedHashMap<>();
        job.put("apiVersion", type.apiVersion());
        job.put("kind", type.kind());
        job.put("metadata", NniObjects.metadata(request.objectName(), request.namespace(), request.labels()));
        job.put("spec", Map.of(tensorflow ? "tfReplicaSpecs" : "pytorchReplicaSpecs", replicaSpecs));
        return job;
    }

    /** NNI's mapping: the last element of {@code status.conditions}. */
    @Override
    public JobState state(Map<String, Object> job) {
        if (!(job.get("status") instanceof Map<?, ?> status) || !(status.get("conditions") instanceof List<?> conditions)
                || conditions.isEmpty() || !(conditions.get(conditions.size() - 1) instanceof Map<?, ?> last)) {
            return JobState.of(JobState.Phase.PENDING);
        }
        String message = last.get("message") == null ? "" : String.valueOf(last.get("message"));
        return switch (String.valueOf(last.get("type"))) {
            case "Created" -> JobState.of(JobState.Phase.PENDING, message);
            case "Running" -> JobState.of(JobState.Phase.RUNNING, message);
            case "Succeeded" -> JobState.of(JobState.Phase.SUCCEEDED, message);
            case "Failed" -> JobState.of(JobState.Phase.FAILED, message);
            default -> JobState.of(JobState.Phase.UNCHANGED, message);
        };
    }

    @Override
    public Map<String, String> attributes() {
        return Map.of("kind", type.kind(), "operator", tensorflow ? "tf-operator" : "pytorch-operator");
    }
}
