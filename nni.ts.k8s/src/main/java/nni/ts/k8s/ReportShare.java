package nni.ts.k8s;

import java.nio.file.Path;
import java.util.List;

import nni.api.platform.PlatformException;

/**
 * A share that the pods mount and this machine may read too: where the keepers' channel folders can
 * be ({@link ReportRoute}), {@code channels/} below {@link #readableFolder} here and below
 * {@link #podFolder} in the pods.
 */
public interface ReportShare {

    /**
     * @return the experiment's folder as this machine reads it, where what the pods write there shows
     *         (created), or null when this machine does not see the share
     */
    Path readableFolder(String experimentId) throws PlatformException;

    /** @return the same folder as the pods see it */
    String podFolder(String experimentId);

    /** @return the share for messages: "the NFS share server:/path" */
    String describe();

    /** @return how to have this machine see the share, for when {@link #readableFolder} is null */
    default String mountHint() {
        return "it is only uploaded to";
    }

    /** Lets go of the share (unmounts what this manager mounted); failures are returned, not thrown. */
    List<String> release();
}
