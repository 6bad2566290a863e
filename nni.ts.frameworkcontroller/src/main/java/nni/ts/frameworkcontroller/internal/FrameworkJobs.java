package nni.ts.frameworkcontroller.internal;

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
 * NNI's Framework, as FrameworkController defines it ({@code frameworkcontroller.microsoft.com/v1}):
 * {@code executionType: Start}, one task role per configured role with its {@code taskNumber} and
 * {@code frameworkAttemptCompletionPolicy}, each task a pod with one container named
 * {@code framework} (the role's image, resources with requests equal to limits, port
 * {@code 4000 + role index}, the experiment's share, NFS or Azure Files, at {@code /tmp/mount}), the experiment's
 * {@code serviceAccountName}, and, when there are several roles, the {@code frameworkbarrier} init
 * container whose injector gives every task the others' addresses ({@code FB_<ROLE>_IPS},
 * {@code FB_<ROLE>_ADDRESSES}). Pods are {@code restartPolicy: Never}: a keeper that ended is not run
 * again. The keeper runs in task 0 of the first role. Status: {@code status.state}, and for
 * {@code Completed} the completion type.
 */
final class FrameworkJobs implements JobKind {

    static final CustomResourceType TYPE = new CustomResourceType("frameworkcontroller.microsoft.com", "v1", "Framework",
            "frameworks", "FrameworkController");
    static final String BARRIER_IMAGE = "frameworkcontroller/frameworkbarrier";
    static final String BARRIER_VOLUME = "frameworkbarrier-volume";
    static final String BARRIER_PATH = "/mnt/frameworkbarrier";

    /** One configured task role. */
    record Role(String name, int tasks, int minFailed, int minSucceeded, String command, long gpus, long cpus,
                long memoryMegabytes, String image) {
    }

    private final List<Role> roles = new ArrayList<>();
    private final String serviceAccountName;

    @SuppressWarnings("unchecked")
    FrameworkJobs(Map<String, Object> section) {
        for (Object item : (List<Object>) section.get("taskRoles")) {
            Map<String, Object> role = (Map<String, Object>) item;
            Map<String, Object> policy = (Map<String, Object>) role.get("frameworkAttemptCompletionPolicy");
            roles.add(new Role(String.valueOf(role.get("name")), ((Number) role.get("taskNumber")).intValue(),
                    ((Number) policy.get("minFailedTaskCount")).intValue(), ((Number) policy.get("minSucceedTaskCount")).intValue(),
                    String.valueOf(role.get("command")), ((Number) role.get("gpuNumber")).longValue(),
                    ((Number) role.get("cpuNumber")).longValue(), Units.megabytes(role.get("memorySize")),
                    String.valueOf(role.getOrDefault("dockerImage", "msranni/nni:latest"))));
        }
        serviceAccountName = section.get("serviceAccountName") instanceof String name && !name.isBlank() ? name : null;
    }

    @Override
    public CustomResourceType type() {
        return TYPE;
    }

    @Override
    public String objectName(String experimentId, boolean perTrial, String id) {
        return NniObjects.compactName(experimentId, perTrial, id);
    }

    /** FrameworkController tells each container its task role and index ({@code FC_TASKROLE_NAME}, {@code FC_TASK_INDEX}). */
    @Override
    public String leadTest(String objectName) {
        return "[ \"${FC_TASKROLE_NAME:-}\" = '" + roles.get(0).name() + "' ] && [ \"${FC_TASK_INDEX:-}\" = 0 ]";
    }

    @Override
    public String leadCommand() {
        return roles.get(0).command();
    }

