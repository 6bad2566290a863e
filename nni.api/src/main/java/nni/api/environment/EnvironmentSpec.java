package nni.api.environment;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * One keeper process to start, as the manager asks an {@link EnvironmentLauncher} for it.
 * Immutable; built by the manager with {@link #builder(String)}.
 */
public final class EnvironmentSpec {

    /** The environment variable the keeper reads its token from. */
    public static final String TOKEN_VARIABLE = "NNI_KEEPER_TOKEN";

    private final String environmentId;
    private final String mode;
    private final String platform;
    private final String experimentId;
    private final String managerUrl;
    private final String token;
    private final Map<KeeperRuntime, Path> keeperFiles;
    private final Path codeArchive;
    private final String trialCommand;
    private final String channel;

    private EnvironmentSpec(Builder b) {
        this.environmentId = b.environmentId;
        this.mode = Objects.requireNonNull(b.mode, "mode");
        this.platform = Objects.requireNonNull(b.platform, "platform");
        this.experimentId = Objects.requireNonNull(b.experimentId, "experimentId");
        this.managerUrl = Objects.requireNonNull(b.managerUrl, "managerUrl");
        this.token = Objects.requireNonNull(b.token, "token");
        this.keeperFiles = Collections.unmodifiableMap(new EnumMap<>(b.keeperFiles));
        this.codeArchive = Objects.requireNonNull(b.codeArchive, "codeArchive");
        this.trialCommand = Objects.requireNonNull(b.trialCommand, "trialCommand");
        this.channel = b.channel;
        if (keeperFiles.isEmpty()) {
            throw new IllegalArgumentException("environment " + environmentId + ": at least one keeper file is required");
        }
    }

    /** @param environmentId the keeper's id: the environment id in reuse mode, the trial id with one keeper per trial */
    public static Builder builder(String environmentId) {
        return new Builder(environmentId);
    }

    public String environmentId() {
        return environmentId;
    }

    /** @return {@code runner} (reuse mode: trials one after another) or {@code trial} (one trial) */
    public String mode() {
        return mode;
    }

    /** @return the platform name the trials see in {@code NNI_PLATFORM} */
    public String platform() {
        return platform;
    }

    public String experimentId() {
        return experimentId;
    }

    /** @return the manager's endpoint as the worker reaches it ({@code http://host:port/}) */
    public String managerUrl() {
        return managerUrl;
    }

    /**
     * @return the keeper's secret: pass it in {@link #TOKEN_VARIABLE} or a file only the keeper can
     *         read; never on a command line, never logged
     */
    public String token() {
        return token;
    }

    /**
     * @return the keepers the platform may start for this environment, in the manager's order of
     *         preference: those the build ships that the platform's {@code keeper} setting allows.
     *         A platform picks one per worker (for {@code auto}: Java 17 when the worker has it,
     *         else Python 3.7).
     */
    public Set<KeeperRuntime> keepers() {
        return keeperFiles.keySet();
    }

    /**
     * @return the keeper file of {@code runtime} on the manager's machine, to copy to the worker
     * @throws IllegalStateException if that keeper is not offered ({@link #keepers()})
     */
    public Path keeperFile(KeeperRuntime runtime) {
        Path file = keeperFiles.get(runtime);
        if (file == null) {
            throw new IllegalStateException("the " + runtime.name().toLowerCase() + " keeper is not offered for environment "
                    + environmentId + " (offered: " + keepers().stream().map(r -> r.name().toLowerCase()).toList() + ")");
        }
        return file;
    }

    /** @return the trial code as tar.gz on the manager's machine */
    public Path codeArchive() {
        return codeArchive;
    }

    /** @return the experiment's trial command */
    public String trialCommand() {
        return trialCommand;
    }

    /**
     * @return the keeper's channel folder on the worker when it talks to the manager through files
     *         on a shared storage ({@link KeeperTransport#sharedFiles}), else null (HTTP to
     *         {@link #managerUrl()})
     * @since 1.1
     */
    public String channel() {
        return channel;
    }

    /**
     * @param runtime             the keeper to run
     * @param keeperOnWorker      where the platform put that keeper's file on the worker
     * @param codeArchiveOnWorker where the platform put the code archive on the worker
     * @param workDirectory       the keeper's directory on the worker (trials go below it)
     * @return the whole command line: {@code java -jar <keeper> <arguments>} or
     *         {@code python3 <keeper> <arguments>}. The first word is the interpreter as found on the
     *         worker's {@code PATH}; a platform that knows a better one (a configured path) replaces
     *         it. The token is not in it.
     */
    public List<String> command(KeeperRuntime runtime, String keeperOnWorker, String codeArchiveOnWorker, String workDirectory) {
        List<String> command = new ArrayList<>(runtime.launcher());
        command.add(keeperOnWorker);
        command.addAll(arguments(codeArchiveOnWorker, workDirectory));
        return List.copyOf(command);
    }

    /**
     * @param codeArchiveOnWorker where the platform put the code archive on the worker
     * @param workDirectory       the keeper's directory on the worker (trials go below it)
     * @return the arguments after the keeper file, the same for both keepers: with a
     *         {@linkplain #channel() channel} {@code --channel <folder>} in place of {@code --manager <url>}
     */
    public List<String> arguments(String codeArchiveOnWorker, String workDirectory) {
        return List.of(mode, channel != null ? "--channel" : "--manager", channel != null ? channel : managerUrl, "--experiment", experimentId,
                mode.equals("runner") ? "--environment" : "--trial", environmentId, "--platform", platform,
                "--code", codeArchiveOnWorker, "--command", trialCommand, "--work-dir", workDirectory);
    }

    @Override
    public String toString() {
        return "EnvironmentSpec[" + environmentId + ", " + mode + ", " + platform + ", keepers " + keepers() + "]"; // no token
    }

    /** Builds an {@link EnvironmentSpec}; not thread-safe. Every field is required but the channel. */
    public static final class Builder {
        private final String environmentId;
        private String mode;
        private String platform;
        private String experimentId;
        private String managerUrl;
        private String token;
        private final Map<KeeperRuntime, Path> keeperFiles = new EnumMap<>(KeeperRuntime.class);
        private Path codeArchive;
        private String trialCommand;
        private String channel;

        private Builder(String environmentId) {
            this.environmentId = Objects.requireNonNull(environmentId, "environmentId");
        }

        /** @param mode {@code runner} or {@code trial} */
        public Builder mode(String mode) {
            if (!"runner".equals(mode) && !"trial".equals(mode)) {
                throw new IllegalArgumentException("mode must be runner or trial, got " + mode);
            }
            this.mode = mode;
            return this;
        }

        public Builder platform(String platform) {
            this.platform = platform;
            return this;
        }

        public Builder experimentId(String experimentId) {
            this.experimentId = experimentId;
            return this;
        }

        public Builder managerUrl(String managerUrl) {
            this.managerUrl = managerUrl;
            return this;
        }

        public Builder token(String token) {
            this.token = token;
            return this;
        }

        /** Offers one keeper; call once per keeper the platform may use, in order of preference. */
        public Builder keeperFile(KeeperRuntime runtime, Path file) {
            keeperFiles.put(Objects.requireNonNull(runtime, "runtime"), Objects.requireNonNull(file, "file"));
            return this;
        }

        public Builder codeArchive(Path codeArchive) {
            this.codeArchive = codeArchive;
            return this;
        }

        public Builder trialCommand(String trialCommand) {
            this.trialCommand = trialCommand;
            return this;
        }

        /**
         * @param channel the keeper's channel folder on the worker (file transport), or null for HTTP
         * @since 1.1
         */
        public Builder channel(String channel) {
            this.channel = channel;
            return this;
        }

        /** @throws NullPointerException naming a missing field; IllegalArgumentException without keeper files */
        public EnvironmentSpec build() {
            return new EnvironmentSpec(this);
        }
    }
}
