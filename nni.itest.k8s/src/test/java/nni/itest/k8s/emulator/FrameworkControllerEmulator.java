package nni.itest.k8s.emulator;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import io.fabric8.kubernetes.api.model.ContainerStateTerminated;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;

/**
 * One Framework as FrameworkController runs it: {@code status.state} from
 * {@code AttemptCreationPending} through {@code AttemptCreationRequested} and
 * {@code AttemptPreparing} (a pod per task, {@code <framework>-<role>-<index>}, labelled and told
 * {@code FC_FRAMEWORK_NAME}, {@code FC_TASKROLE_NAME}, {@code FC_TASK_INDEX}, ...) to
 * {@code AttemptRunning}; completed by the roles' {@code frameworkAttemptCompletionPolicy}
 * (minFailedTaskCount / minSucceededTaskCount failed or succeeded tasks of a role complete the
 * attempt with that task's status; otherwise all tasks completed is a success), then
 * {@code AttemptCompleted} and {@code Completed} with
 * {@code attemptStatus.completionStatus {code, phrase, type {name, attributes}, diagnostics}}; the
 * attempt's pods still running are deleted. No retry ({@code retryPolicy} defaults: none). There is
 * no status subresource: the controller writes the whole object.
 */
final class FrameworkControllerEmulator implements OperatorEmulator.Controller {

    static final String BARRIER_ANNOTATION = "emulator.nni/barrier-roles";

    private final OperatorEmulator emulator;
    private final GenericKubernetesResource job;
    private final Map<String, Pod> pods = new LinkedHashMap<>();
    private final Map<String, String> roleOf = new LinkedHashMap<>();
    private boolean completed;
    private boolean running;

    FrameworkControllerEmulator(OperatorEmulator emulator, GenericKubernetesResource job) {
        this.emulator = emulator;
        this.job = job;
    }

    @SuppressWarnings("unchecked")
    private List<Map<String, Object>> roles() {
        Map<String, Object> spec = (Map<String, Object>) job.getAdditionalProperties().get("spec");
        return (List<Map<String, Object>>) spec.get("taskRoles");
    }

    @Override
    @SuppressWarnings("unchecked")
    public void start(GenericKubernetesResource created) {
        String name = job.getMetadata().getName();
        state("AttemptCreationPending", null);
        state("AttemptCreationRequested", null);
        StringBuilder barrier = new StringBuilder();
        for (Map<String, Object> role : roles()) {
            barrier.append(barrier.isEmpty() ? "" : ",").append(role.get("name")).append(':').append(role.get("taskNumber"));
        }
        state("AttemptPreparing", null);
        for (Map<String, Object> role : roles()) {
            String roleName = (String) role.get("name");
            int tasks = ((Number) role.get("taskNumber")).intValue();
            Map<String, Object> template = (Map<String, Object>) ((Map<String, Object>) role.get("task")).get("pod");
            for (int index = 0; index < tasks; index++) {
                String podName = name + "-" + roleName + "-" + index;
                roleOf.put(podName, roleName);
                Map<String, String> labels = Map.of("FC_FRAMEWORK_NAME", name, "FC_TASKROLE_NAME", roleName,
                        "FC_TASK_INDEX", Integer.toString(index));
                Map<String, String> annotations = Map.of("FC_FRAMEWORK_NAMESPACE", job.getMetadata().getNamespace(),
                        "FC_FRAMEWORK_NAME", name, "FC_TASKROLE_NAME", roleName, "FC_TASK_INDEX", Integer.toString(index),
                        "FC_POD_NAME", podName, BARRIER_ANNOTATION, barrier.toString());
                Map<String, String> env = new LinkedHashMap<>();
                env.put("FC_FRAMEWORK_NAMESPACE", job.getMetadata().getNamespace());
                env.put("FC_FRAMEWORK_NAME", name);
                env.put("FC_TASKROLE_NAME", roleName);
                env.put("FC_TASK_INDEX", Integer.toString(index));
                env.put("FC_CONFIGMAP_NAME", name + "-attempt");
                env.put("FC_POD_NAME", podName);
                env.put("FC_FRAMEWORK_ATTEMPT_ID", "0");
                env.put("FC_TASK_ATTEMPT_ID", "0");
                emulator.createPod(job, template, podName, labels, annotations, null, null, env, this);
            }
        }
    }

    /** The injector the frameworkbarrier writes: every role's task addresses. */
    static String injector(Pod pod) {
        StringBuilder script = new StringBuilder("#!/bin/sh\n");
        String roles = pod.getMetadata().getAnnotations().get(BARRIER_ANNOTATION);
        for (String role : roles.split(",")) {
            String[] parts = role.split(":");
            String upper = parts[0].toUpperCase(Locale.ROOT);
            List<String> ips = new ArrayList<>();
            List<String> addresses = new ArrayList<>();
            for (int i = 0; i < Integer.parseInt(parts[1]); i++) {
                ips.add("127.0.0.1");
                addresses.add("127.0.0.1:${FB_" + upper + "_PORT}");
            }
            script.append("export FB_").append(upper).append("_IPS=").append(String.join(",", ips)).append('\n');
            script.append("export FB_").append(upper).append("_ADDRESSES=").append(String.join(",", addresses)).append('\n');
        }
        return script.toString();
    }

