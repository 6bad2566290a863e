package nni.itest.cloud.emulator.openpai;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;

import nni.itest.cloud.emulator.TaskProcess;

/**
 * One OpenPAI job in the emulator, played as FrameworkController and OpenPAI's runtime would:
 * WAITING until it is scheduled, then RUNNING with every instance of every task role started as a
 * local process (the role's commands, trimmed and joined with {@code &&}, rendered as the REST
 * server renders {@code <% $secrets.x %>} and {@code <% $parameters.x %>}, with each storage's
 * container path rewritten to its local folder), ending by the completion policy of the roles
 * ({@code minFailedInstances}, default 1; {@code minSucceededInstances}, default all instances;
 * -1 for "never" and "when all are done"): SUCCEEDED, or FAILED with the exit code of the task that
 * failed it; a STOP request kills every task (STOPPING) and ends it STOPPED (exit code -210).
 */
public final class PaiJob {

    private static final Pattern TAG = Pattern.compile("<%\\s*(.+?)\\s*%>");
    private static final long KILL_GRACE_MILLIS = 2000;

    private final String user;
    private final String name;
    private final JsonNode protocol;
    private final String virtualCluster;
    private final Map<String, Path> mounts;
    private final Path folder;
    private final long submissionTime = System.currentTimeMillis();
    private final List<Task> tasks = new ArrayList<>();
    private String state = "WAITING";
    private String executionType = "START";
    private Long launchedTime;
    private Long completedTime;
    private Integer exitCode;
    private String diagnostics;
    private String triggerRole;
    private Integer triggerIndex;
    private boolean vanished;

    private static final class Task {
        final String role;
        final int index;
        final TaskProcess process;
        Integer exit;

        Task(String role, int index, TaskProcess process) {
            this.role = role;
            this.index = index;
            this.process = process;
        }
    }

    private final TaskProcess.Isolation isolation;

    /** @param isolation how the job's tasks are cut off from the manager, or null: not at all */
    PaiJob(String user, String name, JsonNode protocol, String virtualCluster, Map<String, Path> mounts, Path folder,
           TaskProcess.Isolation isolation) {
        this.isolation = isolation;
        this.user = user;
        this.name = name;
        this.protocol = protocol;
        this.virtualCluster = virtualCluster;
        this.mounts = mounts;
        this.folder = folder;
    }

    public String user() {
        return user;
    }

    public String name() {
        return name;
    }

    /** @return the protocol as submitted */
    public JsonNode protocol() {
        return protocol;
    }

    public synchronized String state() {
        return state;
    }

    public synchronized String executionType() {
        return executionType;
    }

    public synchronized Integer exitCode() {
        return exitCode;
    }

    void start(Duration waiting) {
        CompletableFuture.runAsync(this::launch, CompletableFuture.delayedExecutor(waiting.toMillis(), TimeUnit.MILLISECONDS));
    }

    private synchronized void launch() {
        if (!state.equals("WAITING") || vanished) {
            return;
        }
        JsonNode roles = protocol.path("taskRoles");
        List<String> names = new ArrayList<>();
        roles.fieldNames().forEachRemaining(names::add);
        try {
            for (String role : names) {
                JsonNode body = roles.get(role);
                String entrypoint = mount(render(body));
                int instances = body.path("instances").asInt(1);
                for (int index = 0; index < instances; index++) {
                    Map<String, String> environment = new LinkedHashMap<>();
                    environment.put("PAI_JOB_NAME", user + "~" + name);
                    environment.put("PAI_USER_NAME", user);
                    environment.put("PAI_CURRENT_TASK_ROLE_NAME", role);
                    environment.put("PAI_CURRENT_TASK_ROLE_CURRENT_TASK_INDEX", Integer.toString(index));
                    environment.put("PAI_TASK_INDEX", Integer.toString(index));
                    environment.put("PAI_TASK_ROLE_COUNT", Integer.toString(names.size()));
                    environment.put("PAI_TASK_ROLE_LIST", String.join(",", names));
                    for (String other : names) {
                        environment.put("PAI_TASK_ROLE_TASK_COUNT_" + other, Integer.toString(roles.get(other).path("instances").asInt(1)));
                    }
                    if (body.path("resourcePerInstance").path("gpu").asInt() == 0) {
                        environment.put("NVIDIA_VISIBLE_DEVICES", "none");
                    }
                    Path taskFolder = folder.resolve(role + "-" + index);
                    Task task = new Task(role, index, TaskProcess.start(entrypoint, taskFolder, environment, isolation));
                    tasks.add(task);
                    task.process.exit().thenAccept(code -> ended(task, code));
                }
            }
            state = "RUNNING";
            launchedTime = System.currentTimeMillis();
        } catch (IOException e) {
            complete("FAILED", -1, "the runtime could not start a task: " + e.getMessage(), null, null);
            killAll();
        }
    }

