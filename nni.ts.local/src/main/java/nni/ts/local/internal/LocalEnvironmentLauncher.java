package nni.ts.local.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import nni.api.environment.EnvironmentLauncher;
import nni.api.environment.EnvironmentSpec;
import nni.api.environment.LaunchedEnvironment;
import nni.api.platform.PlatformException;

/**
 * Local reuse mode: each environment is a keeper ({@code java -jar nni-trialkeeper.jar runner ...})
 * started on this machine in a process group of its own, in
 * {@code <experiment>/environments/<id>}, with its output in {@code keeper.stdout} and
 * {@code keeper.stderr} there.
 */
final class LocalEnvironmentLauncher implements EnvironmentLauncher {

    private static final Logger LOG = LoggerFactory.getLogger(LocalEnvironmentLauncher.class);
    private static final boolean HAS_SETSID = Files.isExecutable(Path.of("/usr/bin/setsid")) || Files.isExecutable(Path.of("/bin/setsid"));

    private final Path environmentsDirectory;
    private final int graceSeconds;
    private final Path sdkPath;

    /** @param sdkPath the shipped nni SDK to put on the trials' PYTHONPATH, or null */
    LocalEnvironmentLauncher(Path environmentsDirectory, int graceSeconds, Path sdkPath) {
        this.environmentsDirectory = environmentsDirectory;
        this.graceSeconds = graceSeconds;
        this.sdkPath = sdkPath;
    }

    @Override
    public LaunchedEnvironment start(EnvironmentSpec spec) throws PlatformException {
        Path directory = environmentsDirectory.resolve(spec.environmentId());
        List<String> command = new ArrayList<>();
        if (HAS_SETSID) {
            command.add("setsid");
        }
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-jar");
        command.add(spec.keeperJar().toString());
        command.addAll(spec.arguments(spec.codeArchive().toString(), directory.toString()));
        try {
            Files.createDirectories(directory);
            ProcessBuilder builder = new ProcessBuilder(command).directory(directory.toFile())
                    .redirectOutput(directory.resolve("keeper.stdout").toFile())
                    .redirectError(directory.resolve("keeper.stderr").toFile());
            builder.environment().put(EnvironmentSpec.TOKEN_VARIABLE, spec.token());
            if (sdkPath != null) { // the keeper passes its environment on to the trials
                String existing = builder.environment().get("PYTHONPATH");
                builder.environment().put("PYTHONPATH", existing == null || existing.isEmpty() ? sdkPath.toString() : existing + ":" + sdkPath);
            }
            Process process = builder.start();
            LOG.debug("environment {}: keeper pid {} in {}", spec.environmentId(), process.pid(), directory);
            return new LocalEnvironment(process, directory);
        } catch (IOException e) {
            throw new PlatformException("cannot start a local keeper in " + directory + ": " + e.getMessage(), e);
        }
    }

    private final class LocalEnvironment implements LaunchedEnvironment {
        private final Process process;
        private final Path directory;

        LocalEnvironment(Process process, Path directory) {
            this.process = process;
            this.directory = directory;
        }

        @Override
        public CompletionStage<String> ended() {
            return process.onExit().thenApply(p -> "keeper exit code " + p.exitValue());
        }

        @Override
        public void stop() {
            if (!process.isAlive()) {
                return;
            }
            List<ProcessHandle> tree = new ArrayList<>(process.descendants().toList());
            tree.add(process.toHandle());
            tree.forEach(ProcessHandle::destroy);
            process.onExit().orTimeout(graceSeconds, TimeUnit.SECONDS).exceptionally(timeout -> {
                LOG.warn("local environment {} did not end within {} s of SIGTERM; killing it", directory.getFileName(), graceSeconds);
                tree.forEach(ProcessHandle::destroyForcibly);
                return null;
            });
        }

        @Override
        public String url() {
            return "file://localhost" + directory;
        }
    }
}
