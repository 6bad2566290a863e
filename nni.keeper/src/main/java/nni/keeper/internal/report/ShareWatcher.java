package nni.keeper.internal.report;

import static java.nio.file.StandardWatchEventKinds.ENTRY_CREATE;
import static java.nio.file.StandardWatchEventKinds.ENTRY_MODIFY;
import static java.nio.file.StandardWatchEventKinds.OVERFLOW;

import java.io.IOException;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One thread watching every keeper channel folder on one shared storage ({@link ChannelFolder}),
 * whichever experiment's; named after the first folder's parent ({@code root}).
 * Where the file system notifies (a local disk, a bind mount: Linux inotify through the JDK's
 * {@link WatchService}), a folder is looked at when something in it changes, and one whose last
 * look left work (a torn file, a detached session) again after {@link #RETRY_MILLIS}. Where it
 * cannot — NFS and SMB shares such as a PAI-DLC NAS, FUSE file systems: inotify sees only what this
 * machine writes there, never the workers' writes — every folder is looked at every
 * {@link #POLL_MILLIS}, the one bounded poll of the file transport.
 */
final class ShareWatcher {

    private static final Logger LOG = LoggerFactory.getLogger(ShareWatcher.class);
    /** The fallback poll on file systems that do not tell about other machines' writes. */
    static final long POLL_MILLIS = 500;
    /** How soon a folder whose last look left work is looked at again. */
    static final long RETRY_MILLIS = 1_000;
    private static final Set<String> CANNOT_NOTIFY = Set.of("nfs", "nfs4", "cifs", "smb", "smb2", "smb3", "smbfs", "9p",
            "ceph", "glusterfs", "lustre", "afs", "gpfs", "beegfs", "ossfs", "cpfs", "virtiofs");

    private final Path root;
    private final boolean polls;
    private final WatchService watch;
    private final Map<WatchKey, ChannelFolder> keys = new ConcurrentHashMap<>();
    private final Set<ChannelFolder> folders = ConcurrentHashMap.newKeySet();
    private final java.util.Queue<ChannelFolder> woken = new java.util.concurrent.ConcurrentLinkedQueue<>();
    private final Thread thread;
    private volatile boolean stopped;

    ShareWatcher(Path root, boolean forcePolling) throws IOException {
        this.root = root;
        String type = Files.getFileStore(root).type().toLowerCase(Locale.ROOT);
        this.polls = forcePolling || CANNOT_NOTIFY.contains(type) || type.startsWith("fuse");
        this.watch = polls ? null : root.getFileSystem().newWatchService();
        LOG.info("keeper channels on {} ({}): {}", root, type, polls ? "looked at every " + POLL_MILLIS + " ms (this file system"
                + " does not tell about other machines' writes)" : "watched (inotify)");
        this.thread = new Thread(this::run, "nni-channels-" + root.getFileName());
        thread.setDaemon(true);
        thread.start();
    }

    Path root() {
        return root;
    }

    boolean polls() {
        return polls;
    }

    void add(ChannelFolder folder) throws IOException {
        if (watch != null) {
            for (Path watched : List.of(folder.folder(), folder.folder().resolve("reports"))) {
                keys.put(watched.register(watch, ENTRY_CREATE, ENTRY_MODIFY), folder);
            }
        }
        folders.add(folder);
        wake(folder);
    }

    /**
     * Has the watcher thread look at {@code folder} soon (what a keeper wrote before the watch
     * began: a keeper taken back after a restart), never on the caller's thread, which may hold the
     * session's lock that applying reports needs.
     */
    private void wake(ChannelFolder folder) throws IOException {
        woken.add(folder);
        if (watch != null) {
            // an event in a watched folder ends the watcher's wait; the file itself means nothing
            Path marker = folder.folder().resolve(".wake");
            Files.deleteIfExists(marker);
            Files.createFile(marker);
            Files.deleteIfExists(marker);
        }
    }

    /** @return whether no folder is left */
    boolean remove(ChannelFolder folder) {
        folders.remove(folder);
        keys.entrySet().removeIf(e -> {
            if (e.getValue() == folder) {
                e.getKey().cancel();
                return true;
            }
            return false;
        });
        return folders.isEmpty();
    }

    void stop() {
        stopped = true;
        thread.interrupt();
        if (watch != null) {
            try {
                watch.close();
            } catch (IOException e) {
                LOG.debug("closing the watch of {}: {}", root, e.getMessage());
            }
        }
    }

    private void run() {
        Set<ChannelFolder> retry = new HashSet<>();
        while (!stopped) {
            Set<ChannelFolder> due = new HashSet<>();
            try {
                if (polls) {
                    Thread.sleep(POLL_MILLIS);
                    due.addAll(folders);
                } else {
                    WatchKey key = watch.poll(retry.isEmpty() ? Long.MAX_VALUE : RETRY_MILLIS, TimeUnit.MILLISECONDS);
                    due.addAll(retry);
                    while (key != null) {
                        boolean overflow = key.pollEvents().stream().anyMatch(e -> e.kind() == OVERFLOW);
                        if (overflow) {
                            due.addAll(folders); // events were lost: look at everything
                        }
                        ChannelFolder folder = keys.get(key);
                        if (folder != null) {
                            due.add(folder);
                        }
                        key.reset();
                        key = watch.poll();
                    }
                }
            } catch (InterruptedException | ClosedWatchServiceException e) {
                return;
            }
            retry.clear();
            for (ChannelFolder folder = woken.poll(); folder != null; folder = woken.poll()) {
                due.add(folder);
            }
            for (ChannelFolder folder : due) {
                try {
                    if (!folder.closed() && !folder.scan()) {
                        retry.add(folder);
                    }
                } catch (RuntimeException e) {
                    // one keeper's trouble never ends the watch of the others
                    LOG.error("keeper channel {}: looking at it failed", folder.folder(), e);
                    retry.add(folder);
                }
            }
        }
    }
}
