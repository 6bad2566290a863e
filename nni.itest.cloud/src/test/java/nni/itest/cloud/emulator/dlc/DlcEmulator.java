package nni.itest.cloud.emulator.dlc;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

import com.fasterxml.jackson.databind.JsonNode;

import nni.itest.cloud.emulator.CloudEmulator;

/**
 * Alibaba PAI-DLC's API version {@value #VERSION} as NNI calls it through Alibaba's SDK, for one
 * AccessKey and workspace: CreateJob ({@code POST /api/v1/jobs}), GetJob
 * ({@code GET /api/v1/jobs/<JobId>}), StopJob ({@code POST /api/v1/jobs/<JobId>/stop}) and ListJobs
 * ({@code GET /api/v1/jobs}). Every request must carry a valid ROA signature (AccessKey, HMAC-SHA1,
 * signature version 1.0: verified here with the test's secret, with the {@code Content-MD5} of the
 * body, a fresh {@code Date} and an unused nonce), else Alibaba's {@code InvalidAccessKeyId.NotFound}
 * (404) or {@code SignatureDoesNotMatch} (400). CreateJob's body is checked against the SDK's
 * {@code CreateJobRequest} model (field names and types; a NAS data source of this account), and the
 * job runs its {@code UserCommand} as a local process with the data source's mount path rewritten to
 * the folder that plays the NAS.
 */
public final class DlcEmulator extends CloudEmulator {

    public static final String VERSION = "2020-12-03";
    private static final Set<String> REQUEST_FIELDS = Set.of("WorkspaceId", "DisplayName", "JobType", "JobSpecs", "ResourceId",
            "CodeSource", "DataSources", "UserCommand", "Envs", "JobMaxRunningTimeMinutes", "ThirdpartyLibs", "ThirdpartyLibDir",
            "Priority", "DebuggerConfigContent", "ElasticSpec", "Settings", "Options", "SuccessPolicy", "UserVpc", "CredentialConfig",
            "Accessibility");
    private static final Set<String> SPEC_FIELDS = Set.of("Type", "Image", "PodCount", "EcsSpec", "ResourceConfig", "UseSpotInstance",
            "ImageConfig", "SpotSpec", "ExtraPodSpec", "LocalMountSpecs", "AssignNodeSpec", "ServiceSpec");
    private static final Set<String> RESOURCE_FIELDS = Set.of("CPU", "Memory", "GPU", "GPUType", "SharedMemory");
    private static final Set<String> SOURCE_FIELDS = Set.of("DataSourceId", "MountPath", "Uri", "Options");
    private static final Set<String> JOB_TYPES = Set.of("TFJob", "PyTorchJob", "XGBoostJob", "OneFlowJob", "ElasticBatchJob", "MPIJob",
            "SlurmJob", "RayJob");

    private final String accessKeyId;
    private final String accessKeySecret;
    private final String workspaceId;
    private final Map<String, Path> nas;
    private final Path tasks;
    private final Map<String, DlcJob> jobs = new LinkedHashMap<>();
    private final List<String> refused = new ArrayList<>();
    private final Set<String> nonces = new HashSet<>();
    private final AtomicInteger ids = new AtomicInteger();
    private volatile Duration waiting = Duration.ofMillis(600);

    /** @param nas the account's NAS data sources: id to the local folder playing it */
    /** HTTP's IMF-fixdate (two-digit day, GMT), strictly: what Alibaba's gateway compares the signed date against. */
    private static final DateTimeFormatter HTTP_DATE = DateTimeFormatter.ofPattern("EEE, dd MMM uuuu HH:mm:ss 'GMT'", java.util.Locale.US)
            .withZone(java.time.ZoneOffset.UTC).withResolverStyle(java.time.format.ResolverStyle.STRICT);

    public DlcEmulator(String accessKeyId, String accessKeySecret, String workspaceId, Map<String, Path> nas, Path tasks) throws Exception {
        this.accessKeyId = accessKeyId;
        this.accessKeySecret = accessKeySecret;
        this.workspaceId = workspaceId;
        this.nas = nas;
        this.tasks = tasks;
        listen();
    }

    public List<DlcJob> jobs() {
        synchronized (jobs) {
            return List.copyOf(jobs.values());
        }
    }

    /**
     * Deletes a job behind the platform's back, as an administrator or DLC's clean-up may: GetJob
     * answers 404 {@code JobNotFound} from now on, and its command, if running, is killed.
     *
     * @return false when no job has that id: nothing vanished
     */
    public boolean vanish(String id) {
        DlcJob job;
        synchronized (jobs) {
            job = jobs.remove(id);
        }
        if (job != null) {
            job.vanish();
        }
        return job != null;
    }

