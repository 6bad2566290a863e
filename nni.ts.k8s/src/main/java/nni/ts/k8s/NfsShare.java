package nni.ts.k8s;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import nni.api.platform.PlatformException;

/**
 * The experiment's NFS share ({@code storage: {storageType: nfs, server, path}}) as the manager sees
 * it: the folder where {@code server:path} is
 * mounted on the manager's machine. The pods mount the same share at {@code /tmp/mount}, so a file
 * the manager writes to {@code <folder>/nni/<experiment>/x} is {@code /tmp/mount/nni/<experiment>/x}
 * in every container.
 *
 * <p>Where the folder is: the platform's {@code nfs.mount.path} setting when given (the share is
 * mounted there already, by the administrator or fstab; tests give a plain folder); else the place
 * {@code /proc/mounts} lists {@code server:path} at; else NNI's way, {@code sudo mount -t nfs} on
 * {@code <experiment>/nfs-root} (needs password-less sudo), unmounted again when the experiment is
 * closed.
 */
public final class NfsShare implements ExperimentShare {

    private final String server;
    private final String path;
    private final Path root;
    private final boolean mountedHere;

    private NfsShare(String server, String path, Path root, boolean mountedHere) {
        this.server = server;
        this.path = path;
        this.root = root;
        this.mountedHere = mountedHere;
    }

    /**
     * @param mountPathSetting the platform's {@code nfs.mount.path}, or blank
     * @param mountPoint       where to mount the share when it is not mounted yet
     * @throws PlatformException naming the share and what failed
     */
    public static NfsShare open(String server, String path, String mountPathSetting, Path mountPoint) throws PlatformException {
        if (mountPathSetting != null && !mountPathSetting.isBlank()) {
            Path root = Path.of(mountPathSetting.strip());
            if (!Files.isDirectory(root) || !Files.isWritable(root)) {
                throw new PlatformException("nfs.mount.path " + root + " (where the NFS share " + server + ":" + path
                        + " is mounted on this machine) is not a writable directory");
            }
            return new NfsShare(server, path, root, false);
        }
        Path mounted = mountedAt(server, path, Path.of("/proc/mounts"));
        if (mounted != null) {
            return new NfsShare(server, path, mounted, false);
        }
        try {
            Files.createDirectories(mountPoint);
        } catch (IOException e) {
            throw new PlatformException("cannot create the mount point " + mountPoint + ": " + e.getMessage(), e);
        }
        run(List.of("sudo", "-n", "mount", "-t", "nfs", server + ":" + path, mountPoint.toString()),
                "cannot mount the NFS share " + server + ":" + path + " on " + mountPoint
                        + " (the manager needs password-less sudo for that, or the share mounted already and"
                        + " nfs.mount.path set in the platform's configuration)");
        return new NfsShare(server, path, mountPoint, true);
    }

    /** @return where {@code /proc/mounts} (or a file like it) lists the share, or null */
    static Path mountedAt(String server, String path, Path mounts) {
        try {
            String wanted = server + ":" + path.replaceAll("/+$", "");
            for (String line : Files.readAllLines(mounts, StandardCharsets.UTF_8)) {
                String[] fields = line.split(" ");
                if (fields.length >= 3 && fields[2].startsWith("nfs") && fields[0].replaceAll("/+$", "").equals(wanted)) {
                    return Path.of(fields[1].replace("\\040", " "));
                }
            }
        } catch (IOException e) {
            // no /proc/mounts: not Linux, mount it then
        }
        return null;
    }

    private static void run(List<String> command, String failure) throws PlatformException {
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectInput(ProcessBuilder.Redirect.from(
                    new java.io.File("/dev/null"))).start();
            byte[] output = process.getInputStream().readNBytes(4096);
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new PlatformException(failure + ": no answer within 60 s");
            }
            if (process.exitValue() != 0) {
                throw new PlatformException(failure + ": " + new String(output, StandardCharsets.UTF_8).strip());
            }
        } catch (IOException e) {
            throw new PlatformException(failure + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new PlatformException(failure + ": interrupted", e);
        }
    }

    @Override
    public String describe() {
        return "the NFS share " + server + ":" + path;
    }

    /** @return NNI's NFS volume: {@code nni-vol} of {@code server} and {@code path} */
    @Override
    public Map<String, Object> volume() {
        return Map.of("name", NniObjects.STORAGE_VOLUME, "nfs", Map.of("server", server, "path", path));
    }

    /** @return the experiment's folder on the share itself: what is written there is published */
    @Override
    public Path stagingFolder(String experimentId) throws PlatformException {
        Path folder = root.resolve("nni").resolve(experimentId);
        try {
            Files.createDirectories(folder);
        } catch (IOException e) {
            throw new PlatformException("cannot create " + folder + " on " + describe() + ": " + e.getMessage(), e);
        }
        return folder;
    }

    /** @return the staging folder: it is on the share, mounted here */
    @Override
    public Path readableFolder(String experimentId) throws PlatformException {
        return stagingFolder(experimentId);
    }

    @Override
    public void publish(String experimentId) {
        // the staging folder is on the share
    }

    @Override
    public String url(String experimentId, String environmentId) {
        return "nfs://" + server + ":" + path + "/nni/" + experimentId + "/envs/" + environmentId;
    }

    /** Unmounts the share if this manager mounted it; failures are returned, not thrown. */
    @Override
    public List<String> release() {
        List<String> problems = new ArrayList<>();
        if (mountedHere) {
            try {
                run(List.of("sudo", "-n", "umount", root.toString()), "cannot unmount " + root);
            } catch (PlatformException e) {
                problems.add(e.getMessage());
            }
        }
        return problems;
    }
}
