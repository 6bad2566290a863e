package nni.ts.k8s;

import java.nio.file.Path;
import java.util.List;

import nni.api.platform.PlatformException;

/**
 * An NFS export the user has the pods mount besides NNI's share (AdaptDL's
 * {@code nfs: {server, path, containerMountPath}}), as a place for the keepers' channel folders
 * ({@link ReportRoute}): {@code <containerMountPath>/nni/<experiment>/} in the pods,
 * {@code nni/<experiment>/} at this machine's mount of it, found or made as for the experiment's NFS
 * share ({@link NfsShare#open}: {@code nfs.mount.path}, {@code /proc/mounts}, else a sudo mount).
 * The mount is looked for only when the file transport is wanted, then kept until {@link #release}.
 */
public final class PodNfsShare implements ReportShare {

    /**
     * @param server             the NFS server
     * @param path               the export
     * @param containerMountPath where the pods mount it
     */
    public record Volume(String server, String path, String containerMountPath) {
    }

    private final Volume volume;
    private final String mountPathSetting;
    private final Path mountPoint;
    private NfsShare opened;

    /**
     * @param mountPathSetting the platform's {@code nfs.mount.path}, or blank
     * @param mountPoint       where to mount the export when it is not mounted yet
     */
    PodNfsShare(Volume volume, String mountPathSetting, Path mountPoint) {
        this.volume = volume;
        this.mountPathSetting = mountPathSetting;
        this.mountPoint = mountPoint;
    }

    /** @return the experiment's folder at this machine's mount of the export (mounted now if it is not yet) */
    @Override
    public synchronized Path readableFolder(String experimentId) throws PlatformException {
        if (opened == null) {
            opened = NfsShare.open(volume.server(), volume.path(), mountPathSetting, mountPoint);
        }
        return opened.stagingFolder(experimentId);
    }

    @Override
    public String podFolder(String experimentId) {
        return volume.containerMountPath().replaceAll("/+$", "") + "/nni/" + experimentId;
    }

    @Override
    public String describe() {
        return "the trials' NFS share " + volume.server() + ":" + volume.path() + " (at " + volume.containerMountPath() + " in the pods)";
    }

    @Override
    public String mountHint() {
        return "nfs.mount.path names where it is mounted here";
    }

    @Override
    public synchronized List<String> release() {
        return opened == null ? List.of() : opened.release();
    }
}
