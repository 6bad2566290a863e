package nni.ts.aml.internal;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.JsonNode;

import nni.api.environment.EnvironmentSpec;
import nni.api.platform.PlatformException;
import nni.ts.cloud.AzureCredential;
import nni.ts.cloud.CloudException;
import nni.ts.cloud.HttpCalls;
import nni.ts.cloud.JobLauncher;
import nni.ts.cloud.JobStatus;
import nni.ts.cloud.KeeperCommand;
import nni.ts.cloud.SharedStorage;

/**
 * Azure Machine Learning's Resource Manager API (api-version {@value #API_VERSION}) as the launcher
 * uses it. Once per session: the code snapshot (trial code archive, keepers, trial SDK) is uploaded
 * as a code version ({@code POST codes/<name>/versions/<v>/startPendingUpload}, the files put as
 * block blobs at the SAS address it gives, then {@code PUT codes/<name>/versions/<v>} with the blob
 * folder's URI) and the docker image registered as an environment version
 * ({@code PUT environments/<name>/versions/1}). Each keeper environment is then a command job
 * ({@code PUT jobs/<name>}) on the compute target with that code and environment; its status is
 * {@code GET jobs/<name>}, a stop is {@code POST jobs/<name>/cancel}. Every call carries a bearer
 * token from {@link AzureCredential}.
 *
 * <p>In the job, the code snapshot is the working directory, a path known only there: the keeper's
 * command finds its files below {@code $NNI_AML_ROOT}, set to that directory first. The keeper's
 * token is in the job's environment variables.
 */
final class AmlApi implements JobLauncher.Api {

    static final String API_VERSION = "2024-04-01";
    /** Where the snapshot's files are in the keeper command until the job's shell puts its directory there. */
    private static final String ROOT = "/nni-aml-snapshot";
    private static final String ROOT_VARIABLE = "NNI_AML_ROOT";

    private final AmlSection.Settings settings;
    private final HttpCalls http;
    private final AzureCredential credential;
    private final String arm;
    private final SharedStorage snapshot;
    private final String experimentId;
    private final String javaCommand;
    private final String pythonCommand;
    private final Map<String, String> attributes;
    private final AmlChannel channel;
    private String codeId;
    private String environmentId;

    /**
     * @param arm      the Resource Manager endpoint ({@code https://management.azure.com})
     * @param snapshot the folder uploaded as the jobs' code, on this machine
     * @param channel  how the keepers report: with files, each job mounts the datastore's folder as an output
     */
    AmlApi(AmlSection.Settings settings, HttpCalls http, AzureCredential credential, String arm, Path snapshot,
           String experimentId, String keeperChoice, String javaCommand, String pythonCommand, AmlChannel channel) {
        this.settings = settings;
        this.http = http;
        this.credential = credential;
        this.arm = arm.endsWith("/") ? arm.substring(0, arm.length() - 1) : arm;
        this.snapshot = new SharedStorage(snapshot, ROOT);
        this.experimentId = experimentId;
        this.javaCommand = javaCommand;
        this.pythonCommand = pythonCommand;
        this.channel = channel;
        this.attributes = Map.of("keeper", keeperChoice, "workspace", settings.workspaceName(), "compute", settings.computeTarget());
    }

    private static String encode(String text) {
        return URLEncoder.encode(text, StandardCharsets.UTF_8).replace("+", "%20");
    }

    /** @return a request for {@code path} below the workspace, with the api-version and a fresh token */
    private HttpRequest.Builder request(String path) throws CloudException {
        return HttpRequest.newBuilder(URI.create(arm + settings.workspaceId() + path + "?api-version=" + API_VERSION))
                .header("Authorization", "Bearer " + credential.token());
    }

    /**
     * Gets a token and asks for the workspace and its compute target, so that a refused credential or
     * a wrong name stops the session before anything is submitted.
     *
     * @return null, or why Azure could not be asked now (for a warning)
     */
    String checkWorkspace() throws PlatformException {
        try {
            http.send(request("").GET(), "looking up the workspace");
            http.send(request("/computes/" + encode(settings.computeTarget())).GET(),
                    "looking up compute target " + settings.computeTarget());
            return null;
        } catch (CloudException e) {
            switch (e.kind()) {
                case AUTH -> throw new PlatformException(e.getMessage().startsWith(settings.service()) ? e.getMessage()
                        + "; " + credential.description() + " is not allowed to use the workspace"
                        : e.getMessage(), e);
                case NOT_FOUND -> throw new PlatformException(e.getMessage().contains("compute target")
                        ? settings.service() + " has no compute target " + settings.computeTarget()
                        : "Azure has no " + settings.service(), e);
                case REFUSED, CONFLICT -> throw new PlatformException(e.getMessage(), e);
                default -> {
                    return e.getMessage();
                }
            }
        }
    }

