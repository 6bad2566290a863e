package nni.ts.cloud;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * Files put where a cluster's jobs find them (a shared storage mounted on the manager's machine):
 * written under a temporary name and renamed, so a job never reads half a file.
 */
public final class StagedFiles {

    /** Where the pure-Python trial SDK is in a bundle that ships it. */
    public static final String SDK_RESOURCE = "/sdk/nni/__init__.py";

    private StagedFiles() {
    }

    /** Copies {@code source} to {@code target} unless an identical-looking copy (same size) is there. */
    public static void copy(Path source, Path target) throws IOException {
        if (Files.isRegularFile(target) && Files.size(target) == Files.size(source)
                && Files.getLastModifiedTime(target).compareTo(Files.getLastModifiedTime(source)) >= 0) {
            return;
        }
        Files.createDirectories(target.getParent());
        Path temporary = target.resolveSibling(target.getFileName() + ".part");
        Files.copy(source, temporary, StandardCopyOption.REPLACE_EXISTING);
        Files.move(temporary, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    /**
     * Writes the trial SDK a bundle ships ({@link #SDK_RESOURCE} of {@code bundleClass}'s bundle) to
     * {@code directory}{@code /nni/__init__.py}, for workers whose Python cannot import {@code nni}.
     *
     * @return {@code directory}, to go on the trials' {@code PYTHONPATH}
     */
    public static Path sdk(Class<?> bundleClass, Path directory) throws IOException {
        Path target = directory.resolve("nni").resolve("__init__.py");
        try (InputStream sdk = bundleClass.getResourceAsStream(SDK_RESOURCE)) {
            if (sdk == null) {
                throw new IOException("the nni SDK is missing from the bundle of " + bundleClass.getName());
            }
            Files.createDirectories(target.getParent());
            Path temporary = target.resolveSibling("__init__.py.part");
            Files.copy(sdk, temporary, StandardCopyOption.REPLACE_EXISTING);
            Files.move(temporary, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        }
        return directory;
    }
}
