package nni.ts.openpai.internal;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;

import nni.api.environment.EnvironmentSpec;
import nni.api.platform.PlatformException;
import nni.ts.cloud.CloudException;
import nni.ts.cloud.HttpCalls;
import nni.ts.cloud.JobLauncher;
import nni.ts.cloud.JobStatus;
import nni.ts.cloud.KeeperCommand;
import nni.ts.cloud.SharedStorage;

/**
 * OpenPAI's REST server, version 2 ({@code <host>/rest-server/api/v2}), as the launcher uses it:
 * submit a job protocol as YAML ({@code POST /jobs}, 202), a job's status
 * ({@code GET /jobs/<user>~<job>}) or all the user's jobs in one call ({@code GET /jobs?username=},
 * in reuse mode), stop ({@code PUT /jobs/<user>~<job>/executionType {"value":"STOP"}}), and the
 * user ({@code GET /users/<user>}) to check the token when a session opens. Bearer token on every
 * call; the token never appears in a message.
 */
final class OpenpaiApi implements JobLauncher.Api {

    private static final YAMLMapper YAML = YAMLMapper.builder().disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
            .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES).build();

    private final OpenpaiSection.Settings settings;
    private final HttpCalls http;
    private final SharedStorage storage;
    private final boolean lists;
    private final String experimentId;
    private final String javaCommand;
    private final String pythonCommand;
    private final Map<String, String> attributes;

    /**
     * @param lists whether a refresh is one list call (reuse mode) rather than a call per job
     */
    OpenpaiApi(OpenpaiSection.Settings settings, HttpCalls http, SharedStorage storage, String experimentId, boolean lists,
               String keeperChoice, String javaCommand, String pythonCommand) {
        this.settings = settings;
        this.http = http;
        this.storage = storage;
        this.experimentId = experimentId;
        this.lists = lists;
        this.javaCommand = javaCommand;
        this.pythonCommand = pythonCommand;
        this.attributes = Map.of("keeper", keeperChoice, "cluster", settings.host());
    }

    private String api(String path) {
        return settings.host() + "/rest-server/api/v2/" + path;
    }

    private HttpRequest.Builder request(String path) {
        return HttpRequest.newBuilder(URI.create(api(path))).header("Authorization", "Bearer " + settings.token());
    }

    private static String encode(String text) {
        return URLEncoder.encode(text, StandardCharsets.UTF_8);
    }

    private String jobPath(String name) {
        return "jobs/" + encode(settings.username()) + "~" + encode(name);
    }

    /**
     * Asks for the configured user with the token, so that a wrong token or user stops the session
     * before anything is submitted. A cluster that does not answer now is not a reason to refuse.
     *
     * @return null, or why the cluster could not be asked (for a warning)
     */
    String checkUser() throws PlatformException {
        try {
            http.send(request("users/" + encode(settings.username())).GET(), "checking the token of user " + settings.username());
            return null;
        } catch (CloudException e) {
            switch (e.kind()) {
                case AUTH -> throw new PlatformException(e.getMessage() + "; the token is wrong, expired or not user "
                        + settings.username() + "'s", e);
                case NOT_FOUND -> throw new PlatformException(settings.service() + " has no user " + settings.username(), e);
                default -> {
                    return e.getMessage();
                }
            }
        }
    }

    @Override
    public String submit(EnvironmentSpec spec) throws CloudException {
        String name = OpenpaiJob.name(spec);
        try {
            storage.stage(spec, OpenpaiApi.class);
        } catch (IOException e) {
            throw new CloudException(CloudException.Kind.REFUSED, 0, "cannot put the trial code and keeper on the storage at "
                    + storage.local("") + ": " + e.getMessage(), null);
        }
        KeeperCommand keeper = new KeeperCommand(spec, storage.keepersOnWorker(spec), javaCommand, pythonCommand);
        String yaml;
        try {
            yaml = YAML.writeValueAsString(OpenpaiJob.protocol(settings, spec, storage, keeper, pythonCommand));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("the job protocol of " + name + " cannot be written as YAML", e);
        }
        try {
            http.send(request("jobs").header("Content-Type", "text/yaml").POST(HttpRequest.BodyPublishers.ofString(yaml)),
                    "submitting job " + name);
            return name;
        } catch (CloudException e) {
            if (e.kind() == CloudException.Kind.CONFLICT) {
                throw new CloudException(CloudException.Kind.CONFLICT, e.status(), settings.service()
                        + " already has a job named " + name + " (HTTP 409); stop or rename it there", null);
            }
            if (e.kind() == CloudException.Kind.TRANSIENT && accepted(name)) {
                return name; // the answer was lost, the job was taken: it carries this submission's token
            }
            throw e;
        }
    }

    /** @return whether the cluster has the job, after a submission whose answer did not come */
    private boolean accepted(String name) {
        try {
            return status(name).phase() != JobStatus.Phase.MISSING;
        } catch (CloudException e) {
            return false;
        }
    }

    @Override
    public JobStatus status(String name) throws CloudException {
        JsonNode job;
        try {
            job = HttpCalls.json(http.send(request(jobPath(name)).GET(), "asking for job " + name), "job " + name);
        } catch (CloudException e) {
            if (e.kind() == CloudException.Kind.NOT_FOUND) {
                return JobStatus.missing();
            }
            throw e;
        }
        JsonNode status = job.path("jobStatus");
        return status(name, status.path("state").asText(""), status);
    }

    @Override
    public boolean lists() {
        return lists;
    }

    /** One call for all the user's jobs; reuse mode's refresh, as NNI does it. */
    @Override
    public Map<String, JobStatus> statuses(List<String> names) throws CloudException {
        JsonNode list = HttpCalls.json(http.send(request("jobs?username=" + encode(settings.username())).GET(),
                "listing the jobs of user " + settings.username()), "the job list");
        JsonNode jobs = list.isArray() ? list : list.path("data"); // withTotalCount answers {totalCount, data}
        Map<String, JobStatus> statuses = new HashMap<>();
        for (JsonNode job : jobs) {
            String name = job.path("name").asText("");
            if (names.contains(name)) {
                statuses.put(name, status(name, job.path("state").asText(""), job));
            }
        }
        return statuses;
    }

    /** OpenPAI's job states (WAITING, RUNNING, STOPPING, SUCCEEDED, STOPPED, FAILED, UNKNOWN) as the launcher's. */
    private JobStatus status(String name, String state, JsonNode details) {
        String url = details.path("appTrackingUrl").asText("");
        return switch (state) {
            case "WAITING" -> JobStatus.of(JobStatus.Phase.WAITING, "OpenPAI job " + name + " is waiting for resources"
                    + (details.hasNonNull("virtualCluster") ? " in virtual cluster " + details.get("virtualCluster").asText() : ""), url);
            case "RUNNING" -> JobStatus.of(JobStatus.Phase.RUNNING, "", url);
            case "STOPPING" -> JobStatus.of(JobStatus.Phase.STOPPING, "", url);
            case "SUCCEEDED" -> JobStatus.of(JobStatus.Phase.ENDED, "OpenPAI job " + name + " SUCCEEDED", url);
            case "STOPPED" -> JobStatus.of(JobStatus.Phase.ENDED, "OpenPAI job " + name + " was STOPPED"
                    + exit(details), url);
            case "FAILED" -> JobStatus.of(JobStatus.Phase.ENDED, "OpenPAI job " + name + " FAILED" + exit(details)
                    + storage.keeperSaid(experimentId, name), url);
            default -> JobStatus.of(JobStatus.Phase.UNKNOWN, "", url);
        };
    }

    /** @return ", exit code N: <diagnostics>" from a job's status, as far as it tells */
    private static String exit(JsonNode details) {
        StringBuilder text = new StringBuilder();
        if (details.hasNonNull("appExitCode")) {
            text.append(" with exit code ").append(details.get("appExitCode").asText());
        }
        String diagnostics = details.path("appExitDiagnostics").asText("");
        if (diagnostics.isBlank()) {
            diagnostics = details.path("appExitSpec").path("reason").asText("");
        }
        if (!diagnostics.isBlank()) {
            String oneLine = diagnostics.strip().replaceAll("\\s+", " ");
            text.append(": ").append(oneLine.length() > 300 ? oneLine.substring(0, 300) + "..." : oneLine);
        }
        return text.toString();
    }

    @Override
    public void stop(String name) throws CloudException {
        http.send(request(jobPath(name) + "/executionType").header("Content-Type", "application/json")
                .PUT(HttpCalls.jsonBody(Map.of("value", "STOP"))), "stopping job " + name);
    }

    @Override
    public String url(String name) {
        return settings.host() + "/job-detail.html?username=" + encode(settings.username()) + "&jobName=" + encode(name);
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
