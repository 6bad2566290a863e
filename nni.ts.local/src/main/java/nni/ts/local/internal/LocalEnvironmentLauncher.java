package nni.ts.local.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import nni.api.environment.EnvironmentLauncher;
import nni.api.environment.EnvironmentListener;
import nni.api.environment.EnvironmentSpec;
import nni.api.environment.EnvironmentState;
import nni.api.environment.KeeperRuntime;
import nni.api.environment.LaunchedEnvironment;
import nni.api.platform.PlatformException;
import nni.api.platform.SessionView;

/**
 * Local reuse mode: each environment is a keeper ({@code java -jar nni-trialkeeper.jar runner ...},
 * with this runtime's own Java) started on this machine in a process group of its own, in
 * {@code <experiment>/environments/<id>}, with its output in {@code keeper.stdout} and
 * {@code keeper.stderr} there. An environment's handle is {@code <pid>:<start time in epoch ms>}.
 */
final class LocalEnvironmentLauncher implements EnvironmentLauncher {

    private static final Logger LOG = LoggerFactory.getLogger(LocalEnvironmentLauncher.class);
    private static final boolean HAS_SETSID = Files.isExecutable(Path.of("/usr/bin/setsid")) || Files.isExecutable(Path.of("/bin/setsid"));
    private static final Map<String, String> ATTRIBUTES = Map.of("keeper", "java " + Runtime.version().feature());

    private final Path environmentsDirectory;
    private final int graceSeconds;
    private final Path sdkPath;
    private final String host;
    /** This machine's GPUs for the machines view, or null when none are shown. */
    private final GpuReadings gpus;

    /**
     * @param sdkPath the shipped nni SDK to put on the trials' PYTHONPATH, or null
     * @param gpus    this machine's GPU readings for {@link #machines}, or null
     */
    LocalEnvironmentLauncher(Path environmentsDirectory, int graceSeconds, Path sdkPath, String host, GpuReadings gpus) {
        this.environmentsDirectory = environmentsDirectory;
        this.graceSeconds = graceSeconds;
        this.sdkPath = sdkPath;
        this.host = host;
        this.gpus = gpus;
    }

    /**
     * This machine with its GPUs as last read (a new reading starts when that one is old). Which
     * trial holds a GPU is not shown: in reuse mode the keepers place their trials themselves.
     */
    @Override
    public List<SessionView.Machine> machines(Map<String, List<String>> trials) {
        return gpus == null ? List.of() : List.of(gpus.machine(host, Map.of()));
    }

    @Override
    public LaunchedEnvironment start(EnvironmentSpec spec, EnvironmentListener listener) throws PlatformException {
        Path directory = environmentsDirectory.resolve(spec.environmentId());
        List<String> command = new ArrayList<>();
        if (HAS_SETSID) {
            command.add("setsid");
        }
        List<String> keeper = new ArrayList<>(spec.command(KeeperRuntime.JAVA, spec.keeperFile(KeeperRuntime.JAVA).toString(),
                spec.codeArchive().toString(), directory.toString()));
        keeper.set(0, Path.of(System.getProperty("java.home"), "bin", "java").toString()); // the Java this runtime runs on
        command.addAll(keeper);
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
            listener.stateChanged(EnvironmentState.STARTING, "waiting: starting a local keeper");
            Process process = builder.start();
            LOG.debug("environment {}: keeper pid {} in {}", spec.environmentId(), process.pid(), directory);
            return new LocalEnvironment(process.toHandle(), process.onExit().thenApply(p -> "keeper exit code " + p.exitValue()),
                    directory);
        } catch (IOException e) {
            throw new PlatformException("cannot start a local keeper in " + directory + ": " + e.getMessage(), e);
        }
    }

    /** Finds a keeper started by an earlier session: the same pid with the same start time, still alive. */
    @Override
    public Optional<LaunchedEnvironment> reattach(String environmentId, String handle) {
        String[] words = handle.split(":");
        if (words.length != 2) {
            return Optional.empty();
        }
        try {
            long pid = Long.parseLong(words[0]);
            long start = Long.parseLong(words[1]);
            return ProcessHandle.of(pid).filter(ProcessHandle::isAlive)
                    .filter(p -> p.info().startInstant().map(Instant::toEpochMilli).orElse(-1L) == start)
                    .map(p -> new LocalEnvironment(p, p.onExit().thenApply(done -> "keeper ended"),
                            environmentsDirectory.resolve(environmentId)));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    private final class LocalEnvironment implements LaunchedEnvironment {
        private final ProcessHandle process;
        private final CompletableFuture<String> ended = new CompletableFuture<>();
        private final Path directory;
        private final String handle;
        private volatile boolean detached;

        LocalEnvironment(ProcessHandle process, CompletionStage<String> exit, Path directory) {
            this.process = process;
            this.directory = directory;
            this.handle = process.pid() + ":" + process.info().startInstant().map(Instant::toEpochMilli).orElse(0L);
            exit.thenAccept(why -> {
                if (!detached) {
                    ended.complete(why);
                }
            });
        }

        @Override
        public CompletionStage<String> ended() {
            return ended;
        }

        @Override
        public void stop() {
            if (!process.isAlive()) {
                return;
            }
            List<ProcessHandle> tree = new ArrayList<>(process.descendants().toList());
            tree.add(process);
            tree.forEach(ProcessHandle::destroy);
            process.onExit().orTimeout(graceSeconds, TimeUnit.SECONDS).exceptionally(timeout -> {
                LOG.warn("local environment {} did not end within {} s of SIGTERM; killing it", directory.getFileName(), graceSeconds);
                tree.forEach(ProcessHandle::destroyForcibly);
                return null;
            });
        }

        @Override
        public void detach() {
            detached = true;
        }

        @Override
        public String url() {
            return "file://localhost" + directory;
        }

        @Override
        public String handle() {
            return handle;
        }

        @Override
        public String host() {
            return host;
        }

        @Override
        public Map<String, String> attributes() {
            return ATTRIBUTES;
        }
    }
}