    @Override
    public String submit(EnvironmentSpec spec) throws CloudException {
        String name = name(spec);
        prepare(spec);
        Map<String, Object> properties = new LinkedHashMap<>();
        properties.put("jobType", "Command");
        properties.put("displayName", name);
        properties.put("experimentName", "nni_exp_" + experimentId);
        properties.put("description", "NNI experiment " + experimentId + ", trial keeper environment " + spec.environmentId());
        properties.put("tags", Map.of("nni.experiment", experimentId, "nni.environment", spec.environmentId()));
        properties.put("computeId", settings.workspaceId() + "/computes/" + settings.computeTarget());
        properties.put("codeId", codeId);
        properties.put("environmentId", environmentId);
        properties.put("command", command(spec));
        properties.put("environmentVariables", Map.of(EnvironmentSpec.TOKEN_VARIABLE, spec.token()));
        properties.put("resources", Map.of("instanceCount", 1));
        if (channel.transport().files()) {
            properties.put("outputs", channel.outputs());
        }
        try {
            http.send(request("/jobs/" + encode(name)).header("Content-Type", "application/json")
                    .PUT(HttpCalls.jsonBody(Map.of("properties", properties))), "submitting job " + name);
            return name;
        } catch (CloudException e) {
            if (e.kind() == CloudException.Kind.TRANSIENT && accepted(name)) {
                return name; // the answer was lost, the job was taken
            }
            throw e;
        }
    }

    /** @return NNI's name of an environment's job: {@code nni_exp_<exp>_env_<env>} */
    static String name(EnvironmentSpec spec) {
        return "nni_exp_" + spec.experimentId() + "_env_" + spec.environmentId();
    }

    /** The job's command: the snapshot's directory, then the keeper with its files below it. */
    private String command(EnvironmentSpec spec) {
        KeeperCommand keeper = new KeeperCommand(spec, snapshot.keepersOnWorker(spec), javaCommand, pythonCommand);
        String line = keeper.line(snapshot.codeOnWorker(), snapshot.container("envs/" + spec.environmentId()),
                snapshot.sdkOnWorker(), null, List.of());
        // every path is one single-quoted word starting with ROOT: let the shell put the directory in front
        return "export " + ROOT_VARIABLE + "=\"$PWD\" && " + line.replace("'" + ROOT, "\"$" + ROOT_VARIABLE + "\"'");
    }

    /** Uploads the code snapshot and registers the image, once per session. */
    private synchronized void prepare(EnvironmentSpec spec) throws CloudException {
        if (codeId != null) {
            return;
        }
        try {
            snapshot.stage(spec, AmlApi.class);
        } catch (IOException e) {
            throw new CloudException(CloudException.Kind.REFUSED, 0, "cannot put the trial code and keeper in the code snapshot at "
                    + snapshot.local("") + ": " + e.getMessage(), null);
        }
        String image = settings.dockerImage();
        String environment = "nni-image-" + digest(image);
        http.send(request("/environments/" + environment + "/versions/1").header("Content-Type", "application/json")
                .PUT(HttpCalls.jsonBody(Map.of("properties", Map.of("image", image, "osType", "Linux",
                        "description", "NNI trial keepers on " + image)))), "registering the docker image " + image);
        String code = "nni-exp-" + experimentId;
        String version = Long.toString(System.currentTimeMillis());
        String codePath = "/codes/" + code + "/versions/" + version;
        JsonNode upload = HttpCalls.json(http.send(request(codePath + "/startPendingUpload").header("Content-Type", "application/json")
                .POST(HttpCalls.jsonBody(Map.of("pendingUploadType", "TemporaryBlobReference"))),
                "asking where to upload the code snapshot"), "the upload reference");
        JsonNode blob = upload.path("blobReferenceForConsumption");
        String blobUri = blob.path("blobUri").asText("");
        String sas = blob.path("credential").path("sasUri").asText("");
        if (blobUri.isEmpty() || sas.isEmpty()) {
            throw new CloudException(CloudException.Kind.REFUSED, 0, settings.service() + " gave no blob address for the code snapshot", null);
        }
        upload(sas);
        http.send(request(codePath).header("Content-Type", "application/json")
                .PUT(HttpCalls.jsonBody(Map.of("properties", Map.of("codeUri", blobUri,
                        "description", "NNI experiment " + experimentId + ": trial code and keepers")))), "registering the code snapshot");
        environmentId = settings.workspaceId() + "/environments/" + environment + "/versions/1";
        codeId = settings.workspaceId() + codePath;
    }

