package nni.api.environment;

import java.nio.file.Path;
import java.util.Objects;

/**
 * How keepers and the manager talk ({@link KeeperOptions.Builder#transport}). Immutable.
 * <ul>
 * <li>{@link #http()} (the default): the keeper calls the manager's one HTTP endpoint; the worker
 *     must reach the manager's port.</li>
 * <li>{@link #sharedFiles(Path, String)}: for workers that cannot open a connection to the manager
 *     but share a storage with it (PAI-DLC's NAS). Each keeper gets a channel folder
 *     {@code <root>/<keeper id>} that the manager creates; the keeper writes its handshake and
 *     numbered report files there and reads acknowledgements and command files, with the same
 *     exactly-once and ordering rules as over HTTP (every report carries its sequence; the manager
 *     applies only sequences above the last it applied, and acknowledges in a file after what they
 *     carry is durable). Every file is written under a temporary name and renamed. The keeper is
 *     started with {@code --channel <worker root>/<keeper id>} ({@link EnvironmentSpec#arguments}).</li>
 * </ul>
 *
 * @since 1.1
 */
public final class KeeperTransport {

    private static final KeeperTransport HTTP = new KeeperTransport(null, null);

    private final Path localRoot;
    private final String workerRoot;

    private KeeperTransport(Path localRoot, String workerRoot) {
        this.localRoot = localRoot;
        this.workerRoot = workerRoot;
    }

    /** @return the keepers report to the manager's HTTP endpoint */
    public static KeeperTransport http() {
        return HTTP;
    }

    /**
     * @param localRoot  a folder on the shared storage, as the manager's machine sees it; the
     *                   manager creates one channel folder per keeper below it
     * @param workerRoot the same folder as the workers see it (an absolute path on the worker)
     * @return the keepers talk through files below that folder
     */
    public static KeeperTransport sharedFiles(Path localRoot, String workerRoot) {
        Objects.requireNonNull(localRoot, "localRoot");
        Objects.requireNonNull(workerRoot, "workerRoot");
        String root = workerRoot.length() > 1 && workerRoot.endsWith("/") ? workerRoot.substring(0, workerRoot.length() - 1) : workerRoot;
        return new KeeperTransport(localRoot.toAbsolutePath().normalize(), root);
    }

    /** @return whether keepers talk through files on a shared storage rather than HTTP */
    public boolean files() {
        return localRoot != null;
    }

    /** @return the channel folders' parent on the manager's machine, or null for HTTP */
    public Path localRoot() {
        return localRoot;
    }

    /** @return the channel folders' parent on the workers, or null for HTTP */
    public String workerRoot() {
        return workerRoot;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof KeeperTransport that && Objects.equals(localRoot, that.localRoot)
                && Objects.equals(workerRoot, that.workerRoot);
    }

    @Override
    public int hashCode() {
        return Objects.hash(localRoot, workerRoot);
    }

    @Override
    public String toString() {
        return files() ? "files at " + localRoot + " (" + workerRoot + " on the workers)" : "http";
    }
}
