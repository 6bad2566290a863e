package nni.ts.dlc.internal;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import com.fasterxml.jackson.core.JsonProcessingException;
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
 * PAI-DLC's API version {@value RoaSigner#VERSION} (ROA style, every request signed by
 * {@link RoaSigner}) as NNI's helper calls it through Alibaba's SDK: CreateJob
 * ({@code POST /api/v1/jobs}: {@code DisplayName}, {@code JobType}, {@code JobSpecs} with
 * {@code EcsSpec} or {@code ResourceConfig}, {@code UserCommand}, the NAS data source mounted at
 * {@code containerStorageMountPoint}, {@code WorkspaceId}, {@code ResourceId}), GetJob
 * ({@code GET /api/v1/jobs/<JobId>}, its {@code Status}), StopJob
 * ({@code POST /api/v1/jobs/<JobId>/stop}), and ListJobs ({@code GET /api/v1/jobs?PageSize=1}) to
 * check the AccessKey when a session opens. The job's handle is DLC's JobId.
 *
 * <p>The experiment's folder is {@code <localStorageMountPoint>/nni-experiments/<exp>} here and
 * {@code <containerStorageMountPoint>/nni-experiments/<exp>} in the jobs, as in NNI; the keeper's
 * token is a file there that only this user can read.
 */
final class DlcApi implements JobLauncher.Api {

    private static final ObjectMapper JSON = new ObjectMapper();
    /** Alibaba's error codes for an AccessKey that is unknown, disabled or whose signature does not match. */
    private static final List<String> AUTH_CODES = List.of("InvalidAccessKeyId", "SignatureDoesNotMatch", "Forbidden",
            "IncompleteSignature", "InvalidApi.NotPurchase", "NoPermission");

    private final DlcSection.Settings settings;
    private final HttpCalls http;
    private final RoaSigner signer;
    private final String endpoint;
    private final SharedStorage storage;
    private final String experimentId;
    private final String javaCommand;
    private final String pythonCommand;
    private final Map<String, String> attributes;

    /** @param endpoint PAI-DLC's address: {@code https://pai-dlc.<region>.aliyuncs.com} unless configured */
    DlcApi(DlcSection.Settings settings, HttpCalls http, String endpoint, SharedStorage storage, String experimentId,
           String keeperChoice, String javaCommand, String pythonCommand) {
        this.settings = settings;
        this.http = http;
        this.signer = new RoaSigner(settings.accessKeyId(), settings.accessKeySecret());
        this.endpoint = endpoint.endsWith("/") ? endpoint.substring(0, endpoint.length() - 1) : endpoint;
        this.storage = storage;
        this.experimentId = experimentId;
        this.javaCommand = javaCommand;
        this.pythonCommand = pythonCommand;
        this.attributes = Map.of("keeper", keeperChoice, "region", settings.region(), "image", settings.image());
    }

    /** @return NNI's endpoint for a region: {@code pai-dlc-share.aliyuncs.com} for {@code share} */
    static String endpoint(String region) {
        return region.equals("share") ? "https://pai-dlc-share.aliyuncs.com" : "https://pai-dlc." + region + ".aliyuncs.com";
    }

    private static String encode(String text) {
        return URLEncoder.encode(text, StandardCharsets.UTF_8);
    }

    /** Sends a signed request; Alibaba's refusals of the AccessKey (400 or 404 with their codes) become {@link CloudException.Kind#AUTH}. */
    private JsonNode call(String method, String path, Object body, String what) throws CloudException {
        String json = null;
        if (body != null) {
            try {
                json = JSON.writeValueAsString(body);
            } catch (JsonProcessingException e) {
                throw new IllegalStateException("not serialisable as JSON", e);
            }
        }
        try {
            return HttpCalls.json(http.send(signer.sign(method, URI.create(endpoint + path), json), what), what);
        } catch (CloudException e) {
            if (AUTH_CODES.stream().anyMatch(code -> e.getMessage().contains(": " + code))) {
                throw new CloudException(CloudException.Kind.AUTH, e.status(), e.getMessage() + "; check accessKeyId and accessKeySecret",
                        null);
            }
            throw e;
        }
    }

    /**
     * Lists one job, so that a refused AccessKey stops the session before anything is submitted.
     *
     * @return null, or why DLC could not be asked now (for a warning)
     */
    String checkAccessKey() throws PlatformException {
        try {
            call("GET", "/api/v1/jobs?PageSize=1" + (settings.workspaceId() == null ? "" : "&WorkspaceId=" + encode(settings.workspaceId())),
                    null, "checking the AccessKey");
            return null;
        } catch (CloudException e) {
            if (e.kind() == CloudException.Kind.TRANSIENT) {
                return e.getMessage();
            }
            throw new PlatformException(e.getMessage(), e);
        }
    }

