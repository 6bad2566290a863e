package nni.ts.dlts.internal;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import nni.api.environment.EnvironmentSpec;
import nni.api.platform.PlatformException;
import nni.ts.cloud.CloudException;
import nni.ts.cloud.HttpCalls;
import nni.ts.cloud.JobLauncher;
import nni.ts.cloud.JobStatus;
import nni.ts.cloud.KeeperCommand;
import nni.ts.cloud.SharedStorage;

/**
 * DLTS's dashboard API as NNI used it: the cluster's GPU type
 * ({@code GET api/teams/<team>/clusters/<cluster>}, the first key of its {@code metadata}), submit
 * ({@code POST api/clusters/<cluster>/jobs}, a JSON job answered with its {@code jobId}), status
 * ({@code GET api/v2/clusters/<cluster>/jobs/<jobId>}, field {@code jobStatus}) and kill
 * ({@code PUT api/clusters/<cluster>/jobs/<jobId>/status {"status":"killing"}}). Every call carries
 * the email and password as query parameters, which is why no URL is ever logged or put in a
 * message. The manager is meant to run in a DLTS job with the cluster's shared file system: the
 * code, the keeper and the trials' folders are below the experiment's folder, the same path in the
 * jobs. In that job, without {@code nniManagerIp}, the manager's port is exposed through the job's
 * endpoints ({@code GET}/{@code POST api/clusters/<cluster>/jobs/<job>/endpoints}, see
 * {@link #exposeManager}), and the keepers call it there.
 */
final class DltsApi implements JobLauncher.Api {

    private static final ObjectMapper JSON = new ObjectMapper();
    /** The name NNI gave the endpoint of its REST server. */
    static final String ENDPOINT_NAME = "nni-rest-server";
    /** Between two looks at an endpoint DLTS is starting (NNI: 1 s). */
    private static final Duration ENDPOINT_POLL = Duration.ofSeconds(1);

    private final DltsSection.Settings settings;
    private final HttpCalls http;
    private final SharedStorage storage;
    private final String experimentId;
    private final String javaCommand;
    private final String pythonCommand;
    private final Map<String, String> attributes;
    private volatile String gpuType;
    /** Where the keepers call the manager when DLTS exposes its port ({@link #exposeManager}); null: the manager's choice. */
    private volatile String exposedManagerUrl;

    DltsApi(DltsSection.Settings settings, HttpCalls http, SharedStorage storage, String experimentId, String keeperChoice,
            String javaCommand, String pythonCommand) {
        this.settings = settings;
        this.http = http;
        this.storage = storage;
        this.experimentId = experimentId;
        this.javaCommand = javaCommand;
        this.pythonCommand = pythonCommand;
        this.attributes = Map.of("keeper", keeperChoice, "cluster", settings.cluster());
    }

    private static String encode(String text) {
        return URLEncoder.encode(text, StandardCharsets.UTF_8);
    }

    /** @return a request for {@code path} below the dashboard, with the credentials DLTS wants in the query */
    private HttpRequest.Builder request(String path) {
        return HttpRequest.newBuilder(URI.create(settings.dashboard() + path + "?email=" + encode(settings.email())
                + "&password=" + encode(settings.password())));
    }

    private String cluster() {
        return "clusters/" + encode(settings.cluster());
    }

    /**
     * Looks the cluster's GPU type up (once per session), which also checks the credentials.
     *
     * @throws PlatformException when DLTS refuses them or does not know the team or cluster
     */
    void lookUpGpuType() throws PlatformException {
        try {
            JsonNode team = HttpCalls.json(http.send(request("api/teams/" + encode(settings.team()) + "/" + cluster()).GET(),
                    "looking up the GPU type of cluster " + settings.cluster()), "the cluster");
            JsonNode metadata = JSON.readTree(team.path("metadata").asText("{}"));
            Iterator<String> types = metadata.fieldNames();
            gpuType = types.hasNext() ? types.next() : "";
        } catch (CloudException e) {
            throw new PlatformException(e.kind() == CloudException.Kind.AUTH
                    ? e.getMessage() + "; the email or password is wrong, or not allowed in team " + settings.team() : e.getMessage(), e);
        } catch (IOException e) {
            throw new PlatformException(settings.service() + ": the cluster's metadata is not JSON: " + e.getMessage(), e);
        }
    }