    /** @return why each refused request was refused (signature refusals included) */
    public List<String> refused() {
        synchronized (jobs) {
            return List.copyOf(refused);
        }
    }

    @Override
    protected Answer handle(Request request, Map<String, String> headers) throws Exception {
        Answer refusal = verify(request, headers);
        if (refusal != null) {
            return refusal;
        }
        String path = request.path();
        String method = request.method();
        if (path.equals("/api/v1/jobs") && method.equals("POST")) {
            return create(request.body());
        }
        if (path.equals("/api/v1/jobs") && method.equals("GET")) {
            return Answer.json(200, map("Jobs", jobs().stream().map(j -> j.detail("")).toList(), "TotalCount", jobs().size(),
                    "RequestId", requestId()));
        }
        if (path.startsWith("/api/v1/jobs/")) {
            String rest = path.substring("/api/v1/jobs/".length());
            boolean stop = rest.endsWith("/stop");
            String id = decode(stop ? rest.substring(0, rest.length() - "/stop".length()) : rest);
            DlcJob job;
            synchronized (jobs) {
                job = jobs.get(id);
            }
            if (job == null) {
                return Answer.json(404, error("JobNotFound", "The job " + id + " does not exist."));
            }
            if (stop && method.equals("POST")) {
                job.stop();
                return Answer.json(200, map("JobId", id, "RequestId", requestId()));
            }
            if (!stop && method.equals("GET")) {
                return Answer.json(200, job.detail(requestId()));
            }
        }
        return Answer.json(404, error("InvalidAction.NotFound", "Specified api is not found, please check your url and method."));
    }

    /** The ROA signature check, computed here from what was received. */
    private Answer verify(Request request, Map<String, String> headers) throws Exception {
        String authorization = headers.getOrDefault("authorization", "");
        if (!authorization.startsWith("acs ") || !authorization.contains(":")) {
            return refuse(400, "MissingAuthorization", "Authorization is mandatory for this action.");
        }
        String id = authorization.substring(4, authorization.lastIndexOf(':'));
        if (!id.equals(accessKeyId)) {
            return refuse(404, "InvalidAccessKeyId.NotFound", "Specified access key is not found.");
        }
        if (!VERSION.equals(headers.get("x-acs-version"))) {
            return refuse(400, "InvalidVersion", "Specified parameter Version is not valid: " + headers.get("x-acs-version"));
        }
        if (!"HMAC-SHA1".equals(headers.get("x-acs-signature-method")) || !"1.0".equals(headers.get("x-acs-signature-version"))) {
            return refuse(400, "InvalidSignatureMethod", "Specified signature method or version is not supported.");
        }
        String date = headers.getOrDefault("date", "");
        try {
            Instant when = ZonedDateTime.parse(date, HTTP_DATE).toInstant();
            if (Duration.between(when, Instant.now()).abs().compareTo(Duration.ofMinutes(15)) > 0) {
                return refuse(400, "RequestTimeTooSkewed", "Specified time stamp or date value is expired.");
            }
        } catch (RuntimeException e) {
            return refuse(400, "InvalidTimeStamp.Format", "Specified time stamp or date value is not well formatted.");
        }
        String nonce = headers.getOrDefault("x-acs-signature-nonce", "");
        synchronized (jobs) {
            if (nonce.isEmpty() || !nonces.add(nonce)) {
                return refuse(400, "SignatureNonceUsed", "Specified signature nonce was used already.");
            }
        }
        String md5 = headers.getOrDefault("content-md5", "");
        if (request.bytes().length > 0 && !md5.equals(Base64.getEncoder().encodeToString(MessageDigest.getInstance("MD5").digest(request.bytes())))) {
            return refuse(400, "InvalidContentMD5", "The Content-MD5 you specified did not match what we received.");
        }
        Map<String, String> acs = new TreeMap<>();
        headers.forEach((name, value) -> {
            if (name.startsWith("x-acs-")) {
                acs.put(name, value);
            }
        });
        String resource = request.path();
        if (request.query() != null && !request.query().isEmpty()) {
            Map<String, String> sorted = new TreeMap<>();
            for (String pair : request.query().split("&")) {
                int equals = pair.indexOf('=');
                sorted.put(decode(equals < 0 ? pair : pair.substring(0, equals)), equals < 0 ? "" : decode(pair.substring(equals + 1)));
            }
            resource += "?" + sorted.entrySet().stream().map(e -> e.getValue().isEmpty() ? e.getKey() : e.getKey() + "=" + e.getValue())
                    .collect(Collectors.joining("&"));
        }
        StringBuilder toSign = new StringBuilder().append(request.method()).append('\n')
                .append(headers.getOrDefault("accept", "")).append('\n').append(md5).append('\n')
                .append(request.bytes().length > 0 ? headers.getOrDefault("content-type", "") : "").append('\n').append(date).append('\n');
        acs.forEach((name, value) -> toSign.append(name).append(':').append(value).append('\n'));
        toSign.append(resource);
        Mac mac = Mac.getInstance("HmacSHA1");
        mac.init(new SecretKeySpec(accessKeySecret.getBytes(StandardCharsets.UTF_8), "HmacSHA1"));
        String expected = Base64.getEncoder().encodeToString(mac.doFinal(toSign.toString().getBytes(StandardCharsets.UTF_8)));
        if (!expected.equals(authorization.substring(authorization.lastIndexOf(':') + 1))) {
            return refuse(400, "SignatureDoesNotMatch", "Specified signature is not matched with our calculation.");
        }
        return null;
    }

