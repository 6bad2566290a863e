package nni.itest.cloud.emulator.openpai;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;

import nni.itest.cloud.emulator.CloudEmulator;
import nni.itest.cloud.emulator.TaskProcess;

/**
 * OpenPAI's REST server (version 2, under {@code /rest-server/api/v2}) for one user, as NNI and
 * nni-osgi use it: {@code GET users/<user>}, {@code POST jobs} (a job protocol as {@code text/yaml}:
 * checked by {@link JobProtocolCheck}, 400 {@code InvalidProtocolError} with the problems, 404
 * {@code NoStorageError}, 400 {@code NoVirtualClusterError}, 409 {@code ConflictJobError}, 202),
 * {@code GET jobs?username=} (job summaries), {@code GET jobs/<user>~<job>} (404 {@code NoJobError}),
 * {@code PUT jobs/<user>~<job>/executionType} ({@code {"value":"STOP"|"START"}}, 202). Every call
 * needs {@code Authorization: Bearer <the user's token>}, else 401 {@code UnauthorizedUserError}.
 *
 * <p>Accepted jobs really run: {@link PaiJob} plays the state machine WAITING → RUNNING →
 * SUCCEEDED/FAILED/STOPPED with each task role's instances as local processes, storages mounted
 * by rewriting their container paths in the command to local folders.
 */
public final class OpenpaiEmulator extends CloudEmulator {

    private static final String PREFIX = "/rest-server/api/v2/";
    private static final YAMLMapper YAML = new YAMLMapper();

    private final String user;
    private volatile String token;
    private final Map<String, Path> storages;
    private final Set<String> virtualClusters;
    private final Path tasks;
    private final JobProtocolCheck check = new JobProtocolCheck();
    private final Map<String, PaiJob> jobs = new LinkedHashMap<>();
    private final List<String> submitted = new ArrayList<>();
    private final List<String> refused = new ArrayList<>();
    private volatile Duration waiting = Duration.ofMillis(300);
    private volatile TaskProcess.Isolation isolation;

    /**
     * @param storages        the storages the user may mount, by name: the local folder each stands for
     * @param virtualClusters the virtual clusters ({@code default} is one)
     * @param tasks           where the tasks' working folders go
     */
    public OpenpaiEmulator(String user, String token, Map<String, Path> storages, Set<String> virtualClusters, Path tasks)
            throws Exception {
        this.user = user;
        this.token = token;
        this.storages = Map.copyOf(storages);
        this.virtualClusters = Set.copyOf(virtualClusters);
        this.tasks = tasks;
        listen();
    }

    /** @return the address to give as {@code host} */
    public String host() {
        return address();
    }

    /** Changes the user's token: the one given before is refused from now on. */
    public void token(String newToken) {
        this.token = newToken;
    }

    /** How long a new job waits before it runs. */
    /**
     * Runs the jobs submitted from now on cut off from this machine's network, as a cluster is from
     * the user's laptop, with a recorder on the manager's port ({@link TaskProcess.Isolation}).
     */
    public void isolateJobs(TaskProcess.Isolation isolation) {
        this.isolation = isolation;
    }

    public void waiting(Duration time) {
        this.waiting = time;
    }

