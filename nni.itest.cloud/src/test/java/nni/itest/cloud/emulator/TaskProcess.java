package nni.itest.cloud.emulator;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * One task of an emulated job: a shell command run as a local process in a session of its own,
 * as a container would run it, with its output in {@code stdout} and {@code stderr} of its folder.
 * {@link #kill} ends the whole tree, as removing a container does.
 */
public final class TaskProcess {

    private final Process process;
    private final CompletableFuture<Integer> exit;

    private TaskProcess(Process process) {
        this.process = process;
        this.exit = process.onExit().thenApply(Process::exitValue);
    }

    /**
     * @param command     the task's entry point, run by {@code bash -c}
     * @param folder      the task's working folder (created), where its output goes
     * @param environment what the platform's runtime sets for the task
     */
    public static TaskProcess start(String command, Path folder, Map<String, String> environment) throws IOException {
        Files.createDirectories(folder);
        ProcessBuilder builder = new ProcessBuilder("setsid", "bash", "-c", command).directory(folder.toFile())
                .redirectOutput(folder.resolve("stdout").toFile()).redirectError(folder.resolve("stderr").toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        builder.environment().putAll(environment);
        return new TaskProcess(builder.start());
    }

    /** @return completes with the exit code (128 + signal when killed) */
    public CompletableFuture<Integer> exit() {
        return exit;
    }

    public boolean alive() {
        return process.isAlive();
    }

    /**
     * Ends the task as a container runtime ends a container: SIGTERM to its main process, then,
     * once that one ended or after {@code graceMillis}, SIGKILL to everything it started.
     */
    public void kill(long graceMillis) {
        List<ProcessHandle> tree = new ArrayList<>(process.descendants().toList());
        process.toHandle().destroy();
        CompletableFuture.runAsync(() -> {
            try {
                process.onExit().get(graceMillis, TimeUnit.MILLISECONDS);
            } catch (Exception stillThere) {
                // forced below
            }
            process.toHandle().destroyForcibly();
            tree.forEach(ProcessHandle::destroyForcibly);
        });
    }
}
