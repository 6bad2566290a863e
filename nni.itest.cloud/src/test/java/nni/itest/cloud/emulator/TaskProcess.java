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
import java.util.function.IntSupplier;

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
        return start(List.of("setsid", "bash", "-c", command), folder, environment);
    }

    private static TaskProcess start(List<String> words, Path folder, Map<String, String> environment) throws IOException {
        ProcessBuilder builder = new ProcessBuilder(words).directory(folder.toFile())
                .redirectOutput(folder.resolve("stdout").toFile()).redirectError(folder.resolve("stderr").toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        builder.environment().putAll(environment);
        return new TaskProcess(builder.start());
    }

    /**
     * Where a task runs cut off from the manager, as a compute in the cloud is from a laptop: in a
     * network namespace of its own ({@code unshare -rn}), whose only interface is its own loopback,
     * so no address of this machine is reachable. A recorder listens there at 127.0.0.1 and ::1 on
     * the manager's port, the one address a keeper could try, and appends one line per connection
     * to {@code connections}: a test asserts that file stays empty.
     *
     * @param managerPort the manager's port, asked when the task starts
     * @param connections the record of connections to that port (created empty when the task starts)
     */
    public record Isolation(IntSupplier managerPort, Path connections) {
    }

    /**
     * Runs in the task's namespace: listens on the manager's port, runs the task, records every
     * connection, and once the task ended takes the connections still queued (every connect the
     * task made is complete by then), then exits with the task's code.
     */
    private static final String RECORDER = """
            import os, selectors, signal, socket, subprocess, sys, threading
            port, record, command = int(sys.argv[1]), sys.argv[2], sys.argv[3]
            selector = selectors.DefaultSelector()
            for family, host in ((socket.AF_INET, '127.0.0.1'), (socket.AF_INET6, '::1')):
                server = socket.socket(family, socket.SOCK_STREAM)
                server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                server.bind((host, port))
                server.listen(64)
                server.setblocking(False)
                selector.register(server, selectors.EVENT_READ)
            ended, told = os.pipe()
            selector.register(ended, selectors.EVENT_READ)
            task = subprocess.Popen(['bash', '-c', command])
            signal.signal(signal.SIGTERM, lambda *_: task.terminate())
            threading.Thread(target=lambda: (task.wait(), os.write(told, b'x')), daemon=True).start()
            def take(server):
                while True:
                    try:
                        connection, peer = server.accept()
                    except BlockingIOError:
                        return
                    with open(record, 'a') as f:
                        f.write('%s connected to the manager port %d\\n' % (peer[0], port))
                    connection.close()
            running = True
            while running:
                for key, _ in selector.select():
                    if key.fileobj == ended:
                        running = False
                    else:
                        take(key.fileobj)
            for key in list(selector.get_map().values()):
                if key.fileobj != ended:
                    take(key.fileobj)
            code = task.wait()
            sys.exit(128 - code if code < 0 else code)
            """;

    /**
     * Like {@link #start(String, Path, Map)}, cut off from the manager ({@link Isolation}); not cut off when {@code isolation} is null.
     *
     * @throws IOException when the namespace cannot be made here ({@code unshare} refused)
     */
    public static TaskProcess start(String command, Path folder, Map<String, String> environment, Isolation isolation)
            throws IOException {
        if (isolation == null) {
            return start(command, folder, environment);
        }
        return start(isolated(command, folder, isolation), folder, environment);
    }

    /**
     * @param command a bash command line
     * @param folder  where the recorder's script is written (created)
     * @return the words that run {@code command} cut off from the manager ({@link Isolation}), in a session of its own:
     *         for emulators that start their processes themselves
     */
    public static List<String> isolated(String command, Path folder, Isolation isolation) throws IOException {
        Files.createDirectories(folder);
        Path recorder = folder.resolve(".isolation.py");
        Files.writeString(recorder, RECORDER);
        Files.write(isolation.connections(), new byte[0], java.nio.file.StandardOpenOption.CREATE,
                java.nio.file.StandardOpenOption.APPEND);
        String inside = "ip link set lo up && exec python3 " + recorder + " " + isolation.managerPort().getAsInt() + " "
                + isolation.connections() + " \"$0\"";
        return List.of("setsid", "unshare", "-rn", "bash", "-c", inside, command);
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