    /** @return every job protocol accepted so far, as YAML */
    public List<String> submitted() {
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

    /** @return the job, if OpenPAI knows it */
    public PaiJob job(String name) {
        synchronized (jobs) {
            return jobs.get(name);
        }
    }

    /** @return every job, in submission order */
    public List<PaiJob> jobs() {
        synchronized (jobs) {
            return List.copyOf(jobs.values());
        }
    }

    /**
     * The job disappears: OpenPAI forgets it and its tasks are killed, as if its framework was deleted.
     *
     * @return false when no job has that name (yet): nothing vanished
     */
    public boolean vanish(String name) {
        PaiJob job;
        synchronized (jobs) {
            job = jobs.remove(name);
        }
        if (job != null) {
            job.vanish();
        }
        return job != null;
    }

    @Override
    protected Answer handle(Request request, Map<String, String> headers) throws Exception {
        if (!request.path().startsWith(PREFIX)) {
            return Answer.json(404, map("code", "NoApiError", "message", "The API " + request.path() + " is not found."));
        }
        if (!("Bearer " + token).equals(headers.get("authorization"))) {
            return Answer.json(401, map("code", "UnauthorizedUserError", "message", "Guest is not allowed to do this operation."));
        }
        String path = request.path().substring(PREFIX.length());
        String method = request.method();
        if (path.startsWith("users/") && method.equals("GET")) {
            String name = decode(path.substring("users/".length()));
            return name.equals(user) ? Answer.json(200, map("username", user, "admin", false,
                    "virtualCluster", List.copyOf(virtualClusters), "storageConfig", List.copyOf(storages.keySet()),
                    "email", user + "@example.com", "extension", Map.of()))
                    : Answer.json(404, map("code", "NoUserError", "message", "User " + name + " is not found."));
        }
        if (path.equals("jobs") && method.equals("POST")) {
            return submit(headers.getOrDefault("content-type", ""), request.body());
        }
        if (path.equals("jobs") && method.equals("GET")) {
            String username = query(request.query(), "username");
            List<Object> list = new ArrayList<>();
            for (PaiJob job : jobs()) {
                if (username == null || username.equals(job.user())) {
                    list.add(job.summary());
                }
            }
            return Answer.json(200, list);
        }
        if (path.startsWith("jobs/")) {
            String rest = path.substring("jobs/".length());
            boolean execution = rest.endsWith("/executionType");
            String framework = decode(execution ? rest.substring(0, rest.length() - "/executionType".length()) : rest);
            PaiJob job = framework.startsWith(user + "~") ? job(framework.substring(user.length() + 1)) : null;
            if (job == null) {
                return Answer.json(404, map("code", "NoJobError", "message", "Job " + framework + " is not found."));
            }
            if (!execution && method.equals("GET")) {
                return Answer.json(200, job.detail());
            }
            if (execution && method.equals("PUT")) {
                JsonNode body = JSON.readTree(request.body().isEmpty() ? "{}" : request.body());
                String value = body.path("value").asText("");
                if (!value.equals("STOP") && !value.equals("START")) {
                    return Answer.json(400, map("code", "InvalidParametersError",
                            "message", "\"value\" must be one of [START, STOP]"));
                }
                if (value.equals("STOP")) {
                    job.stop();
                }
                return Answer.json(202, map("status", 202, "message", "Execute job " + framework + " successfully."));
            }
        }
        return Answer.json(404, map("code", "NoApiError", "message", "The API " + request.path() + " is not found."));
    }

    private Answer submit(String contentType, String body) throws Exception {
        if (!contentType.startsWith("text/")) { // bodyParser.text({type: 'text/*'}): anything else arrives empty
            body = "";
        }
        JsonNode job;
        try {
            job = YAML.readTree(body);
        } catch (Exception e) {
            return invalid("the job protocol is not YAML: " + e.getMessage());
        }
        if (job == null || job.isMissingNode()) {
            return invalid("no job protocol in the body");
        }
        List<String> problems = check.problems(job);
        if (!problems.isEmpty()) {
            return invalid(String.join("; ", problems));
        }
        String virtualCluster = job.path("defaults").path("virtualCluster").asText("default");
        if (!virtualClusters.contains(virtualCluster)) {
            return Answer.json(400, map("code", "NoVirtualClusterError", "message", "Virtual cluster " + virtualCluster
                    + " is not found."));
        }
        Map<String, Path> mounts = new LinkedHashMap<>();
        for (JsonNode storage : job.path("extras").path("storages")) {
            String name = storage.path("name").asText("");
            if (name.isEmpty()) {
                continue;
            }
            if (!storages.containsKey(name)) {
                return Answer.json(404, map("code", "NoStorageError", "message", "Storage " + name + " is not found."));
            }
            mounts.put(storage.path("mountPath").asText("/mnt/" + name), storages.get(name));
        }
        String name = job.path("name").asText();
        PaiJob created;
        synchronized (jobs) {
            if (jobs.containsKey(name)) {
                return Answer.json(409, map("code", "ConflictJobError", "message", "Job " + user + "~" + name + " already exists."));
            }
            created = new PaiJob(user, name, job, virtualCluster, mounts, tasks.resolve(name), isolation);
            jobs.put(name, created);
            submitted.add(body);
        }
        created.start(waiting);
        return Answer.json(202, map("status", 202, "message", "Update job " + name + " for user " + user + " successfully."));
    }

    private Answer invalid(String why) {
        synchronized (jobs) {
            refused.add(why);
        }
        return Answer.json(400, map("code", "InvalidProtocolError", "message", why));
    }

    @Override
    protected void endJobs() {
        jobs().forEach(PaiJob::vanish);
    }
}
