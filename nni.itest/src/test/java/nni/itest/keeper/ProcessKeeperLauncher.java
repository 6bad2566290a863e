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
import nni.api.environment.KeeperRuntime;
import nni.api.environment.LaunchedEnvironment;
import nni.api.platform.PlatformException;

/** Starts real keeper processes on this machine, with extra JVM flags, and keeps them for the test. */
public final class ProcessKeeperLauncher implements EnvironmentLauncher {

    private final Path root;
    private final List<String> jvmFlags;
    public final Map<String, Process> processes = new ConcurrentHashMap<>();

    public ProcessKeeperLauncher(Path root, List<String> jvmFlags) {
        this.root = root;
        this.jvmFlags = jvmFlags;
    }

    public Path directory(String id) {
        return root.resolve(id);
    }

    @Override
    public LaunchedEnvironment start(EnvironmentSpec spec, EnvironmentListener listener) throws PlatformException {
        Path directory = root.resolve(spec.environmentId());
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        command.addAll(jvmFlags);
        command.add("-jar");
        command.add(spec.keeperFile(KeeperRuntime.JAVA).toString());
        command.addAll(spec.arguments(spec.codeArchive().toString(), directory.toString()));
        try {
            Files.createDirectories(directory);
            ProcessBuilder builder = new ProcessBuilder(command).directory(directory.toFile())
                    .redirectOutput(directory.resolve("keeper.stdout").toFile())
                    .redirectError(directory.resolve("keeper.stderr").toFile());
            builder.environment().put(EnvironmentSpec.TOKEN_VARIABLE, spec.token());
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
