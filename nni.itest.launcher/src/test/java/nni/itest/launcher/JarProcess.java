package nni.itest.launcher;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.awaitility.Awaitility;

/**
 * {@code java -jar nni-osgi.jar ARGS} as a user types it: in a given folder, with a given
 * environment (a {@code HOME} of the test's own), its output kept apart. Lifetime bounded.
 */
final class JarProcess implements AutoCloseable {

    /** What a finished run printed and returned. */
    record Result(int code, String out, String err) {
    }

    final Process process;
    private final Path out;
    private final Path err;

    private JarProcess(Process process, Path out, Path err) {
        this.process = process;
        this.out = out;
        this.err = err;
    }

    /**
     * @param workingDirectory where it runs
     * @param environment      variables set on top of the test's (give {@code HOME})
     * @param outputs          where its stdout and stderr files go (not the working directory)
     */
    static JarProcess start(Path workingDirectory, Map<String, String> environment, Path outputs, String... args)
            throws IOException {
        return start(workingDirectory, environment, outputs, List.of(), args);
    }

    /** As {@link #start(Path, Map, Path, String...)}, with options for the java command before {@code -jar}. */
    static JarProcess start(Path workingDirectory, Map<String, String> environment, Path outputs, List<String> javaOptions,
                            String... args) throws IOException {
        return start(Path.of(System.getProperty("java.home")), workingDirectory, environment, outputs, javaOptions, args);
    }

    /** As {@link #start(Path, Map, Path, List, String...)}, run by the java of another Java installation. */
    static JarProcess start(Path javaHome, Path workingDirectory, Map<String, String> environment, Path outputs,
                            List<String> javaOptions, String... args) throws IOException {
        return start(javaHome, Path.of(System.getProperty("nni.jar")), workingDirectory, environment, outputs, javaOptions, args);
    }

    /** As {@link #start(Path, Path, Map, Path, List, String...)}, with the jar named by another path (a symbolic link). */
    static JarProcess start(Path javaHome, Path jar, Path workingDirectory, Map<String, String> environment, Path outputs,
                            List<String> javaOptions, String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of(javaHome.resolve("bin").resolve("java").toString()));
        command.addAll(javaOptions);
        command.addAll(List.of("-jar", jar.toString()));
        command.addAll(List.of(args));
        Files.createDirectories(outputs);
        Path out = Files.createTempFile(outputs, "out", ".txt");
        Path err = Files.createTempFile(outputs, "err", ".txt");
        ProcessBuilder builder = new ProcessBuilder(command).directory(workingDirectory.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectOutput(out.toFile()).redirectError(err.toFile());
        builder.environment().remove("NNI_OSGI_HOME");
        builder.environment().putAll(environment);
        return new JarProcess(builder.start(), out, err);
    }

    /** Runs to the end (at most two minutes). */
    static Result run(Path workingDirectory, Map<String, String> environment, Path outputs, String... args)
            throws IOException, InterruptedException {
        try (JarProcess jar = start(workingDirectory, environment, outputs, args)) {
            return jar.await();
        }
    }

    Result await() throws IOException, InterruptedException {
        if (!process.waitFor(120, TimeUnit.SECONDS)) {
            throw new AssertionError("still running after 120 s; stdout:\n" + Files.readString(out) + "\nstderr:\n"
                    + Files.readString(err));
        }
        return new Result(process.exitValue(), Files.readString(out), Files.readString(err));
    }

    String output() throws IOException {
        return Files.readString(out) + Files.readString(err);
    }

    @Override
    public void close() throws InterruptedException {
        end(process);
    }

    /**
     * {@code kill -9} of the runtime: the JVM that runs it (the launcher's child JVM when the launcher
     * made one, see {@code JvmRelaunch}) and the launcher; both have ended on return, so that a
     * runtime started next on the same home finds it free. The runtime's trials are left alone.
     */
    static void kill9(Process launcher) throws InterruptedException {
        List<ProcessHandle> runtimes = launcher.children().filter(JarProcess::isJava).toList();
        runtimes.forEach(ProcessHandle::destroyForcibly);
        launcher.destroyForcibly().waitFor(20, TimeUnit.SECONDS);
        Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> runtimes.stream().noneMatch(ProcessHandle::isAlive));
    }

    /** @return whether the process is a JVM (the launcher's child JVM among a runtime's children) */
    static boolean isJava(ProcessHandle process) {
        return process.info().command().map(command -> Path.of(command).getFileName().toString().equals("java")).orElse(false);
    }

    /** Ends a runtime process as an operator would: SIGTERM, then SIGKILL if it lingers. */
    static void end(Process process) throws InterruptedException {
        if (process.isAlive()) {
            process.destroy();
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
    }
}
