package nni.ts.cloud;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

import nni.api.environment.EnvironmentSpec;
import nni.api.environment.KeeperRuntime;
import nni.api.environment.KeeperTransport;

/**
 * One experiment's folder on a storage that the manager's machine and the cluster's jobs both see:
 * {@code <local mount>/<experiment>} here is {@code <container mount>/<experiment>} in a job. The
 * code archive, the keepers and the trial SDK are put there once per session ({@link #stage});
 * keepers and trials work below it.
 */
public final class SharedStorage {

    private static final String CODE = "nni-code.tar.gz";

    private final Path localRoot;
    private final String containerRoot;
    private boolean staged;

    /**
     * @param localRoot     the experiment's folder on this machine
     * @param containerRoot the same folder as the jobs see it (an absolute path)
     */
    public SharedStorage(Path localRoot, String containerRoot) {
        this.localRoot = localRoot;
        this.containerRoot = containerRoot.endsWith("/") ? containerRoot.substring(0, containerRoot.length() - 1) : containerRoot;
    }

    /** @return {@code relative} as the jobs see it */
    public String container(String relative) {
        return containerRoot + "/" + relative;
    }

    /** @return {@code relative} on this machine */
    public Path local(String relative) {
        return localRoot.resolve(relative);
    }

    /**
     * @param setting a platform's {@code keeper.transport} setting: {@code files} (the keepers talk
     *                to the manager through channel folders in {@code channels/} here, for jobs that
     *                cannot reach the manager's port) or {@code http} (to the manager's endpoint)
     * @throws IllegalArgumentException naming the setting and what it accepts
     */
    public KeeperTransport keeperTransport(String setting) {
        return switch (setting.strip().toLowerCase(java.util.Locale.ROOT)) {
            case "files" -> KeeperTransport.sharedFiles(local("channels"), container("channels"));
            case "http" -> KeeperTransport.http();
            default -> throw new IllegalArgumentException("keeper.transport: expected files or http, got \"" + setting + "\"");
        };
    }

    /** A keeper transport, and why it was chosen: shown with the session's report channel. */
    public record Route(KeeperTransport transport, String why) {
    }

    /**
     * @param setting {@code keeper.transport}: {@code files}, {@code http}, or {@code auto} (files when
     *                nothing outside this machine can reach the manager for sure, {@link ManagerAddress#unreachable},
     *                else http)
     * @param manager where the jobs could call the manager
     * @throws IllegalArgumentException naming the setting and what it accepts
     */
    public Route keeperRoute(String setting, ManagerAddress manager) {
        String mode = setting == null || setting.isBlank() ? "auto" : setting.strip().toLowerCase(java.util.Locale.ROOT);
        if (!mode.equals("auto")) {
            try {
                return new Route(keeperTransport(mode), "keeper.transport = " + mode);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("keeper.transport: expected auto, files or http, got \"" + setting + "\"", e);
            }
        }
        if (manager.unreachable()) {
            return new Route(keeperTransport("files"), "keeper.transport = auto: nniManagerIp is not set and the manager's port is"
                    + " bound to " + manager.httpHost().strip() + " only, which the jobs cannot reach; channel folders on the"
                    + " shared storage (" + local("channels") + " here)");
        }
        return new Route(KeeperTransport.http(), "keeper.transport = auto: the jobs call the manager at " + manager.describe());
    }

    /** @return the code archive as the jobs see it */
    public String codeOnWorker() {
        return container(CODE);
    }

    /** @return the folder holding the shipped {@code nni} package, as the jobs see it */
    public String sdkOnWorker() {
        return container("sdk");
    }

    /** @return each keeper {@code spec} offers, as the jobs see it */
    public Map<KeeperRuntime, String> keepersOnWorker(EnvironmentSpec spec) {
        Map<KeeperRuntime, String> keepers = new EnumMap<>(KeeperRuntime.class);
        spec.keepers().forEach(runtime -> keepers.put(runtime, container("keeper/" + runtime.fileName())));
        return keepers;
    }

    /**
     * Puts the code archive, the keepers and the trial SDK of {@code bundleClass}'s bundle on the
     * storage, the first time only: the manager packs the code once per session.
     */
    public synchronized void stage(EnvironmentSpec spec, Class<?> bundleClass) throws IOException {
        if (staged) {
            return;
        }
        Files.createDirectories(localRoot);
        StagedFiles.copy(spec.codeArchive(), local(CODE));
        for (KeeperRuntime runtime : spec.keepers()) {
            StagedFiles.copy(spec.keeperFile(runtime), local("keeper/" + runtime.fileName()));
        }
        StagedFiles.sdk(bundleClass, local("sdk"));
        staged = true;
    }

    /**
     * Writes a secret (a keeper's token) to {@code relative} where only this user can read it: a
     * folder of mode 0700, a file of mode 0600, so that it never travels in a job's definition.
     *
     * @return the file as the jobs see it
     */
    public String secret(String relative, String secret) throws IOException {
        Path file = local(relative);
        Files.createDirectories(file.getParent(), PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        Files.deleteIfExists(file);
        Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        Files.writeString(file, secret, StandardOpenOption.TRUNCATE_EXISTING);
        return container(relative);
    }

    /**
     * @param jobName NNI's name of the job: {@code nni_exp_<exp>_trial_<trial>} (the keeper worked in
     *                {@code trials/<trial>}) or {@code nni_exp_<exp>_env_<env>} ({@code envs/<env>})
     * @return {@code " (keeper: <its last lines of keeper.stderr>)"}, or empty: why a job ended before
     *         its keeper reached the manager
     */
    public String keeperSaid(String experimentId, String jobName) {
        String prefix = "nni_exp_" + experimentId + "_";
        String relative = jobName.startsWith(prefix + "trial_") ? "trials/" + jobName.substring((prefix + "trial_").length())
                : jobName.startsWith(prefix + "env_") ? "envs/" + jobName.substring((prefix + "env_").length()) : null;
        String said = relative == null ? "" : keeperErrors(relative);
        return said.isEmpty() ? "" : " (keeper: " + said + ")";
    }

    private String keeperErrors(String relative) {
        Path file = local(relative).resolve("keeper.stderr");
        try {
            if (!Files.isRegularFile(file) || Files.size(file) > 1 << 20) {
                return "";
            }
            List<String> lines = Files.readAllLines(file).stream().filter(l -> !l.isBlank()).toList();
            return String.join(" / ", lines.subList(Math.max(0, lines.size() - 3), lines.size()));
        } catch (IOException | RuntimeException e) {
            return "";
        }
    }
}
