package nni.itest.cloud.emulator.dlts;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import com.fasterxml.jackson.databind.JsonNode;

import nni.itest.cloud.emulator.CloudEmulator;

/**
 * A DLTS (Microsoft DLWorkspace) dashboard's REST API for one user, team and cluster, as NNI used
 * it: {@code GET api/teams/<team>/clusters/<cluster>} (its {@code metadata}, a JSON string keyed by
 * GPU type), {@code POST api/clusters/<cluster>/jobs} (NNI's job body, checked field by field, 400
 * otherwise; answered with a {@code jobId}), {@code GET api/v2/clusters/<cluster>/jobs/<jobId>}
 * ({@code jobStatus}: queued, scheduling, running, finished, failed, killing, killed; 404 for an
 * unknown job), {@code PUT api/clusters/<cluster>/jobs/<jobId>/status} ({@code {"status":"killing"}}).
 * Every call carries {@code email} and {@code password} as query parameters, else 403. Accepted jobs
 * run their {@code cmd} as a local process (the cluster's shared file system is this machine's).
 * The endpoints of a job ({@link #runningJob} or a submitted one):
 * {@code GET api/clusters/<cluster>/jobs/<jobId>/endpoints} (a list of {@code {name, podPort, port,
 * nodeName, status, ...}}), {@code POST} the same with {@code {"endpoints":[{name, podPort}]}}; a new
 * endpoint is {@code pending} for a moment, then {@code running} on {@link #nodeName} with its port
 * on the node the same as the pod's.
 */
public final class DltsEmulator extends CloudEmulator {

    private final String email;
    private final String password;
    private final String team;
    private final String cluster;
    private final Path tasks;
    private final Map<String, DltsJob> jobs = new LinkedHashMap<>();
    private final List<JsonNode> submitted = new ArrayList<>();
    private final List<String> refused = new ArrayList<>();
    private final AtomicInteger ids = new AtomicInteger();
    /** How long a new endpoint is pending before it runs. */
    private static final Duration ENDPOINT_START = Duration.ofMillis(1500);
    private volatile Duration waiting = Duration.ofMillis(300);
    /** Per job id, its endpoints; the time each started, for pending then running. */
    private final Map<String, List<Map<String, Object>>> endpoints = new LinkedHashMap<>();
    private volatile String nodeName = "localhost";

    public DltsEmulator(String email, String password, String team, String cluster, Path tasks) throws Exception {
        this.email = email;
        this.password = password;
        this.team = team;
        this.cluster = cluster;
        this.tasks = tasks;
        listen();
    }

    /** @return the dashboard's URL, ending in / */
    public String dashboard() {
        return address() + "/";
    }

    /** A job that runs outside the emulator's jobs (the one the manager runs in), for its endpoints. */
    public void runningJob(String jobId) {
        synchronized (jobs) {
            endpoints.putIfAbsent(jobId, new ArrayList<>());
        }
    }

    /** @param node the node the endpoints say they run on */
    public void nodeName(String node) {
        this.nodeName = node;
    }

    public void waiting(Duration time) {
        this.waiting = time;
    }

    /** @return every accepted job body */
    public List<JsonNode> submitted() {
        synchronized (jobs) {
            return List.copyOf(submitted);
        }
    }

    /** @return why each refused submission was refused */
    public List<String> refused() {
        synchronized (jobs) {
            return List.copyOf(refused);
        }
    }

    public List<DltsJob> jobs() {
        synchronized (jobs) {
            return List.copyOf(jobs.values());
        }
    }

    @Override
    protected Answer handle(Request request, Map<String, String> headers) throws Exception {
        if (!email.equals(query(request.query(), "email")) || !password.equals(query(request.query(), "password"))) {
            return Answer.json(403, map("error", "Access denied: wrong email or password"));
        }
        String path = request.path();
        String method = request.method();
        if (method.equals("GET") && path.equals("/api/teams/" + team + "/clusters/" + cluster)) {
            return Answer.json(200, map("clusterName", cluster, "metadata", JSON.writeValueAsString(
                    map("P40", map("num_gpu_per_node", 4), "K80", map("num_gpu_per_node", 8)))));
        }
        if (method.equals("POST") && path.equals("/api/clusters/" + cluster + "/jobs")) {
            return submit(request.body());
        }
        String jobsV2 = "/api/v2/clusters/" + cluster + "/jobs/";
        if (method.equals("GET") && path.startsWith(jobsV2)) {
            DltsJob job = job(path.substring(jobsV2.length()));
            return job == null ? Answer.json(404, map("error", "job not found")) : Answer.json(200, job.detail());
        }
        String jobsV1 = "/api/clusters/" + cluster + "/jobs/";
        if (path.startsWith(jobsV1) && path.endsWith("/endpoints")) {
            return endpoints(method, decode(path.substring(jobsV1.length(), path.length() - "/endpoints".length())), request.body());
        }
        if (method.equals("PUT") && path.startsWith(jobsV1) && path.endsWith("/status")) {
            DltsJob job = job(path.substring(jobsV1.length(), path.length() - "/status".length()));
            if (job == null) {
                return Answer.json(404, map("error", "job not found"));
            }
            String status = JSON.readTree(request.body()).path("status").asText("");
            if (!status.equals("killing")) {
                return Answer.json(400, map("error", "unsupported status " + status));
            }
            job.kill();
            return Answer.json(200, map("result", "success"));
        }
        return Answer.json(404, map("error", "no such API: " + method + " " + path));
    }

