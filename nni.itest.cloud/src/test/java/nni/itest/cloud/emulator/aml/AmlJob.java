package nni.itest.cloud.emulator.aml;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.JsonNode;

import nni.itest.cloud.emulator.TaskProcess;

/**
 * One Azure ML command job in the emulator: {@code NotStarted}, {@code Queued}, {@code Preparing}
 * (the code version's blobs downloaded into the job's working directory), then {@code Running} its
 * command as a local process with the job's environment variables; {@code Completed} or
 * {@code Failed} by the exit code (after {@code Finalizing}); {@code CancelRequested} then
 * {@code Canceled} on cancel.
 */
public final class AmlJob {

    private final String name;
    private final JsonNode properties;
    private final Path code;
    private final Path folder;
    private final Map<String, Path> mounts;
    private final TaskProcess.Isolation isolation;
    private String status = "NotStarted";
    private Integer exitCode;
    private TaskProcess process;
    private boolean failing;

    /** @param isolation how the job's process is cut off from the manager, or null: not at all */
    AmlJob(String name, JsonNode properties, Path code, Path folder, Map<String, Path> mounts, TaskProcess.Isolation isolation) {
        this.name = name;
        this.isolation = isolation;
        this.mounts = Map.copyOf(mounts);
        this.properties = properties;
        this.code = code;
        this.folder = folder;
    }

    public String name() {
        return name;
    }

    /** @return the job's properties as submitted */
    public JsonNode properties() {
        return properties;
    }

    public synchronized String status() {
        return status;
    }

    public synchronized Integer exitCode() {
        return exitCode;
    }

    void start(Duration waiting) {
        long step = Math.max(1, waiting.toMillis() / 3);
        CompletableFuture.runAsync(() -> step("NotStarted", "Queued"), CompletableFuture.delayedExecutor(step, TimeUnit.MILLISECONDS));
        CompletableFuture.runAsync(() -> step("Queued", "Preparing"), CompletableFuture.delayedExecutor(2 * step, TimeUnit.MILLISECONDS));
        CompletableFuture.runAsync(this::run, CompletableFuture.delayedExecutor(waiting.toMillis(), TimeUnit.MILLISECONDS));
    }

    private synchronized void step(String from, String to) {
        if (status.equals(from)) {
            status = to;
        }
    }

    private synchronized void run() {
        if (!status.equals("Preparing")) {
            return;
        }
        Map<String, String> environment = new LinkedHashMap<>();
        properties.path("environmentVariables").fields().forEachRemaining(e -> environment.put(e.getKey(), e.getValue().asText()));
        environment.put("AZUREML_RUN_ID", name);
        environment.put("AZUREML_EXPERIMENT_NAME", properties.path("experimentName").asText("Default"));
        try {
            copy(code, folder);
            process = TaskProcess.start(command(), folder, environment, isolation);
            status = "Running";
            process.exit().thenAccept(this::exited);
        } catch (IOException e) {
            status = "Failed";
            exitCode = -1;
        }
    }

    /** @return the job's command with each mounted output's path for its {@code ${{outputs.<name>}}}, as AML puts it */
    private String command() {
        String command = properties.path("command").asText();
        for (Map.Entry<String, Path> mount : mounts.entrySet()) {
            command = command.replace("${{outputs." + mount.getKey() + "}}", mount.getValue().toString());
        }
        return command;
    }

    /** @return what the job's process wrote to its standard error so far, for a test's failure message */
    public String stderr() {
        try {
            java.nio.file.Path file = folder.resolve("stderr");
            return Files.exists(file) ? Files.readString(file) : "";
        } catch (IOException e) {
            return e.toString();
        }
    }

    /** @return the folders mounted read-write for the job's outputs, by the outputs' names */
    public Map<String, Path> mounts() {
        return mounts;
    }

    private static void copy(Path from, Path to) throws IOException {
        Files.createDirectories(to);
        if (from == null) {
            return;
        }
        List<Path> files;
        try (Stream<Path> walk = Files.walk(from)) {
            files = walk.filter(Files::isRegularFile).toList();
        }
        for (Path file : files) {
            Path target = to.resolve(from.relativize(file).toString());
            Files.createDirectories(target.getParent());
            Files.copy(file, target, StandardCopyOption.REPLACE_EXISTING);
        }
    }

    private synchronized void exited(int code) {
        exitCode = code;
        if (status.equals("CancelRequested")) {
            status = "Canceled";
        } else if (failing || code != 0) {
            status = "Failed";
        } else {
            status = "Finalizing";
            CompletableFuture.runAsync(() -> step("Finalizing", "Completed"), CompletableFuture.delayedExecutor(200, TimeUnit.MILLISECONDS));
        }
    }

    /** Cancels the job, as {@code POST .../cancel} does. */
    synchronized void cancel() {
        switch (status) {
            case "NotStarted", "Starting", "Provisioning", "Preparing", "Queued" -> status = "Canceled";
            case "Running" -> {
                status = "CancelRequested";
                process.kill(2000);
            }
            default -> {
                // over, or being cancelled
            }
        }
    }

    /** Fails the running job as a lost node does: its processes killed, the job {@code Failed}. */
    public synchronized void fail() {
        if (status.equals("Running")) {
            failing = true;
            process.kill(0);
        }
    }

    synchronized Map<String, Object> resource(String id) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("id", id);
        body.put("name", name);
        body.put("type", "Microsoft.MachineLearningServices/workspaces/jobs");
        Map<String, Object> out = new LinkedHashMap<>();
        properties.fields().forEachRemaining(e -> out.put(e.getKey(), e.getValue()));
        out.put("status", status);
        body.put("properties", out);
        return body;
    }
}