    /** The role's commands as the REST server makes its entry point: trimmed, joined, rendered. */
    private String render(JsonNode role) {
        List<String> commands = new ArrayList<>();
        role.path("commands").forEach(c -> commands.add(c.asText().trim()));
        String joined = String.join(" && ", commands);
        Map<String, JsonNode> context = new LinkedHashMap<>();
        context.put("$parameters", protocol.path("parameters"));
        context.put("$secrets", protocol.path("secrets"));
        for (String kind : List.of("script", "output", "data")) {
            String prerequisite = role.path(kind).asText(null);
            for (JsonNode item : protocol.path("prerequisites")) {
                if (item.path("type").asText().equals(kind) && item.path("name").asText().equals(prerequisite)) {
                    context.put("$" + kind, item);
                }
            }
        }
        Matcher tag = TAG.matcher(joined);
        StringBuilder rendered = new StringBuilder();
        while (tag.find()) {
            String[] path = tag.group(1).replaceAll("\\[(\\d+)]", ".$1").split("\\.");
            JsonNode value = context.get(path[0]);
            for (int i = 1; value != null && i < path.length; i++) {
                value = value.isArray() ? value.get(Integer.parseInt(path[i])) : value.get(path[i]);
            }
            tag.appendReplacement(rendered, Matcher.quoteReplacement(value == null || value.isNull() ? "" : value.asText()));
        }
        tag.appendTail(rendered);
        return rendered.toString().trim();
    }

    /** The storages' container paths in the command, rewritten to their local folders (never created on this machine). */
    private String mount(String command) {
        String result = command;
        List<String> paths = new ArrayList<>(mounts.keySet());
        paths.sort(Comparator.comparingInt(String::length).reversed());
        for (String containerPath : paths) {
            result = result.replaceAll(Pattern.quote(containerPath) + "(?=[/'\"\\s;&|)]|$)",
                    Matcher.quoteReplacement(mounts.get(containerPath).toString()));
        }
        return result;
    }

    private synchronized void ended(Task task, int code) {
        task.exit = code;
        if (state.equals("STOPPING")) {
            if (tasks.stream().allMatch(t -> t.exit != null)) {
                complete("STOPPED", -210, "the job was stopped by its user", null, null);
            }
            return;
        }
        if (!state.equals("RUNNING")) {
            return;
        }
        JsonNode roles = protocol.path("taskRoles");
        for (Iterator<String> it = roles.fieldNames(); it.hasNext(); ) {
            String role = it.next();
            JsonNode completion = roles.get(role).path("completion");
            int instances = roles.get(role).path("instances").asInt(1);
            int minFailed = truthy(completion.path("minFailedInstances"), 1);
            int minSucceeded = truthy(completion.path("minSucceededInstances"), instances);
            long failed = tasks.stream().filter(t -> t.role.equals(role) && t.exit != null && t.exit != 0).count();
            long succeeded = tasks.stream().filter(t -> t.role.equals(role) && t.exit != null && t.exit == 0).count();
            if (minFailed != -1 && failed >= minFailed) {
                complete("FAILED", code != 0 ? code : 1, "task " + task.role + "[" + task.index + "] failed with exit code " + code
                        + " (minFailedInstances " + minFailed + " of role " + role + " reached)", task.role, task.index);
                killAll();
                return;
            }
            if (minSucceeded != -1 && succeeded >= minSucceeded) {
                complete("SUCCEEDED", 0, "", null, null);
                killAll();
                return;
            }
        }
        if (tasks.stream().allMatch(t -> t.exit != null)) {
            complete("SUCCEEDED", 0, "", null, null);
        }
    }

    /** As the REST server reads a completion count: absent, null or 0 mean the default. */
    private static int truthy(JsonNode value, int otherwise) {
        return value.isIntegralNumber() && value.asInt() != 0 ? value.asInt() : otherwise;
    }

    private void complete(String end, int code, String why, String role, Integer index) {
        state = end;
        exitCode = code;
        diagnostics = why;
        triggerRole = role;
        triggerIndex = index;
        completedTime = System.currentTimeMillis();
    }

    /** {@code PUT executionType {"value":"STOP"}}. */
    synchronized void stop() {
        executionType = "STOP";
        switch (state) {
            case "WAITING" -> complete("STOPPED", -210, "the job was stopped by its user", null, null);
            case "RUNNING" -> {
                state = "STOPPING";
                if (tasks.stream().allMatch(t -> t.exit != null)) {
                    complete("STOPPED", -210, "the job was stopped by its user", null, null);
                }
                killAll();
            }
            default -> {
                // STOPPING already, or over: nothing to do
            }
        }
    }

