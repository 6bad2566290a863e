package nni.ts.k8s;

import java.util.List;
import java.util.Map;

import nni.api.environment.EnvironmentSpec;
import nni.api.platform.PlatformException;

/**
 * What one operator's platform adds to the shared Kubernetes mechanics: the custom resource, its
 * objects in the operator's shape, and how NNI reads its status. Built per session from the
 * experiment's section; immutable.
 */
public interface JobKind {

    /** @return the custom resource its jobs are */
    CustomResourceType type();

    /**
     * @param perTrial true: one keeper per trial, {@code id} is the trial's; false: a reuse environment
     * @return the job's name, as NNI names it
     */
    String objectName(String experimentId, boolean perTrial, String id);

    /**
     * @return where the keeper's files and directory are in the containers, or null when they are on
     *         the experiment's share (the launcher puts them there)
     */
    default NniObjects.KeeperPlacement placement(String experimentId, String objectName, String tokenSecret) {
        return null;
    }

    /**
     * @param objectName the job's name
     * @return a shell test that is true only in the replica that runs the keeper
     */
    String leadTest(String objectName);

    /**
     * @return an NFS export the user has the pods mount besides NNI's share (AdaptDL's {@code nfs}), where the
     *         keepers' channel folders can be ({@link PodNfsShare}), or null
     */
    default PodNfsShare.Volume podNfs() {
        return null;
    }

    /** @return the command the keeper runs for each trial, or null for the experiment's trialCommand */
    default String leadCommand() {
        return null;
    }

    /** @return the job object, a map in the operator's JSON shape */
    Map<String, Object> job(JobRequest request);

    /**
     * @param jobUid the created job's uid, for the companions' {@code ownerReferences}
     * @return objects to create right after the job, owned by it (core kinds: ConfigMap, PVC, ...)
     * @throws PlatformException when they cannot be built (files too large, ...)
     */
    default List<Map<String, Object>> companions(JobRequest request, String jobUid) throws PlatformException {
        return List.of();
    }

    /** @return the job's state from its status (the object as the API server returns it) */
    JobState state(Map<String, Object> job);

    /** @return display facts about the environments' jobs (kind, operator, ...) */
    default Map<String, String> attributes() {
        return Map.of("kind", type().kind());
    }

    /**
     * Creates what the experiment's environments share (AdaptDL: the TensorBoard Deployment and its
     * volume), once, when the session opens. Labelled with {@link NniObjects#experimentLabels}.
     *
     * @throws PlatformException when the cluster refuses
     */
    default void openExperiment(io.fabric8.kubernetes.client.KubernetesClient client, String namespace, String experimentId)
            throws PlatformException {
    }

    /** Deletes what {@link #openExperiment} created, when the session closes; never throws. */
    default void closeExperiment(io.fabric8.kubernetes.client.KubernetesClient client, String namespace, String experimentId) {
    }

    /**
     * Checks what the environment asks for before anything is created.
     *
     * @throws PlatformException when it cannot be run on this platform
     */
    default void check(EnvironmentSpec spec) throws PlatformException {
    }
}