    /**
     * Exposes the manager's HTTP port through the endpoints of the DLTS job it runs in, as NNI did in
     * job mode: lists the job's endpoints, asks for one on {@code port} (named
     * {@value #ENDPOINT_NAME}) when there is none, and looks again every second until DLTS says it is
     * {@code running}. From then on the keepers call {@code http://<nodeName>:<port>/}, the node and
     * port DLTS gives (the port on the node may differ from the pod's).
     *
     * @param job      the job the manager runs in ({@code DLTS_JOB_ID})
     * @param port     the manager's HTTP port in that job
     * @param patience how long the endpoint may take to run
     * @return the URL the keepers are given
     * @throws PlatformException when DLTS refuses, answers something else than a list of endpoints,
     *                           or the endpoint does not run within {@code patience}
     */
    String exposeManager(String job, int port, Duration patience) throws PlatformException {
        String path = "api/" + cluster() + "/jobs/" + encode(job) + "/endpoints";
        String what = "the endpoint " + ENDPOINT_NAME + " of DLTS job " + job + " (port " + port + ")";
        long deadline = System.nanoTime() + patience.toNanos();
        boolean asked = false;
        String last = "not listed";
        while (true) {
            try {
                JsonNode endpoint = endpoint(path, job, port);
                if (endpoint == null && !asked) {
                    http.send(request(path).header("Content-Type", "application/json").POST(HttpCalls.jsonBody(
                            Map.of("endpoints", List.of(Map.of("name", ENDPOINT_NAME, "podPort", port))))), "asking for " + what);
                    asked = true;
                } else if (endpoint != null) {
                    last = endpoint.path("status").asText("without a status");
                    if (last.equals("running")) {
                        String node = endpoint.path("nodeName").asText("");
                        if (node.isBlank()) {
                            throw new PlatformException(settings.service() + ": " + what + " runs but names no nodeName: "
                                    + endpoint + "; set nniManagerIp to an address the jobs reach the manager at");
                        }
                        int exposed = endpoint.path("port").asInt(port);
                        exposedManagerUrl = "http://" + (node.contains(":") ? "[" + node + "]" : node) + ":" + exposed + "/";
                        return exposedManagerUrl;
                    }
                }
            } catch (CloudException e) {
                if (e.kind() != CloudException.Kind.TRANSIENT || System.nanoTime() - deadline > 0) {
                    throw new PlatformException(e.getMessage() + "; set nniManagerIp to an address the jobs reach the manager at"
                            + " instead of exposing its port through DLTS", e);
                }
                last = e.getMessage();
            }
            if (System.nanoTime() - deadline > 0) {
                throw new PlatformException(settings.service() + ": " + what + " is not running after " + patience.toSeconds()
                        + " s (" + last + "); set nniManagerIp to an address the jobs reach the manager at instead");
            }
            try {
                Thread.sleep(ENDPOINT_POLL.toMillis()); // DLTS tells nothing when the endpoint runs: look again
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new PlatformException("interrupted while waiting for " + what, e);
            }
        }
    }

    /** @return the job's endpoint on the pod's {@code port}, or null when DLTS lists none */
    private JsonNode endpoint(String path, String job, int port) throws CloudException, PlatformException {
        JsonNode endpoints = HttpCalls.json(http.send(request(path).GET(), "listing the endpoints of DLTS job " + job),
                "the endpoints of DLTS job " + job);
        if (!endpoints.isArray()) {
            throw new PlatformException(settings.service() + " answered the endpoints of job " + job + " with no list: "
                    + HttpCalls.serverSays(endpoints.toString()));
        }
        for (JsonNode endpoint : endpoints) {
            if (endpoint.path("podPort").asInt(-1) == port) {
                return endpoint;
            }
        }
        return null;
    }

    /** @return the spec with the manager's URL that DLTS exposes, when it does; the spec as it is otherwise */
    private EnvironmentSpec toExposedManager(EnvironmentSpec spec) {
        String url = exposedManagerUrl;
        if (url == null || spec.channel() != null) {
            return spec;
        }
        EnvironmentSpec.Builder exposed = EnvironmentSpec.builder(spec.environmentId()).mode(spec.mode()).platform(spec.platform())
                .experimentId(spec.experimentId()).managerUrl(url).token(spec.token()).codeArchive(spec.codeArchive())
                .trialCommand(spec.trialCommand());
        spec.keepers().forEach(runtime -> exposed.keeperFile(runtime, spec.keeperFile(runtime)));
        return exposed.build();
    }