    /** The job is deleted: its tasks are killed, OpenPAI no longer knows it. */
    synchronized void vanish() {
        vanished = true;
        killAll();
    }

    private void killAll() {
        tasks.stream().filter(t -> t.process.alive()).forEach(t -> t.process.kill(KILL_GRACE_MILLIS));
    }

    private String subState() {
        return switch (state) {
            case "WAITING" -> "AttemptCreationRequested";
            case "RUNNING" -> "AttemptRunning";
            case "STOPPING" -> "AttemptDeletionRequested";
            default -> "Completed";
        };
    }

    private int gpus() {
        int total = 0;
        for (JsonNode role : protocol.path("taskRoles")) {
            total += role.path("instances").asInt(1) * role.path("resourcePerInstance").path("gpu").asInt();
        }
        return total;
    }

    /** One element of {@code GET /jobs}. */
    synchronized Map<String, Object> summary() {
        Map<String, Object> summary = new LinkedHashMap<>();
        summary.put("debugId", Integer.toHexString((user + "~" + name).hashCode()));
        summary.put("name", name);
        summary.put("username", user);
        summary.put("state", state);
        summary.put("subState", subState());
        summary.put("executionType", executionType);
        summary.put("tags", List.of());
        summary.put("retries", 0);
        summary.put("retryDetails", Map.of("user", 0, "platform", 0, "resource", 0));
        summary.put("retryDelayTime", null);
        summary.put("submissionTime", submissionTime);
        summary.put("createdTime", submissionTime);
        summary.put("launchedTime", launchedTime);
        summary.put("completedTime", completedTime);
        summary.put("appExitCode", exitCode);
        summary.put("virtualCluster", virtualCluster);
        summary.put("totalGpuNumber", gpus());
        summary.put("totalTaskNumber", tasks.size());
        summary.put("totalTaskRoleNumber", protocol.path("taskRoles").size());
        summary.put("jobPriority", null);
        return summary;
    }

    /** {@code GET /jobs/<user>~<job>}. */
    synchronized Map<String, Object> detail() {
        Map<String, Object> status = new LinkedHashMap<>();
        status.put("username", user);
        status.put("state", state);
        status.put("subState", subState());
        status.put("executionType", executionType);
        status.put("retries", 0);
        status.put("retryDetails", Map.of("user", 0, "platform", 0, "resource", 0));
        status.put("retryDelayTime", null);
        status.put("submissionTime", submissionTime);
        status.put("createdTime", submissionTime);
        status.put("launchedTime", launchedTime);
        status.put("completedTime", completedTime);
        status.put("attemptId", 0);
        status.put("attemptState", state);
        status.put("appId", launchedTime == null ? null : Integer.toHexString(name.hashCode()));
        status.put("appCreatedTime", submissionTime);
        status.put("appLaunchedTime", launchedTime);
        status.put("appCompletedTime", completedTime);
        status.put("appExitCode", exitCode);
        status.put("appExitSpec", exitCode == null ? null : Map.of("code", exitCode, "phrase", diagnostics.isEmpty() ? "Succeeded" : "Failed",
                "reason", diagnostics));
        status.put("appExitDiagnostics", diagnostics);
        status.put("appExitMessages", exitCode == null ? null : Map.of());
        status.put("appExitTriggerMessage", diagnostics);
        status.put("appExitTriggerTaskRoleName", triggerRole);
        status.put("appExitTriggerTaskIndex", triggerIndex);
        status.put("appExitType", exitCode == null ? null : exitCode == 0 ? "SUCCEEDED" : "NON_TRANSIENT");
        status.put("virtualCluster", virtualCluster);
        Map<String, Object> roles = new LinkedHashMap<>();
        protocol.path("taskRoles").fieldNames().forEachRemaining(role -> {
            List<Object> statuses = new ArrayList<>();
            for (Task task : tasks) {
                if (task.role.equals(role)) {
                    statuses.add(Map.of("taskIndex", task.index, "taskState", task.exit == null ? "RUNNING"
                            : task.exit == 0 ? "SUCCEEDED" : "FAILED", "containerExitCode", task.exit == null ? -1 : task.exit));
                }
            }
            roles.put(role, Map.of("taskRoleStatus", Map.of("name", role), "taskStatuses", statuses));
        });
        Map<String, Object> detail = new LinkedHashMap<>();
        detail.put("name", name);
        detail.put("tags", List.of());
        detail.put("jobStatus", status);
        detail.put("taskRoles", roles);
        return detail;
    }
}