    @Override
    public void podChanged(Pod pod) {
        pods.put(pod.getMetadata().getName(), pod);
        if (completed) {
            return;
        }
        for (Map<String, Object> role : roles()) {
            String roleName = (String) role.get("name");
            @SuppressWarnings("unchecked")
            Map<String, Object> policy = (Map<String, Object>) role.get("frameworkAttemptCompletionPolicy");
            int minFailed = ((Number) policy.get("minFailedTaskCount")).intValue();
            int minSucceeded = ((Number) policy.get("minSucceededTaskCount")).intValue();
            List<Pod> failed = tasks(roleName, "Failed");
            List<Pod> succeeded = tasks(roleName, "Succeeded");
            if (minFailed >= 1 && failed.size() >= minFailed) {
                complete(failed.get(failed.size() - 1), false);
                return;
            }
            if (minSucceeded >= 1 && succeeded.size() >= minSucceeded) {
                complete(succeeded.get(succeeded.size() - 1), true);
                return;
            }
        }
        int total = roles().stream().mapToInt(r -> ((Number) r.get("taskNumber")).intValue()).sum();
        long done = pods.values().stream().filter(p -> "Succeeded".equals(phase(p)) || "Failed".equals(phase(p))).count();
        if (done == total && total > 0) {
            complete(null, true);
            return;
        }
        long runningPods = pods.values().stream().filter(p -> "Running".equals(phase(p))).count();
        if (!running && runningPods + done == total && runningPods > 0) {
            running = true;
            state("AttemptRunning", null);
        }
    }

    private static String phase(Pod pod) {
        return pod.getStatus() == null ? null : pod.getStatus().getPhase();
    }

    private List<Pod> tasks(String role, String phase) {
        return pods.values().stream().filter(p -> role.equals(roleOf.get(p.getMetadata().getName())) && phase.equals(phase(p))).toList();
    }

    /** Completes the attempt: from {@code trigger} task's status, or a success not inherited from any task. */
    private void complete(Pod trigger, boolean success) {
        completed = true;
        Map<String, Object> completion = new LinkedHashMap<>();
        if (trigger == null || success) {
            completion.put("code", 0);
            completion.put("phrase", "Succeeded");
            completion.put("type", Map.of("name", "Succeeded", "attributes", List.of()));
            completion.put("diagnostics", trigger == null ? "All Tasks are completed and no user specified conditions in "
                    + "FrameworkAttemptCompletionPolicy have ever been triggered" : "Pod succeeded: " + trigger.getMetadata().getName());
        } else {
            ContainerStateTerminated terminated = trigger.getStatus().getContainerStatuses().get(0).getState().getTerminated();
            completion.put("code", terminated.getExitCode());
            completion.put("phrase", "ContainerUnrecognizedFailed");
            completion.put("type", Map.of("name", "Failed", "attributes", List.of()));
            completion.put("diagnostics", "Pod failed: " + trigger.getMetadata().getName() + ": container exited with code "
                    + terminated.getExitCode() + (terminated.getMessage() == null ? "" : ": " + terminated.getMessage()));
        }
        state("AttemptCompleted", completion);
        state("Completed", completion);
        for (Pod pod : pods.values()) {
            if (!"Succeeded".equals(phase(pod)) && !"Failed".equals(phase(pod))) {
                emulator.kubelet.kill(pod.getMetadata().getNamespace(), pod.getMetadata().getName());
                emulator.client.pods().inNamespace(pod.getMetadata().getNamespace()).withName(pod.getMetadata().getName()).delete();
            }
        }
    }

    @SuppressWarnings("unchecked")
    private void state(String state, Map<String, Object> completion) {
        emulator.writeStatus(OperatorEmulator.FRAMEWORK, job, false, status -> {
            String now = Kubelet.now();
            status.putIfAbsent("startTime", now);
            status.put("state", state);
            status.put("transitionTime", now);
            Map<String, Object> attempt = status.get("attemptStatus") instanceof Map<?, ?> a
                    ? new LinkedHashMap<>((Map<String, Object>) a) : new LinkedHashMap<>();
            attempt.putIfAbsent("id", 0);
            attempt.putIfAbsent("startTime", now);
            attempt.put("configMapName", job.getMetadata().getName() + "-attempt");
            if (state.equals("AttemptRunning")) {
                status.putIfAbsent("runTime", now);
                attempt.putIfAbsent("runTime", now);
            }
            if (completion != null) {
                attempt.put("completionStatus", completion);
                attempt.put("completionTime", now);
                status.put("completionTime", now);
            }
            status.put("attemptStatus", attempt);
            status.put("retryPolicyStatus", Map.of("totalRetriedCount", 0, "accountableRetriedCount", 0));
            return status;
        });
    }
}
