package nni.itest.cloud.emulator.dlts;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;

import nni.itest.cloud.emulator.TaskProcess;

/**
 * One DLTS job in the emulator: queued, then scheduling, then running its {@code cmd} as a local
 * process with the body's {@code env}; finished or failed by the exit code; killing then killed on
 * request.
 */
public final class DltsJob {

    private final String id;
    private final JsonNode body;
    private final Path folder;
    private String status = "queued";
    private Instant startedAt;
    private Instant finishedAt;
    private Integer exitCode;
    private TaskProcess process;

    DltsJob(String id, JsonNode body, Path folder) {
        this.id = id;
        this.body = body;
        this.folder = folder;
    }

    public String id() {
        return id;
    }

    public JsonNode body() {
        return body;
    }

    public synchronized String status() {
        return status;
    }

    void start(Duration waiting) {
        CompletableFuture.runAsync(() -> step("queued", "scheduling"),
                CompletableFuture.delayedExecutor(waiting.toMillis() / 2, TimeUnit.MILLISECONDS));
        CompletableFuture.runAsync(this::run, CompletableFuture.delayedExecutor(waiting.toMillis(), TimeUnit.MILLISECONDS));
    }

    private synchronized void step(String from, String to) {
        if (status.equals(from)) {
            status = to;
        }
    }

    private synchronized void run() {
        if (!status.equals("scheduling")) {
            return;
        }
        Map<String, String> environment = new LinkedHashMap<>();
        body.path("env").forEach(variable -> environment.put(variable.path("name").asText(), variable.path("value").asText()));
        environment.put("DLTS_JOB_ID", id);
        try {
            process = TaskProcess.start(body.path("cmd").asText(), folder, environment);
            status = "running";
            startedAt = Instant.now();
            process.exit().thenAccept(this::exited);
        } catch (IOException e) {
            status = "failed";
            exitCode = -1;
            finishedAt = Instant.now();
        }
    }

    private synchronized void exited(int code) {
        exitCode = code;
        finishedAt = Instant.now();
        status = status.equals("killing") ? "killed" : code == 0 ? "finished" : "failed";
    }

    synchronized void kill() {
        switch (status) {
            case "queued", "scheduling" -> {
                status = "killed";
                finishedAt = Instant.now();
            }
            case "running" -> {
                status = "killing";
                process.kill(2000);
            }
            default -> {
                // over already
            }
        }
    }

    synchronized Map<String, Object> detail() {
        Map<String, Object> detail = new LinkedHashMap<>();
        detail.put("jobId", id);
        detail.put("jobName", body.path("jobName").asText());
        detail.put("userName", body.path("userName").asText());
        detail.put("vcName", body.path("vcName").asText());
        detail.put("jobStatus", status);
        Map<String, Object> statusDetail = new LinkedHashMap<>();
        statusDetail.put("startedAt", startedAt == null ? null : startedAt.toString());
        statusDetail.put("finishedAt", finishedAt == null ? null : finishedAt.toString());
        detail.put("jobStatusDetail", List.of(statusDetail));
        detail.put("errorMsg", status.equals("failed") ? "container exited with code " + exitCode : null);
        return detail;
    }
}