    @Override
    public Map<String, Object> job(JobRequest request) {
        boolean barrier = roles.size() > 1;
        StringBuilder ports = new StringBuilder();
        for (int i = 0; i < roles.size(); i++) {
            ports.append("FB_").append(roles.get(i).name().toUpperCase(Locale.ROOT)).append("_PORT=").append(4000 + i).append(' ');
        }
        String command = barrier ? ports + ". " + BARRIER_PATH + "/injector.sh || exit 1\n" + request.script() : request.script();
        List<Map<String, Object>> taskRoles = new ArrayList<>();
        for (int i = 0; i < roles.size(); i++) {
            Role role = roles.get(i);
            List<Map<String, Object>> mounts = new ArrayList<>(List.of(NniObjects.storageMount()));
            List<Map<String, Object>> volumes = new ArrayList<>(List.of(request.volume()));
            if (barrier) {
                mounts.add(Map.of("name", BARRIER_VOLUME, "mountPath", BARRIER_PATH));
                volumes.add(Map.of("name", BARRIER_VOLUME, "emptyDir", Map.of()));
            }
            Map<String, Object> container = new LinkedHashMap<>();
            container.put("name", "framework");
            container.put("image", role.image());
            container.put("command", List.of("sh", "-c", command));
            container.put("env", NniObjects.keeperEnvironment(request.placement(), role.command(), role.gpus()));
            container.put("ports", List.of(Map.of("containerPort", 4000 + i)));
            container.put("resources", NniObjects.resources(role.cpus(), role.memoryMegabytes(), role.gpus()));
            container.put("volumeMounts", mounts);
            container.put("terminationMessagePolicy", "FallbackToLogsOnError");
            Map<String, Object> podSpec = new LinkedHashMap<>();
            podSpec.put("containers", List.of(container));
            if (barrier) {
                podSpec.put("initContainers", List.of(Map.of("name", "frameworkbarrier", "image", BARRIER_IMAGE,
                        "volumeMounts", List.of(Map.of("name", BARRIER_VOLUME, "mountPath", BARRIER_PATH)))));
            }
            podSpec.put("restartPolicy", "Never");
            podSpec.put("hostNetwork", false);
            if (serviceAccountName != null) {
                podSpec.put("serviceAccountName", serviceAccountName);
            }
            podSpec.put("volumes", volumes);
            Map<String, Object> policy = new LinkedHashMap<>();
            policy.put("minFailedTaskCount", role.minFailed());
            policy.put("minSucceededTaskCount", role.minSucceeded());
            Map<String, Object> taskRole = new LinkedHashMap<>();
            taskRole.put("name", role.name());
            taskRole.put("taskNumber", role.tasks());
            taskRole.put("frameworkAttemptCompletionPolicy", policy);
            taskRole.put("task", Map.of("pod", Map.of("metadata", Map.of("labels", request.labels()), "spec", podSpec)));
            taskRoles.add(taskRole);
        }
        Map<String, Object> spec = new LinkedHashMap<>();
        spec.put("executionType", "Start");
        spec.put("taskRoles", taskRoles);
        Map<String, Object> job = new LinkedHashMap<>();
        job.put("apiVersion", TYPE.apiVersion());
        job.put("kind", TYPE.kind());
        job.put("metadata", NniObjects.metadata(request.objectName(), request.namespace(), request.labels()));
        job.put("spec", spec);
        return job;
    }

    /** NNI's mapping of {@code status.state}; {@code Completed} by {@code attemptStatus.completionStatus.type.name}. */
    @Override
    public JobState state(Map<String, Object> job) {
        if (!(job.get("status") instanceof Map<?, ?> status) || status.get("state") == null) {
            return JobState.of(JobState.Phase.PENDING);
        }
        return switch (String.valueOf(status.get("state"))) {
            case "AttemptCreationPending", "AttemptCreationRequested", "AttemptPreparing" -> JobState.of(JobState.Phase.PENDING);
            case "AttemptRunning" -> JobState.of(JobState.Phase.RUNNING);
            case "Completed" -> completed(status);
            default -> JobState.of(JobState.Phase.UNCHANGED);
        };
    }

    private static JobState completed(Map<?, ?> status) {
        Map<?, ?> completion = status.get("attemptStatus") instanceof Map<?, ?> attempt
                && attempt.get("completionStatus") instanceof Map<?, ?> c ? c : Map.of();
        String typeName = completion.get("type") instanceof Map<?, ?> type ? String.valueOf(type.get("name")) : "";
        StringBuilder message = new StringBuilder();
        if (completion.get("phrase") != null) {
            message.append(completion.get("phrase"));
        }
        if (completion.get("code") != null) {
            message.append(" (code ").append(completion.get("code")).append(')');
        }
        if (completion.get("diagnostics") instanceof String diagnostics && !diagnostics.isBlank()) {
            message.append(": ").append(diagnostics.strip());
        }
        return JobState.of("Succeeded".equals(typeName) ? JobState.Phase.SUCCEEDED : JobState.Phase.FAILED, message.toString().strip());
    }

    @Override
    public Map<String, String> attributes() {
        return Map.of("kind", TYPE.kind());
    }
}
