package nni.itest.cloud.emulator.aml;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.regex.Pattern;
import java.util.regex.Matcher;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import com.fasterxml.jackson.databind.JsonNode;

import nni.itest.cloud.emulator.CloudEmulator;
import nni.itest.cloud.emulator.EntraTokens;
import nni.itest.cloud.emulator.TaskProcess;

/**
 * Azure Machine Learning as the {@code aml} platform meets it, for one service principal, one
 * workspace and one compute target: Microsoft Entra ID's token endpoint
 * ({@code POST /<tenant>/oauth2/v2.0/token}, client credentials, scope
 * {@code https://management.azure.com/.default}; AADSTS errors as Entra ID words them), the Resource
 * Manager's workspace API at api-version {@value #API_VERSION} (workspace, compute, environment and
 * code versions, {@code startPendingUpload}, jobs: create, get, cancel) and the blob storage behind
 * the SAS address it hands out. Every Resource Manager call needs a bearer token it issued (401
 * otherwise) and the api-version; every body is checked against the published definitions
 * ({@link SwaggerCheck}, 400 with the problems otherwise) and its references (compute, code,
 * environment) must exist. Jobs run their command as local processes in a copy of their code.
 */
public final class AmlEmulator extends CloudEmulator {

    public static final String API_VERSION = "2024-04-01";
    private static final SwaggerCheck SCHEMA = new SwaggerCheck("/aml/mfe-2024-04-01-subset.json");

    private final EntraTokens entra;
    private final String workspace;
    private final String compute;
    private final Path root;
    private final Map<String, AmlJob> jobs = new LinkedHashMap<>();
    private final Map<String, Path> datastores = new LinkedHashMap<>();
    private final Map<String, JsonNode> environments = new HashMap<>();
    private final Map<String, Path> codes = new HashMap<>();
    private final Map<String, String> uploads = new HashMap<>();
    private final List<String> refused = new ArrayList<>();
    private final AtomicInteger ids = new AtomicInteger();
    private volatile Duration waiting = Duration.ofMillis(600);
    private volatile TaskProcess.Isolation isolation;

    public AmlEmulator(String tenant, String clientId, String clientSecret, String subscription, String resourceGroup,
                       String workspaceName, String computeName, Path root) throws Exception {
        this.entra = new EntraTokens(tenant, clientId, clientSecret, "https://management.azure.com/.default");
        this.workspace = "/subscriptions/" + subscription + "/resourceGroups/" + resourceGroup
                + "/providers/Microsoft.MachineLearningServices/workspaces/" + workspaceName;
        this.compute = workspace + "/computes/" + computeName;
        this.root = root;
        listen();
    }

    /** @return the workspace's Resource Manager id */
    /**
     * Adds a datastore to the workspace, its files in {@code folder}: a job output
     * {@code azureml://datastores/<name>/paths/<path>} mounted {@code ReadWriteMount} is
     * {@code folder/<path>} for the job's process, as the compute mounts the share.
     */
    public void datastore(String name, Path folder) {
        synchronized (jobs) {
            datastores.put(name, folder);
        }
    }

    /**
     * Runs the jobs submitted from now on cut off from this machine's network, as a compute in the
     * cloud is from the user's laptop, with a recorder on the manager's port ({@link TaskProcess.Isolation}).
     */
    public void isolateJobs(TaskProcess.Isolation isolation) {
        this.isolation = isolation;
    }

    public String workspaceId() {
        return workspace;
    }

    /** @return every job submitted, in order */
    public List<AmlJob> jobs() {
        synchronized (jobs) {
            return List.copyOf(jobs.values());
        }
    }

    /** @return why each refused request was refused */
    public List<String> refused() {
        synchronized (jobs) {
            return List.copyOf(refused);
        }
    }

    /** @return the image each registered environment version names */
    public List<String> images() {
        synchronized (jobs) {
            return environments.values().stream().map(e -> e.path("image").asText()).toList();
        }
    }

