package nni.keeper.internal.report;

import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;

/**
 * The file transport of the keeper protocol ({@link nni.api.environment.KeeperTransport#sharedFiles}):
 * each keeper that talks through files has a channel folder ({@link ChannelFolder}) on a shared
 * storage, and each storage root one watcher ({@link ShareWatcher}), whose thread this component
 * owns: created with the first channel on a root, ended with its last channel or at deactivation.
 */
@Component(service = FileChannels.class)
public class FileChannels {

    private final KeeperExchange exchange;
    /** One watcher per shared storage (file store: one mount), whatever experiments' folders lie on it. */
    private final Map<FileStore, ShareWatcher> watchers = new HashMap<>();
    private final Map<KeeperLink, ChannelFolder> folders = new HashMap<>();
    private final Map<ChannelFolder, FileStore> stores = new HashMap<>();
    private boolean deactivated;
    /** Every share looked at by the bounded poll, as on NFS (tests; {@code -Dnni.channels.poll=true}). */
    private final boolean forcePolling;

    @Activate
    public FileChannels(@Reference KeeperLinks links) {
        this(links, Boolean.getBoolean("nni.channels.poll"));
    }

    FileChannels(KeeperLinks links, boolean forcePolling) {
        this.exchange = new KeeperExchange(links);
        this.forcePolling = forcePolling;
    }

    /**
     * Gives a keeper's link its channel folder {@code root/<keeper id>} (created, and emptied unless
     * {@code restored}); from now on the link's commands are also written there, and the keeper's
     * files are read. The folder is let go when the link closes; a link unregistered (the keeper
     * is refused from now on) also tells the keeper so.
     *
     * @param restored the keeper was started by a runtime before a restart: its files are kept and
     *                 its reports taken without a new handshake
     * @return the channel folder
     */
    public Path open(Path root, KeeperLink link, boolean restored) throws IOException {
        ChannelFolder folder = new ChannelFolder(link, exchange, root.resolve(link.keeperId()), restored);
        ShareWatcher watcher;
        synchronized (this) {
            if (deactivated) {
                throw new IOException("the manager is stopping");
            }
            ChannelFolder before = folders.put(link, folder);
            if (before != null) {
                detach(before);
            }
            FileStore store = Files.getFileStore(folder.folder());
            watcher = watchers.get(store);
            if (watcher == null) {
                watcher = new ShareWatcher(root, forcePolling);
                watchers.put(store, watcher);
            }
            stores.put(folder, store);
            watcher.add(folder);
        }
        link.channel(folder::command, refused -> {
            folder.close(refused);
            synchronized (this) {
                if (folders.remove(link, folder)) {
                    detach(folder);
                }
            }
        });
        return folder.folder();
    }

    /** Removes a folder from its watcher; holds this. */
    private void detach(ChannelFolder folder) {
        FileStore store = stores.remove(folder);
        ShareWatcher watcher = store == null ? null : watchers.get(store);
        if (watcher != null && watcher.remove(folder)) {
            watcher.stop();
            watchers.remove(store);
        }
    }

    @Deactivate
    synchronized void deactivate() {
        deactivated = true;
        folders.values().forEach(folder -> folder.close(false));
        folders.clear();
        stores.clear();
        watchers.values().forEach(ShareWatcher::stop);
        watchers.clear();
    }
}
