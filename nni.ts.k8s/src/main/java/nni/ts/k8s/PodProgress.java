package nni.ts.k8s;

import java.util.List;
import java.util.Set;

import io.fabric8.kubernetes.api.model.ContainerStateTerminated;
import io.fabric8.kubernetes.api.model.ContainerStateWaiting;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;

import nni.api.environment.EnvironmentState;

/**
 * What a pod of an environment tells a person waiting for it, from the pod's status as the kubelet
 * and the scheduler write it: not scheduled (and why), pulling its image (or failing to),
 * initialising, running. Image problems that do not pass by themselves end the environment.
 *
 * @param state   where the pod is
 * @param message the waiting trials' message
 * @param fatal   why the environment cannot start (an image that cannot be pulled), or null
 */
record PodProgress(EnvironmentState state, String message, String fatal) {

    private static final Set<String> IMAGE_PROBLEMS = Set.of("ErrImagePull", "ImagePullBackOff", "InvalidImageName",
            "ErrImageNeverPull");
    private static final Set<String> HOPELESS = Set.of("ImagePullBackOff", "InvalidImageName", "ErrImageNeverPull");

    /** @return the pod's progress, or null once it has ended (the job's state tells then) */
    static PodProgress of(Pod pod) {
        String name = pod.getMetadata().getName();
        var status = pod.getStatus();
        String phase = status == null || status.getPhase() == null ? "Pending" : status.getPhase();
        String node = pod.getSpec() == null ? null : pod.getSpec().getNodeName();
        String where = "pod " + name + (node == null || node.isBlank() ? "" : " on node " + node);
        if (phase.equals("Running")) {
            return new PodProgress(EnvironmentState.RUNNING, "waiting: the trial keeper runs in " + where
                    + " and connects to the manager", null);
        }
        if (!phase.equals("Pending")) {
            return null;
        }
        List<PodCondition> conditions = status == null || status.getConditions() == null ? List.of() : status.getConditions();
        for (PodCondition condition : conditions) {
            if ("PodScheduled".equals(condition.getType()) && "False".equals(condition.getStatus())) {
                return new PodProgress(EnvironmentState.PENDING, "waiting: pod " + name + " is not scheduled yet"
                        + (condition.getMessage() == null ? "" : ": " + condition.getMessage().strip()), null);
            }
        }
        if (node == null || node.isBlank()) {
            return new PodProgress(EnvironmentState.PENDING, "waiting: pod " + name + " waits to be scheduled", null);
        }
        List<ContainerStatus> initStatuses = status == null || status.getInitContainerStatuses() == null ? List.of()
                : status.getInitContainerStatuses();
        for (ContainerStatus init : initStatuses) {
            PodProgress problem = waiting(init, where);
            if (problem != null) {
                return problem;
            }
            if (init.getState() == null || init.getState().getTerminated() == null) {
                return new PodProgress(EnvironmentState.STARTING, "waiting: " + where + " runs its init container " + init.getName(),
                        null);
            }
        }
        List<ContainerStatus> statuses = status == null || status.getContainerStatuses() == null ? List.of()
                : status.getContainerStatuses();
        for (ContainerStatus container : statuses) {
            PodProgress problem = waiting(container, where);
            if (problem != null) {
                return problem;
            }
        }
        return new PodProgress(EnvironmentState.PROVISIONING, "waiting: " + where + " is being created", null);
    }

    private static PodProgress waiting(ContainerStatus container, String where) {
        ContainerStateWaiting waiting = container.getState() == null ? null : container.getState().getWaiting();
        if (waiting == null || waiting.getReason() == null) {
            return null;
        }
        String reason = waiting.getReason();
        String detail = waiting.getMessage() == null || waiting.getMessage().isBlank() ? "" : ": " + waiting.getMessage().strip();
        if (IMAGE_PROBLEMS.contains(reason)) {
            String message = where + " cannot pull image " + container.getImage() + " (" + reason + ")" + detail;
            return new PodProgress(EnvironmentState.PULLING_IMAGE, "waiting: " + message, HOPELESS.contains(reason) ? message : null);
        }
        if (reason.equals("ContainerCreating") || reason.equals("PodInitializing")) {
            return new PodProgress(EnvironmentState.PULLING_IMAGE, "waiting: " + where + " pulls image " + container.getImage()
                    + " and creates container " + container.getName() + " (" + reason + ")", null);
        }
        return new PodProgress(EnvironmentState.PROVISIONING, "waiting: " + where + ", container " + container.getName() + ": "
                + reason + detail, null);
    }

    /** @return why a container of the pod failed ({@code terminationMessagePolicy} fills the message), or null */
    static String failure(Pod pod) {
        if (pod.getStatus() == null || pod.getStatus().getContainerStatuses() == null) {
            return null;
        }
        for (ContainerStatus container : pod.getStatus().getContainerStatuses()) {
            ContainerStateTerminated terminated = container.getState() == null ? null : container.getState().getTerminated();
            if (terminated != null && terminated.getExitCode() != null && terminated.getExitCode() != 0) {
                String message = terminated.getMessage() == null ? "" : terminated.getMessage().strip();
                if (message.length() > 600) {
                    message = "..." + message.substring(message.length() - 600);
                }
                return "pod " + pod.getMetadata().getName() + ": container " + container.getName() + " exited with code "
                        + terminated.getExitCode() + (terminated.getReason() == null ? "" : " (" + terminated.getReason() + ")")
                        + (message.isEmpty() ? "" : ": " + message);
            }
        }
        return null;
    }
}
