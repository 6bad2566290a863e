package nni.manager.internal.experiment;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

import nni.store.ExperimentStore;

/**
 * Marks an experiment's folder while the experiment is being created ({@code <exp>/.creating}): the
 * marker is written before anything else and removed once the definition is stored. A runtime
 * killed in between leaves the marker; then either the definition made it into the store (the
 * experiment can be resumed like any other) or it did not (nothing of it ever ran, and its folder
 * is removed).
 */
final class CreationMarker {

    static final String NAME = ".creating";

    private CreationMarker() {
    }

    /**
     * Creates the experiment's folder with the marker in it, in one step: the folder is made under a
     * hidden name with the marker, then renamed, so that it never exists without the marker.
     */
    static void begin(Path directory) throws IOException {
        Files.createDirectories(directory.getParent());
        Path staging = Files.createTempDirectory(directory.getParent(), "." + directory.getFileName() + ".");
        Files.writeString(staging.resolve(NAME), ProcessHandle.current().pid() + "\n");
        Files.move(staging, directory, StandardCopyOption.ATOMIC_MOVE);
    }

    /** The definition is stored: the experiment exists. */
    static void done(Path directory) throws IOException {
        Files.deleteIfExists(directory.resolve(NAME));
    }

    /** @return the pid that began creating the folder, or -1 */
    private static long creator(Path directory) {
        try {
            return Long.parseLong(Files.readString(directory.resolve(NAME)).trim());
        } catch (IOException | NumberFormatException unreadable) {
            return -1;
        }
    }

    static boolean present(Path directory) {
        return Files.exists(directory.resolve(NAME));
    }

    /**
     * Settles a folder whose creation was interrupted: with a stored definition the marker is removed
     * and the experiment can be resumed; without one the folder is removed.
     *
     * @return true when the folder was removed
     */
    static boolean settle(Path directory) throws IOException {
        if (!present(directory)) {
            return false;
        }
        long creator = creator(directory);
        if (creator != ProcessHandle.current().pid() && ProcessHandle.of(creator).map(ProcessHandle::isAlive).orElse(false)) {
            throw new IOException("experiment folder " + directory + " is being created by process " + creator);
        }
        boolean defined = false;
        if (Files.isRegularFile(directory.resolve("db").resolve("nni.sqlite"))) {
            try (ExperimentStore store = ExperimentStore.openReadOnly(directory)) {
                defined = store.definition().isPresent();
            } catch (IOException | RuntimeException unreadable) {
                defined = false;
            }
        }
        if (defined) {
            done(directory);
            return false;
        }
        List<Path> paths;
        try (Stream<Path> walk = Files.walk(directory)) {
            paths = walk.sorted(Comparator.reverseOrder()).toList();
        }
        for (Path path : paths) {
            Files.deleteIfExists(path);
        }
        return true;
    }
}