    @Override
    protected Answer handle(Request request, Map<String, String> headers) throws Exception {
        String path = request.path();
        if (entra.isTokenRequest(request)) {
            return entra.issue(request.body());
        }
        if (path.startsWith("/blob/")) {
            return blob(request, headers);
        }
        if (!path.startsWith("/subscriptions/")) {
            return Answer.json(404, error("NotFound", "no such API: " + path));
        }
        String authorization = headers.getOrDefault("authorization", "");
        if (!entra.accepts(authorization)) {
            return Answer.json(401, error("AuthenticationFailed", "Authentication failed. The 'Authorization' header is "
                    + (authorization.isEmpty() ? "missing." : "provided in an invalid format or the token has expired.")));
        }
        String version = query(request.query(), "api-version");
        if (!API_VERSION.equals(version)) {
            return refuse(400, "InvalidApiVersionParameter", "The api-version '" + version + "' is invalid. The emulated "
                    + "Microsoft.MachineLearningServices API has version " + API_VERSION + ".");
        }
        if (!path.startsWith(workspace)) {
            return Answer.json(404, error("ResourceNotFound", "The Resource '" + path + "' was not found."));
        }
        String rest = path.substring(workspace.length());
        String method = request.method();
        if (rest.isEmpty() && method.equals("GET")) {
            return Answer.json(200, map("id", workspace, "name", workspace.substring(workspace.lastIndexOf('/') + 1),
                    "type", "Microsoft.MachineLearningServices/workspaces", "properties", map("provisioningState", "Succeeded")));
        }
        if (method.equals("GET") && rest.startsWith("/computes/")) {
            return path.equals(compute) ? Answer.json(200, map("id", compute, "properties", map("computeType", "AmlCompute",
                    "provisioningState", "Succeeded"))) : Answer.json(404, error("ResourceNotFound", "compute not found"));
        }
        String[] parts = rest.substring(1).split("/");
        if (parts.length == 4 && parts[0].equals("environments") && parts[2].equals("versions") && method.equals("PUT")) {
            return environment(path, request.body());
        }
        if (parts.length == 5 && parts[0].equals("codes") && parts[4].equals("startPendingUpload") && method.equals("POST")) {
            return startUpload(path.substring(0, path.length() - "/startPendingUpload".length()), request.body());
        }
        if (parts.length == 4 && parts[0].equals("codes") && parts[2].equals("versions") && method.equals("PUT")) {
            return code(path, request.body());
        }
        if (parts.length >= 2 && parts[0].equals("jobs")) {
            String name = decode(parts[1]);
            if (parts.length == 2 && method.equals("PUT")) {
                return submit(path, name, request.body());
            }
            AmlJob job;
            synchronized (jobs) {
                job = jobs.get(name);
            }
            if (job == null) {
                return Answer.json(404, error("UserError", "Job " + name + " not found."));
            }
            if (parts.length == 2 && method.equals("GET")) {
                return Answer.json(200, job.resource(path));
            }
            if (parts.length == 3 && parts[2].equals("cancel") && method.equals("POST")) {
                job.cancel();
                return new Answer(202, "application/json", "");
            }
        }
        return Answer.json(404, error("NotFound", "no such API: " + method + " " + rest));
    }

    private Answer environment(String id, String body) throws IOException {
        JsonNode resource = JSON.readTree(body);
        List<String> problems = SCHEMA.problems(resource, "EnvironmentVersionResource");
        if (resource.path("properties").path("image").asText("").isBlank()) {
            problems.add("properties.image: an environment without a build context needs an image");
        }
        if (!problems.isEmpty()) {
            return refuse(400, "UserError", "environment version: " + String.join("; ", problems));
        }
        synchronized (jobs) {
            environments.put(id, resource.get("properties"));
        }
        return Answer.json(201, map("id", id, "properties", resource.get("properties")));
    }

    private Answer startUpload(String codeVersion, String body) throws IOException {
        List<String> problems = SCHEMA.problems(JSON.readTree(body), "PendingUploadRequestDto");
        if (!problems.isEmpty()) {
            return refuse(400, "UserError", "pending upload: " + String.join("; ", problems));
        }
        String container = "/blob/amlstore" + ids.incrementAndGet() + "/LocalUpload/" + UUID.randomUUID();
        String signature = "sv=2021-08-06&sr=c&sp=rcwl&se=2099-01-01T00%3A00%3A00Z&sig=" + UUID.randomUUID().toString().replace("-", "");
        synchronized (jobs) {
            uploads.put(container, signature);
        }
        return Answer.json(200, map("blobReferenceForConsumption", map("blobUri", address() + container,
                "storageAccountArmId", "/subscriptions/x/resourceGroups/x/providers/Microsoft.Storage/storageAccounts/amlstore",
                "credential", map("credentialType", "SAS", "sasUri", address() + container + "?" + signature)),
                "pendingUploadId", UUID.randomUUID().toString(), "pendingUploadType", "TemporaryBlobReference"));
    }

    /** Azure Blob storage's Put Blob, for the containers handed out by startPendingUpload, with their SAS. */
    private Answer blob(Request request, Map<String, String> headers) throws IOException {
        String container;
        String signature;
        synchronized (jobs) {
            container = uploads.keySet().stream().filter(c -> request.path().startsWith(c + "/")).findFirst().orElse(null);
            signature = container == null ? null : uploads.get(container);
        }
        if (container == null || !signature.equals(request.query())) {
            return new Answer(403, "application/xml", "<?xml version=\"1.0\" encoding=\"utf-8\"?><Error><Code>AuthenticationFailed"
                    + "</Code><Message>Server failed to authenticate the request.</Message></Error>");
        }
        if (!request.method().equals("PUT") || !"BlockBlob".equals(headers.get("x-ms-blob-type"))) {
            return new Answer(400, "application/xml", "<Error><Code>MissingRequiredHeader</Code><Message>x-ms-blob-type</Message></Error>");
        }
        Path file = blobs(container).resolve(decode(request.path().substring(container.length() + 1))).normalize();
        if (!file.startsWith(blobs(container))) {
            return new Answer(400, "application/xml", "<Error><Code>InvalidUri</Code></Error>");
        }
        Files.createDirectories(file.getParent());
        Files.write(file, request.bytes());
        return new Answer(201, "application/xml", "");
    }

