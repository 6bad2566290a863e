package nni.itest.cloud.emulator.dlc;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;

import nni.itest.cloud.emulator.TaskProcess;

/**
 * One PAI-DLC job in the emulator: {@code Creating}, {@code Queuing}, {@code EnvPreparing}, then
 * {@code Running} its user command as a local process (the NAS mount path rewritten to the data
 * source's local folder); {@code Succeeded} or {@code Failed} by the exit code; {@code Stopping}
 * then {@code Stopped} on StopJob.
 */
public final class DlcJob {

    private final String id;
    private final JsonNode request;
    private final String command;
    private final Path folder;
    private final Instant created = Instant.now();
    private String status = "Creating";
    private String reason = "";
    private Integer exitCode;
    private TaskProcess process;
    private boolean failing;

    DlcJob(String id, JsonNode request, String command, Path folder) {
        this.id = id;
        this.request = request;
        this.command = command;
        this.folder = folder;
    }

    public String id() {
        return id;
    }

    /** @return the CreateJob body as sent */
    public JsonNode request() {
        return request;
    }

    public synchronized String status() {
        return status;
    }

    void start(Duration waiting) {
        long step = Math.max(1, waiting.toMillis() / 3);
        CompletableFuture.runAsync(() -> step("Creating", "Queuing"), CompletableFuture.delayedExecutor(step, TimeUnit.MILLISECONDS));
        CompletableFuture.runAsync(() -> step("Queuing", "EnvPreparing"), CompletableFuture.delayedExecutor(2 * step, TimeUnit.MILLISECONDS));
        CompletableFuture.runAsync(this::run, CompletableFuture.delayedExecutor(waiting.toMillis(), TimeUnit.MILLISECONDS));
    }

    private synchronized void step(String from, String to) {
        if (status.equals(from)) {
            status = to;
        }
    }

    private synchronized void run() {
        if (!status.equals("EnvPreparing")) {
            return;
        }
        try {
            process = TaskProcess.start(command, folder, Map.of("JOB_NAME", request.path("DisplayName").asText(), "DLC_JOB_ID", id));
            status = "Running";
            process.exit().thenAccept(this::exited);
        } catch (IOException e) {
            status = "Failed";
            reason = e.getMessage();
        }
    }

    private synchronized void exited(int code) {
        exitCode = code;
        if (!status.equals("Running") && !status.equals("Stopping")) {
            return; // put in another state by the test
        }
        if (status.equals("Stopping")) {
            status = "Stopped";
        } else if (failing || code != 0) {
            status = "Failed";
            reason = failing ? "the node of worker-0 was lost" : "worker-0 exited with code " + code;
        } else {
            status = "Succeeded";
        }
    }

    synchronized void stop() {
        switch (status) {
            case "Creating", "Queuing", "EnvPreparing" -> status = "Stopped";
            case "Running" -> {
                status = "Stopping";
                process.kill(2000);
            }
            default -> {
                // over, or stopping
            }
        }
    }

    /** Fails the running job as a lost node does. */
    public synchronized void fail() {
        if (status.equals("Running")) {
            failing = true;
            process.kill(0);
        }
    }

    /**
     * Puts the job in {@code state} as DLC would report it (a state the platform may not know, such
     * as {@code SubmitFailed}); its command, if running, is killed.
     */
    public synchronized void enter(String state, String why) {
        if (process != null && status.equals("Running")) {
            process.kill(0);
        }
        status = state;
        reason = why;
    }

    /** The job is deleted: its command, if running, is killed; nobody asks for its state again. */
    synchronized void vanish() {
        if (process != null && status.equals("Running")) {
            process.kill(0);
        }
        status = "Deleted";
    }

    synchronized Map<String, Object> detail(String requestId) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("JobId", id);
        body.put("DisplayName", request.path("DisplayName").asText());
        body.put("JobType", request.path("JobType").asText());
        body.put("Status", status);
        body.put("ReasonCode", reason.isEmpty() ? "" : "JobFailed");
        body.put("ReasonMessage", reason);
        body.put("GmtCreateTime", created.toString());
        body.put("WorkspaceId", request.path("WorkspaceId").asText(""));
        body.put("RequestId", requestId);
        return body;
    }
}