    /** CreateJob, checked against the SDK's CreateJobRequest model. */
    private Answer create(String body) throws Exception {
        JsonNode job = JSON.readTree(body);
        List<String> problems = new ArrayList<>();
        unknown(job, REQUEST_FIELDS, "", problems);
        for (String field : List.of("DisplayName", "JobType", "UserCommand")) {
            if (!job.path(field).isTextual() || job.path(field).asText().isBlank()) {
                problems.add(field + ": a non-empty string is required");
            }
        }
        if (!JOB_TYPES.contains(job.path("JobType").asText())) {
            problems.add("JobType: not a DLC job type: " + job.path("JobType").asText());
        }
        if (job.has("WorkspaceId") && !workspaceId.equals(job.path("WorkspaceId").asText())) {
            problems.add("WorkspaceId: no such workspace: " + job.path("WorkspaceId").asText());
        }
        if (!job.path("JobSpecs").isArray() || job.path("JobSpecs").isEmpty()) {
            problems.add("JobSpecs: at least one job spec is required");
        }
        for (JsonNode spec : job.path("JobSpecs")) {
            unknown(spec, SPEC_FIELDS, "JobSpecs[].", problems);
            if (!spec.path("Type").isTextual() || !spec.path("Image").isTextual() || !spec.path("PodCount").isIntegralNumber()) {
                problems.add("JobSpecs[]: Type and Image (strings) and PodCount (an integer) are required");
            }
            if (spec.has("EcsSpec") == spec.has("ResourceConfig")) {
                problems.add("JobSpecs[]: give either EcsSpec or ResourceConfig");
            }
            if (spec.has("ResourceConfig")) {
                unknown(spec.get("ResourceConfig"), RESOURCE_FIELDS, "JobSpecs[].ResourceConfig.", problems);
                if (!job.path("ResourceId").isTextual()) {
                    problems.add("ResourceId: required for a job with ResourceConfig (a resource group job)");
                }
            }
        }
        Map<String, Path> mounts = new LinkedHashMap<>();
        for (JsonNode source : job.path("DataSources")) {
            unknown(source, SOURCE_FIELDS, "DataSources[].", problems);
            Path folder = nas.get(source.path("DataSourceId").asText());
            if (folder == null) {
                problems.add("DataSources[].DataSourceId: no such data source: " + source.path("DataSourceId").asText());
            } else if (source.path("MountPath").isTextual()) {
                mounts.put(source.get("MountPath").asText(), folder);
            }
        }
        if (!problems.isEmpty()) {
            return refuse(400, "InvalidParameter", String.join("; ", problems));
        }
        String command = job.path("UserCommand").asText();
        for (Map.Entry<String, Path> mount : mounts.entrySet()) {
            command = command.replace(mount.getKey(), mount.getValue().toString());
        }
        String id = "dlc" + Long.toHexString(System.nanoTime()) + ids.incrementAndGet();
        DlcJob created = new DlcJob(id, job, command, tasks.resolve(id));
        synchronized (jobs) {
            jobs.put(id, created);
        }
        created.start(waiting);
        return Answer.json(200, map("JobId", id, "RequestId", requestId()));
    }

    private static void unknown(JsonNode node, Set<String> fields, String at, List<String> problems) {
        for (Iterator<String> names = node.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (!fields.contains(name)) {
                problems.add(at + name + ": not a field of the request");
            }
        }
    }

    private Answer refuse(int status, String code, String message) {
        synchronized (jobs) {
            refused.add(code + ": " + message);
        }
        return Answer.json(status, error(code, message));
    }

    private static Map<String, Object> error(String code, String message) {
        return map("RequestId", requestId(), "HostId", "pai-dlc.cn-hangzhou.aliyuncs.com", "Code", code, "Message", message);
    }

    private static String requestId() {
        return UUID.randomUUID().toString().toUpperCase(java.util.Locale.ROOT);
    }

    @Override
    protected void endJobs() {
        jobs().forEach(DlcJob::stop);
    }
}
