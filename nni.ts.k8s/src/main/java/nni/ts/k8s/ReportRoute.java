package nni.ts.k8s;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

import nni.api.environment.KeeperTransport;
import nni.api.platform.PlatformException;
import nni.ts.cloud.SharedStorage;

/**
 * How a Kubernetes session's keepers report to the manager ({@code keeper.transport}): over HTTP to
 * the manager's port, which the pods must reach, or through channel folders in the experiment's
 * folder on its share, {@code nni/<experiment>/channels/} (the keepers' file transport, as PAI-DLC's
 * and Azure ML's), which needs no connection to the manager. Files need a share this machine reads:
 * an NFS share, mounted here; an Azure file share is only uploaded to.
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
     * @param share   the experiment's share, or null when the platform's pods have none
     * @param pid     the platform's configuration PID, which messages name
     * @throws PlatformException for {@code files} without a share this machine reads, or a channels folder it cannot create
     */
    static ReportRoute choose(String setting, ExperimentShare share, String experimentId, String pid) throws PlatformException {
        String mode = setting(setting);
        if (mode.equals("http")) {
            return new ReportRoute(KeeperTransport.http(), "keeper.transport = http");
        }
        Path folder = share == null ? null : share.readableFolder(experimentId);
        String unreadable = share == null ? "this platform's pods have no experiment share"
                : share.describe() + " is reached through its REST API only, not read on this machine";
        if (folder != null) {
            return files(folder, experimentId, mode.equals("files") ? "keeper.transport = files"
                    : "keeper.transport = auto: the experiment's share (" + share.describe() + ") is mounted on this machine,"
                    + " so the pods need not reach the manager");
        }
        if (mode.equals("files")) {
            throw new PlatformException("keeper.transport = files needs the experiment's storage as an NFS share mounted on this"
                    + " machine, and " + unreadable + "; set keeper.transport to http or auto in etc/" + pid + ".cfg");
        }
        return new ReportRoute(KeeperTransport.http(), "keeper.transport = auto: " + unreadable + ", so the pods call the manager's port");
    }

    private static ReportRoute files(Path folder, String experimentId, String why) throws PlatformException {
        SharedStorage storage = new SharedStorage(folder, ExperimentShare.containerFolder(experimentId));
        try {
            Files.createDirectories(storage.local("channels"));
        } catch (IOException e) {
            throw new PlatformException("keeper.transport: cannot create " + storage.local("channels") + " on the experiment's share: "
                    + e.getMessage(), e);
        }
        return new ReportRoute(storage.keeperTransport("files"), why);
    }
}