    /** Puts every file of the snapshot as a block blob below the SAS folder address (never logged: it carries a signature). */
    private void upload(String sasFolder) throws CloudException {
        int query = sasFolder.indexOf('?');
        String folder = query < 0 ? sasFolder : sasFolder.substring(0, query);
        String signature = query < 0 ? "" : sasFolder.substring(query);
        Path root = snapshot.local("");
        List<Path> files;
        try (Stream<Path> walk = Files.walk(root)) {
            files = walk.filter(Files::isRegularFile).toList();
        } catch (IOException e) {
            throw new CloudException(CloudException.Kind.REFUSED, 0, "cannot read the code snapshot at " + root + ": " + e.getMessage(), null);
        }
        for (Path file : files) {
            String relative = root.relativize(file).toString().replace('\\', '/');
            String path = String.join("/", Stream.of(relative.split("/")).map(AmlApi::encode).toList());
            try {
                http.send(HttpRequest.newBuilder(URI.create(folder + "/" + path + signature)).header("x-ms-blob-type", "BlockBlob")
                        .header("x-ms-version", "2021-08-06").PUT(HttpRequest.BodyPublishers.ofFile(file)),
                        "uploading " + relative + " of the code snapshot");
            } catch (java.io.FileNotFoundException e) {
                throw new CloudException(CloudException.Kind.REFUSED, 0, "the code snapshot lost " + file, null);
            }
        }
    }

    private static String digest(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)))
                    .substring(0, 16);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this Java", e);
        }
    }

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
            job = HttpCalls.json(http.send(request("/jobs/" + encode(name)).GET(), "asking for job " + name), "job " + name);
        } catch (CloudException e) {
            if (e.kind() == CloudException.Kind.NOT_FOUND) {
                return JobStatus.missing();
            }
            throw e;
        }
        return status(name, job.path("properties").path("status").asText(""));
    }

    /**
     * AML's job statuses as NNI maps them (upper-cased: waiting and queued wait, running runs,
     * completed and failed end, anything else alive), with AML's own names for the states before
     * running and one deviation: {@code Canceled} ends the job (NNI leaves it "unknown", so alive).
     */
    static JobStatus status(String name, String status) {
        String job = "Azure ML job " + name;
        return switch (status) {
            case "NotStarted", "Starting", "Provisioning", "Preparing", "Queued" ->
                    JobStatus.of(JobStatus.Phase.WAITING, job + " is " + status, "");
            case "Running" -> JobStatus.of(JobStatus.Phase.RUNNING, "", "");
            case "CancelRequested" -> JobStatus.of(JobStatus.Phase.STOPPING, "", "");
            case "Completed" -> JobStatus.of(JobStatus.Phase.ENDED, job + " Completed", "");
            case "Failed" -> JobStatus.of(JobStatus.Phase.ENDED, job + " Failed", "");
            case "Canceled" -> JobStatus.of(JobStatus.Phase.ENDED, job + " was Canceled", "");
            default -> JobStatus.of(JobStatus.Phase.UNKNOWN, "", ""); // Finalizing, NotResponding, Paused, Unknown
        };
    }

    @Override
    public void stop(String name) throws CloudException {
        http.send(request("/jobs/" + encode(name) + "/cancel").POST(HttpRequest.BodyPublishers.noBody()), "cancelling job " + name);
    }

    @Override
    public String url(String name) {
        return "https://ml.azure.com/runs/" + encode(name) + "?wsid=" + encode(settings.workspaceId());
    }

    @Override
    public Map<String, String> attributes() {
        return attributes;
    }

    @Override
    public void close() {
        http.close();
        credential.close();
    }
}