    private Answer endpoints(String method, String jobId, String body) throws Exception {
        synchronized (jobs) {
            List<Map<String, Object>> exposed = endpoints.get(jobId);
            if (exposed == null && jobs.containsKey(jobId)) {
                exposed = new ArrayList<>();
                endpoints.put(jobId, exposed);
            }
            if (exposed == null) {
                return Answer.json(404, map("error", "job not found"));
            }
            if (method.equals("GET")) {
                List<Map<String, Object>> answer = new ArrayList<>();
                for (Map<String, Object> endpoint : exposed) {
                    Map<String, Object> shown = new LinkedHashMap<>(endpoint);
                    long started = (Long) shown.remove("started");
                    boolean running = System.nanoTime() - started >= ENDPOINT_START.toNanos();
                    shown.put("status", running ? "running" : "pending");
                    if (running) {
                        shown.put("nodeName", nodeName);
                        shown.put("port", shown.get("podPort"));
                    }
                    answer.add(shown);
                }
                return Answer.json(200, answer);
            }
            if (!method.equals("POST")) {
                return Answer.json(405, map("error", "GET or POST"));
            }
            JsonNode asked = JSON.readTree(body).path("endpoints");
            if (!asked.isArray() || asked.isEmpty()) {
                return Answer.json(400, map("error", "endpoints: a list is required"));
            }
            for (JsonNode endpoint : asked) {
                if (!endpoint.path("name").isTextual() || !endpoint.path("podPort").isIntegralNumber()) {
                    return Answer.json(400, map("error", "endpoints: {name, podPort} is required, got " + endpoint));
                }
                exposed.add(map("id", jobId + "-" + endpoint.path("name").asText(), "name", endpoint.path("name").asText(),
                        "username", email, "podName", jobId, "hostNetwork", false, "podPort", endpoint.path("podPort").asInt(),
                        "started", System.nanoTime()));
            }
            return Answer.json(200, map("result", "success"));
        }
    }

    private DltsJob job(String id) {
        synchronized (jobs) {
            return jobs.get(decode(id));
        }
    }

    /** NNI's job body, as DLTS's job form needs it. */
    private Answer submit(String body) throws Exception {
        JsonNode job = JSON.readTree(body);
        List<String> problems = new ArrayList<>();
        for (String field : List.of("team", "userName", "vcName", "gpuType", "jobType", "jobtrainingtype", "preemptionAllowed",
                "jobName", "image", "cmd", "workPath", "dataPath", "jobPath")) {
            if (!job.path(field).isTextual()) {
                problems.add(field + ": a string is required");
            }
        }
        for (String field : List.of("ssh", "ipython", "tensorboard", "enableworkpath", "enabledatapath", "enablejobpath", "hostNetwork",
                "useGPUTopology", "isPrivileged", "hostIPC")) {
            if (!job.path(field).isBoolean()) {
                problems.add(field + ": true or false is required");
            }
        }
        if (!job.path("resourcegpu").isIntegralNumber() || job.path("resourcegpu").asInt() < 0) {
            problems.add("resourcegpu: a number of GPUs is required");
        }
        if (!job.path("team").asText().equals(team) || !job.path("vcName").asText().equals(team)) {
            problems.add("team/vcName: not a team of this user: " + job.path("team").asText());
        }
        if (!job.path("userName").asText().equals(email)) {
            problems.add("userName: not the user who asks");
        }
        if (!job.path("jobType").asText().equals("training") || !job.path("jobtrainingtype").asText().equals("RegularJob")) {
            problems.add("jobType/jobtrainingtype: only training RegularJob jobs are emulated");
        }
        if (job.path("cmd").asText().isBlank() || job.path("image").asText().isBlank()) {
            problems.add("cmd and image must not be empty");
        }
        if (!job.path("mountpoints").isArray() || !job.path("env").isArray() || !job.path("interactivePorts").isArray()) {
            problems.add("mountpoints, env, interactivePorts: lists are required");
        }
        for (JsonNode variable : job.path("env")) {
            if (!variable.path("name").isTextual() || !variable.path("value").isTextual()) {
                problems.add("env: {name, value} pairs are required");
            }
        }
        if (!problems.isEmpty()) {
            synchronized (jobs) {
                refused.add(String.join("; ", problems));
            }
            return Answer.json(400, map("error", String.join("; ", problems)));
        }
        String id = "job-" + ids.incrementAndGet() + "-" + Long.toHexString(System.nanoTime());
        DltsJob created = new DltsJob(id, job, tasks.resolve(id));
        synchronized (jobs) {
            jobs.put(id, created);
            submitted.add(job);
        }
        created.start(waiting);
        return Answer.json(200, map("jobId", id));
    }

    @Override
    protected void endJobs() {
        jobs().forEach(DltsJob::kill);
    }
}
