package nni.ts.k8s;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

import nni.api.environment.KeeperTransport;
import nni.api.platform.PlatformException;
import nni.ts.cloud.ManagerAddress;
import nni.ts.cloud.SharedStorage;

/**
 * How a Kubernetes session's keepers report to the manager ({@code keeper.transport}): over HTTP to
 * the manager's port, which the pods must reach, or through channel folders in the experiment's
 * folder on a share, {@code <share>/nni/<experiment>/channels/} (the keepers' file transport, as
 * PAI-DLC's and Azure ML's), which needs no connection to the manager. Files need a share this
 * machine reads: an NFS share mounted here, or an Azure file share mounted here
 * ({@code azureStorage.mount}); AdaptDL's pods use the user's {@code nfs} volume.
 *
 * <p>{@code auto} takes files only when the manager has no address the cluster can reach for sure:
 * no {@code nniManagerIp} and the manager's port bound to loopback only (as Azure ML's {@code auto}).
 * A port bound beyond loopback without {@code nniManagerIp} is NNI's own default (the pods are told
 * this machine's outward address): that works wherever the cluster routes to the machine, and whether
 * it does cannot be told from here, so it stays HTTP.
 *
 * @param transport the keepers' transport
 * @param why       the setting and, for {@code auto}, what it found: shown with the session's report channel
 */
public record ReportRoute(KeeperTransport transport, String why) {

    /**
     * @return the setting, checked: {@code auto}, {@code files} or {@code http}
     * @throws IllegalArgumentException naming the setting and what it accepts
     */
    static String setting(String setting) {
        String mode = setting == null || setting.isBlank() ? "auto" : setting.strip().toLowerCase(Locale.ROOT);
        if (!mode.equals("auto") && !mode.equals("files") && !mode.equals("http")) {
            throw new IllegalArgumentException("keeper.transport: expected auto, files or http, got \"" + setting + "\"");
        }
        return mode;
    }

    /**
     * @param setting {@code keeper.transport}, checked by {@link #setting}
     * @param share   the share the pods and this machine both see, or null when the platform's pods have none
     * @param manager where the pods could call the manager
     * @param pid     the platform's configuration PID, which messages name
     * @throws PlatformException for {@code files} without a share this machine reads, or a channels folder it cannot create
     */
    static ReportRoute choose(String setting, ReportShare share, String experimentId, ManagerAddress manager, String pid)
            throws PlatformException {
        String mode = setting(setting);
        if (mode.equals("http")) {
            return new ReportRoute(KeeperTransport.http(), "keeper.transport = http");
        }
        if (mode.equals("auto") && !manager.unreachable()) {
            return new ReportRoute(KeeperTransport.http(), "keeper.transport = auto: the pods call the manager at " + manager.describe());
        }
        Path folder = null;
        String unmountable = null;
        try {
            folder = share == null ? null : share.readableFolder(experimentId);
        } catch (PlatformException e) {
            if (mode.equals("files")) {
                throw new PlatformException("keeper.transport = files: " + e.getMessage(), e);
            }
            unmountable = e.getMessage(); // auto: HTTP still may work
        }
        if (folder != null) {
            return files(folder, share.podFolder(experimentId), mode.equals("files") ? "keeper.transport = files"
                    : "keeper.transport = auto: nniManagerIp is not set and the manager's port is bound to " + manager.httpHost().strip()
                    + " only, which the pods cannot reach; " + share.describe() + " is mounted on this machine");
        }
        String unreadable = share == null ? "this platform's pods have no share this machine reads"
                : unmountable != null ? share.describe() + " cannot be mounted on this machine: " + unmountable
                : share.describe() + " is not mounted on this machine (" + share.mountHint() + ")";
        if (mode.equals("files")) {
            throw new PlatformException("keeper.transport = files needs a share the pods and this machine both see, and " + unreadable
                    + "; or set keeper.transport to http or auto in etc/" + pid + ".cfg");
        }
        return new ReportRoute(KeeperTransport.http(), "keeper.transport = auto: nniManagerIp is not set and the manager's port is"
                + " bound to " + manager.httpHost().strip() + " only, but " + unreadable + "; the pods must reach the manager's port");
    }

    private static ReportRoute files(Path folder, String containerFolder, String why) throws PlatformException {
        SharedStorage storage = new SharedStorage(folder, containerFolder);
        try {
            Files.createDirectories(storage.local("channels"));
        } catch (IOException e) {
            throw new PlatformException("keeper.transport: cannot create " + storage.local("channels") + " on the experiment's share: "
                    + e.getMessage(), e);
        }
        return new ReportRoute(storage.keeperTransport("files"), why);
    }
}