    @Override
    public String submit(EnvironmentSpec spec) throws CloudException {
        String name = "nni_exp_" + experimentId + "_env_" + spec.environmentId();
        String work = "envs/" + spec.environmentId();
        String token;
        try {
            storage.stage(spec, DlcApi.class);
            // NNI makes the environment's folders here: folders DLC creates are not writable from the manager's machine
            java.nio.file.Files.createDirectories(storage.local(work));
            token = storage.secret("tokens/" + spec.environmentId(), spec.token());
        } catch (IOException e) {
            throw new CloudException(CloudException.Kind.REFUSED, 0, "cannot put the trial code and keeper on the NAS at "
                    + storage.local("") + ": " + e.getMessage(), null);
        }
        String command = new KeeperCommand(spec, storage.keepersOnWorker(spec), javaCommand, pythonCommand)
                .line(storage.codeOnWorker(), storage.container(work), storage.sdkOnWorker(), null, List.of("--token-file", token));
        Map<String, Object> jobSpec = new LinkedHashMap<>();
        jobSpec.put("Type", settings.type());
        jobSpec.put("Image", settings.image());
        jobSpec.put("PodCount", settings.podCount());
        if (settings.resourceConfig() == null) {
            jobSpec.put("EcsSpec", settings.ecsSpec());
        } else {
            JsonNode resources = settings.resourceConfig();
            Map<String, Object> config = new LinkedHashMap<>();
            config.put("CPU", resources.path("cpu").asText(""));
            config.put("Memory", resources.path("memory").asText("") + (resources.path("memory").asText("").isEmpty() ? "" : "Gi"));
            config.put("GPU", resources.path("gpu").asText(""));
            config.put("GPUType", resources.path("gputype").asText(""));
            config.put("SharedMemory", resources.path("shared_memory").asText(""));
            jobSpec.put("ResourceConfig", config);
        }
        List<Map<String, Object>> sources = new ArrayList<>();
        sources.add(Map.of("DataSourceId", settings.nasDataSourceId(), "MountPath", settings.containerStorageMountPoint()));
        if (settings.ossDataSourceId() != null) {
            sources.add(Map.of("DataSourceId", settings.ossDataSourceId()));
        }
        Map<String, Object> job = new LinkedHashMap<>();
        job.put("DisplayName", name);
        job.put("JobType", settings.jobType());
        job.put("JobSpecs", List.of(jobSpec));
        job.put("UserCommand", command);
        job.put("DataSources", sources);
        if (settings.workspaceId() != null) {
            job.put("WorkspaceId", settings.workspaceId());
        }
        if (settings.resourceConfig() != null) {
            job.put("ResourceId", settings.resourceConfig().path("resource_id").asText());
        }
        JsonNode answer = call("POST", "/api/v1/jobs", job, "creating job " + name);
        String jobId = answer.path("JobId").asText("");
        if (jobId.isEmpty()) {
            throw new CloudException(CloudException.Kind.REFUSED, 200, settings.service() + " gave no JobId for job " + name
                    + HttpCalls.serverSays(answer.toString()), null);
        }
        return jobId;
    }

    @Override
    public JobStatus status(String jobId) throws CloudException {
        JsonNode job;
        try {
            job = call("GET", "/api/v1/jobs/" + encode(jobId), null, "asking for job " + jobId);
        } catch (CloudException e) {
            if (e.kind() == CloudException.Kind.NOT_FOUND) {
                return JobStatus.missing();
            }
            throw e;
        }
        String reason = job.path("ReasonMessage").asText("");
        String said = reason.isBlank() ? "" : ": " + reason.strip();
        return status(jobId, job.path("Status").asText(""), said + storage.keeperSaid(experimentId, job.path("DisplayName").asText("")));
    }

    /**
     * DLC's statuses as NNI maps them (upper-cased: creating, created, waiting, queued wait; running
     * runs; completed, succeeded, failed, stopped end; stopping is stopping), with DLC's newer states
     * placed where they belong: Queuing, Bidding, EnvPreparing and SanityChecking wait, Restarting is
     * alive, SucceededReserving and FailedReserving end (the job is over, its resources only kept).
     * A state outside that list (DLC's {@code SubmitFailed}, or one it adds later) ends the trial with
     * the state named: counting it as alive would keep a trial that may never run waiting for ever.
     * An empty status (an answer without one) says nothing and leaves the job as it was.
     */
    static JobStatus status(String jobId, String status, String reason) {
        String job = "PAI-DLC job " + jobId;
        return switch (status.toUpperCase(Locale.ROOT)) {
            case "CREATING", "CREATED", "WAITING", "QUEUED", "QUEUING", "BIDDING", "ENVPREPARING", "SANITYCHECKING" ->
                    JobStatus.of(JobStatus.Phase.WAITING, job + " is " + status, "");
            case "RUNNING" -> JobStatus.of(JobStatus.Phase.RUNNING, "", "");
            case "STOPPING" -> JobStatus.of(JobStatus.Phase.STOPPING, "", "");
            case "RESTARTING", "" -> JobStatus.of(JobStatus.Phase.UNKNOWN, "", "");
            case "COMPLETED", "SUCCEEDED", "SUCCEEDEDRESERVING" -> JobStatus.of(JobStatus.Phase.ENDED, job + " " + status, "");
            case "FAILED", "FAILEDRESERVING" -> JobStatus.of(JobStatus.Phase.ENDED, job + " " + status + reason, "");
            case "STOPPED" -> JobStatus.of(JobStatus.Phase.ENDED, job + " was Stopped", "");
            default -> JobStatus.of(JobStatus.Phase.ENDED, job + " is in state " + status
                    + ", which is not one of DLC's documented states; the trial ends" + reason, "");
        };
    }

    @Override
    public void stop(String jobId) throws CloudException {
        call("POST", "/api/v1/jobs/" + encode(jobId) + "/stop", null, "stopping job " + jobId);
    }

    @Override
    public String url(String jobId) {
        return "https://pai-dlc.console.aliyun.com/#/jobs/detail?jobId=" + encode(jobId) + "&regionId=" + encode(settings.region());
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
