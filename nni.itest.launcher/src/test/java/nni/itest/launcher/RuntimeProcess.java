package nni.itest.launcher;

import static org.awaitility.Awaitility.await;

import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.awaitility.core.ConditionTimeoutException;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The runnable jar as a child process with its own home, on a random loopback port. Its lifetime
 * is bounded: {@link #close} ends it (SIGTERM, then SIGKILL).
 */
public final class RuntimeProcess implements AutoCloseable {

    public static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    public final Path home;
    public final Path output;
    public final Process process;
    private String endpoint;

    private RuntimeProcess(Path home, Process process, Path output) {
        this.home = home;
        this.process = process;
        this.output = output;
    }

    /** Starts {@code java -jar nni-osgi.jar --port 0 --home <home> <arguments>}. */
    public static RuntimeProcess start(Path home, Path experiments, String... arguments) throws IOException {
        return start(Map.of(), home, experiments, arguments);
    }

    /** Starts the jar with extra environment variables (e.g. a PATH with a fake nvidia-smi first). */
    public static RuntimeProcess start(Map<String, String> environment, Path home, Path experiments, String... arguments)
            throws IOException {
        return start(environment, false, "127.0.0.1", 0, home, experiments, arguments);
    }

    /** Starts the jar on a given port (0: any free one), as a resume that keepers must find again needs. */
    public static RuntimeProcess start(Map<String, String> environment, int port, Path home, Path experiments, String... arguments)
            throws IOException {
        return start(environment, false, "127.0.0.1", port, home, experiments, arguments);
    }

    /** Starts the jar with its port bound to {@code host} (the wildcard 0.0.0.0 counts as beyond loopback). */
    static RuntimeProcess start(Map<String, String> environment, String host, int port, Path home, Path experiments,
                                String... arguments) throws IOException {
        return start(environment, false, host, port, home, experiments, arguments);
    }

    /**
     * Starts the jar without a command and with the Gogo shell reading the process's stdin, as a
     * user at a terminal has it; {@link #type} sends it lines.
     */
    public static RuntimeProcess startWithShell(Path home, Path experiments) throws IOException {
        return startWithShell(Map.of(), home, experiments);
    }

    /** {@link #startWithShell(Path, Path)} with extra environment variables. */
    public static RuntimeProcess startWithShell(Map<String, String> environment, Path home, Path experiments) throws IOException {
        return start(environment, true, "127.0.0.1", 0, home, experiments);
    }

    private static RuntimeProcess start(Map<String, String> environment, boolean shell, String host, int port, Path home,
                                        Path experiments, String... arguments) throws IOException {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Dnni.experiments.dir=" + experiments));
        if (shell) {
            command.add("-Dgosh.args="); // interactive although stdin is a pipe
        }
        command.addAll(List.of("-jar", System.getProperty("nni.jar"), "--port", Integer.toString(port), "--host", host,
                "--home", home.toString()));
        command.addAll(List.of(arguments));
        Files.createDirectories(home);
        Path output = home.resolve("console.log");
        ProcessBuilder builder = new ProcessBuilder(command);
        builder.environment().putAll(environment);
        if (!shell) {
            builder.redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        }
        Process process = builder.redirectErrorStream(true).redirectOutput(output.toFile()).start();
        return new RuntimeProcess(home, process, output);
    }

    /** Types one line into the runtime's Gogo shell (started with {@link #startWithShell}). */
    public void type(String line) throws IOException {
        process.getOutputStream().write((line + "\n").getBytes(java.nio.charset.StandardCharsets.UTF_8));
        process.getOutputStream().flush();
    }

    /**
     * Types {@code nni:create <config>} into the shell and waits for its answer, "experiment ID STATUS
     * in FOLDER"; fails with the console and the log's tail when no such answer comes (a refusal, a
     * command the shell did not know), rather than leaving a later wait to time out without a word.
     *
     * @return the experiment's id
     */
    public String create(Path config, Duration patience) throws IOException {
        int before = console().length();
        type("nni:create " + config);
        Pattern created = Pattern.compile("experiment (\\w{8}) [A-Z_]+ in ");
        try {
            return await().atMost(patience).until(() -> {
                Matcher answer = created.matcher(console().substring(before));
                return answer.find() ? answer.group(1) : null;
            }, Objects::nonNull);
        } catch (ConditionTimeoutException e) {
            throw new AssertionError("nni:create " + config + " was not answered with an experiment within " + patience
                    + "; console:\n" + console() + "\nlog:\n" + log(), e);
        }
    }

    /** @return the REST base, once the runtime wrote {@code log/endpoint} */
    public String endpoint() {
        if (endpoint == null) {
            Path file = home.resolve("log").resolve("endpoint");
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100))
                    .until(() -> Files.exists(file) && !Files.readString(file).isBlank());
            try {
                endpoint = Files.readString(file).strip();
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        }
        return endpoint.endsWith("/") ? endpoint : endpoint + "/";
    }

    public HttpResponse<String> request(String method, String path, String body) throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(URI.create(endpoint() + "api/v1/nni/" + path))
                .timeout(Duration.ofSeconds(60))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
                .header("Content-Type", "application/json").build();
        return HTTP.send(request, HttpResponse.BodyHandlers.ofString());
    }

    public JsonNode get(String path) throws IOException, InterruptedException {
        HttpResponse<String> response = request("GET", path, null);
        if (response.statusCode() != 200) {
            throw new AssertionError("GET " + path + " -> " + response.statusCode() + " " + response.body());
        }
        return JSON.readTree(response.body());
    }

    public String console() throws IOException {
        return Files.readString(output);
    }

    /** @return the runtime's log ({@code <home>/log/nni.log}): a command shows only its own output on the console */
    public String log() throws IOException {
        Path log = home.resolve("log").resolve("nni.log");
        return Files.exists(log) ? Files.readString(log) : "";
    }

    /**
     * Waits for the exit and fails, with the console and the end of the log, unless its code is
     * {@code expected}: the console is read after the exit (an {@code assertEquals(console(), ...,
     * awaitExit(...))} reads it before, when it is still empty).
     */
    public void assertExit(int expected, Duration patience) throws InterruptedException, IOException {
        int code = awaitExit(patience);
        if (code != expected) {
            String[] log = log().split("\n");
            throw new AssertionError("expected exit code " + expected + ", was " + code + "; output:\n" + console()
                    + "\nthe end of its log:\n" + String.join("\n", java.util.Arrays.copyOfRange(log, Math.max(0, log.length - 150), log.length)));
        }
    }

    public int awaitExit(Duration patience) throws InterruptedException, IOException {
        if (!process.waitFor(patience.toMillis(), TimeUnit.MILLISECONDS)) {
            String[] log = log().split("\n");
            throw new AssertionError("the runtime did not exit within " + patience + "; output:\n" + console()
                    + "\nthe end of its log:\n" + String.join("\n", java.util.Arrays.copyOfRange(log, Math.max(0, log.length - 150), log.length))
                    + "\nits threads:\n" + threads());
        }
        return process.exitValue();
    }

    /** @return the runtime's thread dump (jcmd), to show where a runtime that does not end waits */
    private String threads() throws InterruptedException {
        try {
            Process dump = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
                    Long.toString(runtimePid()), "Thread.print").redirectErrorStream(true).start();
            java.util.concurrent.CompletableFuture<byte[]> text = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
                try {
                    return dump.getInputStream().readAllBytes();
                } catch (IOException e) {
                    return new byte[0];
                }
            });
            if (!dump.waitFor(30, TimeUnit.SECONDS)) {
                dump.destroyForcibly();
                return "(jcmd did not answer within 30 s)";
            }
            return new String(text.join(), java.nio.charset.StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "(no thread dump: " + e.getMessage() + ")";
        }
    }

    /** @return the pid of the JVM that runs the runtime: the launcher's child JVM when it made one */
    private long runtimePid() {
        return process.children().filter(JarProcess::isJava).findFirst().map(ProcessHandle::pid).orElse(process.pid());
    }

    /** {@code kill -9} of the runtime's JVM and its launcher ({@link JarProcess#kill9}); its trials are left alone. */
    public void kill9() throws InterruptedException {
        JarProcess.kill9(process);
    }

    public static Map<String, Object> map(Object... pairs) {
        java.util.LinkedHashMap<String, Object> map = new java.util.LinkedHashMap<>();
        for (int i = 0; i < pairs.length; i += 2) {
            map.put((String) pairs[i], pairs[i + 1]);
        }
        return map;
    }

    @Override
    public void close() throws InterruptedException {
        JarProcess.end(process);
    }
}
