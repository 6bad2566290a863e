package nni.itest.keeper;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;

import nni.api.environment.EnvironmentLauncher;
import nni.api.environment.EnvironmentListener;
import nni.api.environment.EnvironmentSpec;
import nni.api.environment.LaunchedEnvironment;
import nni.api.platform.PlatformException;

/**
 * Starts real keeper processes (Java or Python) on this machine, as a platform would: the keeper
 * file the spec offers for its kind, under the kind's interpreter. Keeps them for the test; it can
 * add keeper options and environment variables, give one keeper another code archive or a wrong token.
 */
public final class ProcessKeeperLauncher implements EnvironmentLauncher {

    private final Path root;
    private final KeeperKind kind;
    private final List<String> extraArguments = new ArrayList<>();
    private final Map<String, String> environment = new ConcurrentHashMap<>();
    private final Map<String, Path> archives = new ConcurrentHashMap<>();
    private volatile String tokenOverride;
    public final Map<String, Process> processes = new ConcurrentHashMap<>();

    public ProcessKeeperLauncher(Path root, KeeperKind kind) {
        this.root = root;
        this.kind = kind;
    }

    public ProcessKeeperLauncher arguments(String... arguments) {
        extraArguments.addAll(List.of(arguments));
        return this;
    }

    public ProcessKeeperLauncher environment(String name, String value) {
        environment.put(name, value);
        return this;
    }

    /** The keeper of {@code keeperId} unpacks {@code archive} instead of the session's code. */
    public ProcessKeeperLauncher archive(String keeperId, Path archive) {
        archives.put(keeperId, archive);
        return this;
    }

    /** Every keeper gets this token instead of its own. */
    public ProcessKeeperLauncher token(String token) {
        tokenOverride = token;
        return this;
    }

    public Path directory(String id) {
        return root.resolve(id);
    }

    @Override
    public LaunchedEnvironment start(EnvironmentSpec spec, EnvironmentListener listener) throws PlatformException {
        Path directory = root.resolve(spec.environmentId());
        List<String> command = new ArrayList<>(kind.command(spec.keeperFile(kind.runtime())));
        command.addAll(spec.arguments(archives.getOrDefault(spec.environmentId(), spec.codeArchive()).toString(), directory.toString()));
        command.addAll(extraArguments);
        try {
            Files.createDirectories(directory);
            ProcessBuilder builder = new ProcessBuilder(command).directory(directory.toFile())
                    .redirectOutput(directory.resolve("keeper.stdout").toFile())
                    .redirectError(directory.resolve("keeper.stderr").toFile());
            builder.environment().putAll(environment);
            builder.environment().put(EnvironmentSpec.TOKEN_VARIABLE, tokenOverride != null ? tokenOverride : spec.token());
            Process process = builder.start();
            processes.put(spec.environmentId(), process);
            return new LaunchedEnvironment() {
                @Override
                public CompletionStage<String> ended() {
                    return process.onExit().thenApply(p -> "exit code " + p.exitValue());
                }

                @Override
                public void stop() {
                    process.descendants().forEach(ProcessHandle::destroyForcibly);
                    process.destroyForcibly();
                }
            };
        } catch (IOException e) {
            throw new PlatformException(e.getMessage(), e);
        }
    }
}
