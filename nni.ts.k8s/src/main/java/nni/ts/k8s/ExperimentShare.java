package nni.ts.k8s;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import nni.api.platform.PlatformException;

/**
 * The storage an experiment's pods mount as volume {@code nni-vol} at {@value #CONTAINER_PATH}
 * (NNI's {@code storage}): an NFS export ({@link NfsShare}) or an Azure file share
 * ({@link AzureFileShare}). The manager puts the keeper, the code archive and the trial SDK in
 * {@code nni/<experiment>/} on it, once per session; keepers work in {@code nni/<experiment>/envs/<id>}.
 */
public interface ExperimentShare extends ReportShare {

    /** Where the share is in every container NNI creates. */
    String CONTAINER_PATH = "/tmp/mount";

    /** @return the experiment's folder as the containers see it */
    static String containerFolder(String experimentId) {
        return CONTAINER_PATH + "/nni/" + experimentId;
    }

    /** @return the pod volume {@code nni-vol} */
    Map<String, Object> volume();

    /** @return a local folder whose files become {@code nni/<experiment>/} on the share once {@link #publish}ed (created) */
    Path stagingFolder(String experimentId) throws PlatformException;

    /**
     * @return the experiment's folder as this machine reads it, where what the pods write there shows
     *         (the keepers' file transport, {@link ReportRoute}), or null when the manager only uploads to the share
     */
    @Override
    default Path readableFolder(String experimentId) throws PlatformException {
        return null;
    }

    /** @return {@link #containerFolder} */
    @Override
    default String podFolder(String experimentId) {
        return containerFolder(experimentId);
    }

    /** Makes what is in the staging folder visible to the pods. */
    void publish(String experimentId) throws PlatformException;

    /** @return where an environment's files are, for its tracking URL */
    String url(String experimentId, String environmentId);


    /** Lets go of the share (unmounts what this manager mounted, ends connections); failures are returned, not thrown. */
    @Override
    List<String> release();
}