    private Path blobs(String container) {
        return root.resolve("blobs").resolve(container.substring("/blob/".length()).replace('/', '_'));
    }

    private Answer code(String id, String body) throws IOException {
        JsonNode resource = JSON.readTree(body);
        List<String> problems = SCHEMA.problems(resource, "CodeVersionResource");
        String uri = resource.path("properties").path("codeUri").asText("");
        String container = uri.startsWith(address()) ? uri.substring(address().length()) : "";
        synchronized (jobs) {
            if (!uploads.containsKey(container)) {
                problems.add("properties.codeUri: not a blob folder of this workspace's storage: " + uri);
            }
        }
        if (!problems.isEmpty()) {
            return refuse(400, "UserError", "code version: " + String.join("; ", problems));
        }
        synchronized (jobs) {
            codes.put(id, blobs(container));
        }
        return Answer.json(201, map("id", id, "properties", resource.get("properties")));
    }

    private Answer submit(String id, String name, String body) throws IOException {
        JsonNode resource = JSON.readTree(body);
        List<String> problems = SCHEMA.problems(resource, "JobBaseResource");
        JsonNode properties = resource.path("properties");
        Path code;
        synchronized (jobs) {
            if (jobs.containsKey(name)) {
                return refuse(409, "UserError", "A job with this name already exists: " + name);
            }
            if (!compute.equals(properties.path("computeId").asText())) {
                problems.add("properties.computeId: no such compute in this workspace: " + properties.path("computeId").asText());
            }
            if (!environments.containsKey(properties.path("environmentId").asText())) {
                problems.add("properties.environmentId: no such environment version: " + properties.path("environmentId").asText());
            }
            code = properties.hasNonNull("codeId") ? codes.get(properties.get("codeId").asText()) : null;
            if (properties.hasNonNull("codeId") && code == null) {
                problems.add("properties.codeId: no such code version: " + properties.get("codeId").asText());
            }
        }
        Map<String, Path> mounts = mounts(properties.path("outputs"), problems);
        if (!name.matches("[a-zA-Z0-9][a-zA-Z0-9_-]{0,254}")) {
            problems.add("id: not a valid job name: " + name);
        }
        if (!problems.isEmpty()) {
            return refuse(400, "UserError", "job: " + String.join("; ", problems));
        }
        AmlJob job = new AmlJob(name, properties, code, root.resolve("jobs").resolve(name), mounts, isolation);
        synchronized (jobs) {
            jobs.put(name, job);
        }
        job.start(waiting);
        return Answer.json(201, job.resource(id));
    }

    /**
     * @return each read-write mounted output's folder by its name, as the job's {@code ${{outputs.<name>}}};
     *         what the jobs API would refuse goes to {@code problems}
     */
    private Map<String, Path> mounts(JsonNode outputs, List<String> problems) throws IOException {
        Map<String, Path> mounts = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> output : (Iterable<Map.Entry<String, JsonNode>>) outputs::fields) {
            JsonNode value = output.getValue();
            String at = "properties.outputs." + output.getKey();
            Matcher uri = Pattern.compile("azureml://datastores/(\\w+)/paths/(.+)").matcher(value.path("uri").asText());
            if (!value.path("jobOutputType").asText().equals("uri_folder")) {
                problems.add(at + ".jobOutputType: the emulator mounts uri_folder outputs only, got " + value.path("jobOutputType"));
            } else if (!value.path("mode").asText().equals("ReadWriteMount")) {
                problems.add(at + ".mode: the emulator mounts ReadWriteMount outputs only, got " + value.path("mode"));
            } else if (!uri.matches()) {
                problems.add(at + ".uri: not a datastore path azureml://datastores/<name>/paths/<path>: " + value.path("uri"));
            } else {
                Path store;
                synchronized (jobs) {
                    store = datastores.get(uri.group(1));
                }
                Path folder = store == null ? null : store.resolve(uri.group(2)).normalize();
                if (store == null) {
                    problems.add(at + ".uri: the workspace has no datastore " + uri.group(1));
                } else if (!folder.startsWith(store)) {
                    problems.add(at + ".uri: a path outside the datastore: " + uri.group(2));
                } else {
                    Files.createDirectories(folder);
                    mounts.put(output.getKey(), folder);
                }
            }
        }
        return mounts;
    }

    private Answer refuse(int status, String code, String message) {
        synchronized (jobs) {
            refused.add(message);
        }
        return Answer.json(status, error(code, message));
    }

    private static Map<String, Object> error(String code, String message) {
        return map("error", map("code", code, "message", message));
    }

    @Override
    protected void endJobs() {
        jobs().forEach(AmlJob::cancel);
    }
}