    @Override
    public String submit(EnvironmentSpec asked) throws CloudException {
        EnvironmentSpec spec = toExposedManager(asked);
        String name = "nni_exp_" + experimentId + "_trial_" + spec.environmentId();
        String token;
        try {
            storage.stage(spec, DltsApi.class);
            token = storage.secret("tokens/" + spec.environmentId(), spec.token());
        } catch (IOException e) {
            throw new CloudException(CloudException.Kind.REFUSED, 0, "cannot put the trial code and keeper in "
                    + storage.local("") + ": " + e.getMessage(), null);
        }
        String command = new KeeperCommand(spec, storage.keepersOnWorker(spec), javaCommand, pythonCommand)
                .line(storage.codeOnWorker(), storage.container("trials/" + spec.environmentId()), storage.sdkOnWorker(), null,
                        List.of("--token-file", token));
        Map<String, Object> job = new LinkedHashMap<>();
        job.put("team", settings.team());
        job.put("userName", settings.email());
        job.put("vcName", settings.team());
        job.put("gpuType", gpuType);
        job.put("jobType", "training");
        job.put("jobtrainingtype", "RegularJob");
        job.put("ssh", false);
        job.put("ipython", false);
        job.put("tensorboard", false);
        job.put("workPath", "");
        job.put("enableworkpath", true);
        job.put("dataPath", "");
        job.put("enabledatapath", false);
        job.put("jobPath", "");
        job.put("enablejobpath", true);
        job.put("mountpoints", List.of());
        job.put("env", List.of(Map.of("name", "TMPDIR", "value", "$HOME/tmp")));
        job.put("hostNetwork", false);
        job.put("useGPUTopology", false);
        job.put("isPrivileged", false);
        job.put("hostIPC", false);
        job.put("preemptionAllowed", "False");
        job.put("jobName", name);
        job.put("resourcegpu", settings.gpuNumber());
        job.put("image", settings.image());
        job.put("cmd", command);
        job.put("interactivePorts", List.of());
        JsonNode answer = HttpCalls.json(http.send(request("api/" + cluster() + "/jobs").header("Content-Type", "application/json")
                .POST(HttpCalls.jsonBody(job)), "submitting job " + name), "the submission of " + name);
        String jobId = answer.path("jobId").asText("");
        if (jobId.isEmpty()) {
            throw new CloudException(CloudException.Kind.REFUSED, 200, settings.service() + " gave no jobId for job " + name
                    + HttpCalls.serverSays(answer.toString()), null);
        }
        return jobId;
    }

    @Override
    public JobStatus status(String jobId) throws CloudException {
        JsonNode job;
        try {
            job = HttpCalls.json(http.send(request("api/v2/" + cluster() + "/jobs/" + encode(jobId)).GET(), "asking for job " + jobId),
                    "job " + jobId);
        } catch (CloudException e) {
            if (e.kind() == CloudException.Kind.NOT_FOUND) {
                return JobStatus.missing();
            }
            throw e;
        }
        String state = job.path("jobStatus").asText("");
        String url = url(jobId);
        String error = job.path("errorMsg").asText("");
        return switch (state) {
            case "unapproved", "queued", "scheduling" -> JobStatus.of(JobStatus.Phase.WAITING, "DLTS job " + jobId + " is " + state, url);
            case "running" -> JobStatus.of(JobStatus.Phase.RUNNING, "", url);
            case "killing" -> JobStatus.of(JobStatus.Phase.STOPPING, "", url);
            case "finished" -> JobStatus.of(JobStatus.Phase.ENDED, "DLTS job " + jobId + " finished", url);
            case "failed" -> JobStatus.of(JobStatus.Phase.ENDED, "DLTS job " + jobId + " failed"
                    + (error.isBlank() ? "" : ": " + error.strip()) + storage.keeperSaid(experimentId, job.path("jobName").asText("")), url);
            case "killed" -> JobStatus.of(JobStatus.Phase.ENDED, "DLTS job " + jobId + " was killed", url);
            case "pausing", "paused" -> {
                // NNI cancels a job someone paused: its trial cannot go on
                stop(jobId);
                yield JobStatus.of(JobStatus.Phase.STOPPING, "", url);
            }
            default -> JobStatus.of(JobStatus.Phase.UNKNOWN, "", url);
        };
    }

    @Override
    public void stop(String jobId) throws CloudException {
        http.send(request("api/" + cluster() + "/jobs/" + encode(jobId) + "/status").header("Content-Type", "application/json")
                .PUT(HttpCalls.jsonBody(Map.of("status", "killing"))), "killing job " + jobId);
    }

    @Override
    public String url(String jobId) {
        return settings.dashboard() + "job/" + encode(settings.team()) + "/" + encode(settings.cluster()) + "/" + encode(jobId);
    }

    @Override
    public Map<String, String> attributes() {
        return attributes;
    }

    @Override
    public void close() {
        http.close();
    }
}
