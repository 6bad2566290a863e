package nni.ts.adaptdl.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.fabric8.kubernetes.api.model.DeletionPropagation;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.storage.StorageClass;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;

import nni.api.environment.EnvironmentSpec;
import nni.api.environment.KeeperRuntime;
import nni.api.platform.PlatformException;
import nni.ts.cloud.StagedFiles;
import nni.ts.k8s.CustomResourceType;
import nni.ts.k8s.JobKind;
import nni.ts.k8s.JobRequest;
import nni.ts.k8s.JobState;
import nni.ts.k8s.KeeperScript;
import nni.ts.k8s.NniObjects;
import nni.ts.k8s.PodNfsShare;

/**
 * NNI's AdaptDL objects ({@code adaptdl.petuum.com/v1}): per environment an {@code AdaptDLJob}
 * ({@code spec.preemptible} from {@code adaptive}; its pod template with one container {@code main}
 * running {@code /run.sh}, {@code /cleanup.sh} as preStop hook, {@code imagePullPolicy: Always},
 * AdaptDL's checkpoint, share and TensorBoard paths, requests for memory and CPU and a GPU limit),
 * then, owned by it, a PVC of the job's name (checkpoint and share) and a ConfigMap of the job's
 * name with {@code run.sh}, {@code cleanup.sh}, the keeper and an empty code archive (the code is
 * the image's: the trial runs in {@code codeDirectory}, relative to the image's working directory).
 * Per experiment a TensorBoard Deployment and its PVC, {@code adaptdl-tensorboard-<experiment>}.
 * The keeper runs in replica 0 ({@code ADAPTDL_REPLICA_RANK}); in reuse mode a job has one replica
 * ({@code maxReplicas: 1}), as a keeper runs its trials one after another. Status: {@code status.phase}.
 */
final class AdaptdlJobs implements JobKind {

    private static final Logger LOG = LoggerFactory.getLogger(AdaptdlJobs.class);
    static final CustomResourceType TYPE = new CustomResourceType("adaptdl.petuum.com", "v1", "AdaptDLJob", "adaptdljobs",
            "the AdaptDL scheduler (helm chart adaptdl-sched)");
    /** Where the ConfigMap's files are in the container. */
    static final String KEEPER_HOME = "/nni-keeper";
    static final String CONFIG_VOLUME = "nni-keeper-files";
    /** The ConfigMap key of the trial SDK, mounted as {@code sdk/nni/__init__.py} in {@link #KEEPER_HOME}. */
    static final String SDK_KEY = "nni-sdk.py";
    /** ConfigMaps hold at most 1 MiB. */
    static final int CONFIG_MAP_LIMIT = 1024 * 1024 - 4096;
    /** The storage classes NNI picks for AdaptDL when none is configured, by provisioner. */
    private static final List<Pattern> PROVISIONERS = List.of(Pattern.compile("microk8s\\.io/hostpath"),
            Pattern.compile(".*cephfs\\.csi\\.ceph\\.com"), Pattern.compile(".*azure.*"), Pattern.compile(".*\\befs\\b.*"));

    private final String image;
    private final String command;
    private final String codeDirectory;
    private final long gpus;
    private final String cpu;
    private final String memory;
    private final boolean adaptive;
    private final String storageClass;
    private final String storageSize;
    private final List<Map<String, Object>> imagePullSecrets;
    private final Map<String, Object> nfs;
    private volatile String resolvedStorageClass;

    @SuppressWarnings("unchecked")
    AdaptdlJobs(Map<String, Object> section) {
        image = String.valueOf(section.get("image"));
        command = String.valueOf(section.get("trialCommand"));
        codeDirectory = String.valueOf(section.getOrDefault("codeDirectory", "."));
        gpus = section.get("trialGpuNumber") instanceof Number n ? n.longValue() : 0;
        cpu = section.get("cpuNum") == null ? "1" : String.valueOf(section.get("cpuNum"));
        memory = section.get("memorySize") == null ? "1Gi" : String.valueOf(section.get("memorySize"));
        adaptive = Boolean.TRUE.equals(section.get("adaptive"));
        Map<String, Object> checkpoint = section.get("checkpoint") instanceof Map<?, ?> c ? (Map<String, Object>) c : null;
        storageClass = checkpoint == null ? null : String.valueOf(checkpoint.get("storageClass"));
        storageSize = checkpoint == null ? "1Gi" : String.valueOf(checkpoint.get("storageSize"));
        imagePullSecrets = section.get("imagePullSecrets") instanceof List<?> l ? (List<Map<String, Object>>) l : List.of();
        nfs = section.get("nfs") instanceof Map<?, ?> n ? (Map<String, Object>) n : null;
        resolvedStorageClass = storageClass;
    }

    @Override
    public CustomResourceType type() {
        return TYPE;
    }

    @Override
    public String objectName(String experimentId, boolean perTrial, String id) {
        return perTrial ? NniObjects.dashedTrialName(experimentId, id) : NniObjects.compactName(experimentId, false, id);
    }

    @Override
    public NniObjects.KeeperPlacement placement(String experimentId, String objectName, String tokenSecret) {
        return new NniObjects.KeeperPlacement(KEEPER_HOME, "/adaptdl/share/nni-keeper", tokenSecret);
    }

    /** The user's {@code nfs}, mounted in every pod: the keepers' channel folders can be there. */
    @Override
    public PodNfsShare.Volume podNfs() {
        return nfs == null ? null : new PodNfsShare.Volume(String.valueOf(nfs.get("server")), String.valueOf(nfs.get("path")),
                String.valueOf(nfs.get("containerMountPath")));
    }

    /** AdaptDL tells each replica its rank. */
    @Override
    public String leadTest(String objectName) {
        return "[ \"${ADAPTDL_REPLICA_RANK:-0}\" = 0 ]";
    }

    /** The code is the image's: the trial runs in codeDirectory, relative to the image's working directory. */
    @Override
    public String leadCommand() {
        return "cd \"$" + KeeperScript.IMAGE_WORKDIR + "\" && cd '" + codeDirectory.replace("'", "'\\''") + "' && " + command;
    }

    @Override
    public void check(EnvironmentSpec spec) throws PlatformException {
        long size = 0;
        try {
            for (KeeperRuntime runtime : spec.keepers()) {
                size += Files.size(spec.keeperFile(runtime));
            }
            size += Files.size(spec.codeArchive()) + sdk().length;
        } catch (IOException e) {
            throw new PlatformException("cannot read the keeper files: " + e.getMessage(), e);
        }
        if (size * 4 / 3 > CONFIG_MAP_LIMIT) {
            throw new PlatformException("the trial keeper (" + size / 1024 + " KiB) does not fit in an AdaptDL job's ConfigMap (1 MiB)");
        }
    }

    @Override
    public Map<String, Object> job(JobRequest request) {
        String name = request.objectName();
        List<Map<String, Object>> env = new ArrayList<>();
        env.add(Map.of("name", "ADAPTDL_CHECKPOINT_PATH", "value", "/adaptdl/checkpoint"));
        env.add(Map.of("name", "ADAPTDL_TENSORBOARD_LOGDIR", "value", "/adaptdl/tensorboard"));
        env.add(Map.of("name", "ADAPTDL_SHARE_PATH", "value", "/adaptdl/share"));
        env.addAll(NniObjects.keeperEnvironment(request.placement(), command, gpus));
        List<Map<String, Object>> mounts = new ArrayList<>();
        mounts.add(Map.of("name", "adaptdl-pvc", "mountPath", "/adaptdl/checkpoint", "subPath", "adaptdl/checkpoint"));
        mounts.add(Map.of("name", "adaptdl-pvc", "mountPath", "/adaptdl/share", "subPath", "adaptdl/share"));
        mounts.add(Map.of("name", "adaptdl-tensorboard-pvc", "mountPath", "/adaptdl/tensorboard", "subPath", "adaptdl/tensorboard"));
        mounts.add(Map.of("name", CONFIG_VOLUME, "mountPath", "/run.sh", "subPath", "run.sh"));
        mounts.add(Map.of("name", CONFIG_VOLUME, "mountPath", "/cleanup.sh", "subPath", "cleanup.sh"));
        mounts.add(Map.of("name", CONFIG_VOLUME, "mountPath", KEEPER_HOME));
        List<Map<String, Object>> volumes = new ArrayList<>();
        volumes.add(Map.of("name", "adaptdl-pvc", "persistentVolumeClaim", Map.of("claimName", name)));
        volumes.add(Map.of("name", "adaptdl-tensorboard-pvc", "persistentVolumeClaim",
                Map.of("claimName", tensorboardName(request.labels().get("expId")))));
        List<Map<String, Object>> items = new ArrayList<>();
        for (String key : configMapKeys(request.spec())) {
            items.add(Map.of("key", key, "path", key.equals(SDK_KEY) ? KeeperScript.SDK_FOLDER + "/nni/__init__.py" : key));
        }
        volumes.add(Map.of("name", CONFIG_VOLUME, "configMap", Map.of("name", name, "defaultMode", 511, "items", items)));
        if (nfs != null) {
            mounts.add(Map.of("name", "nfs", "mountPath", String.valueOf(nfs.get("containerMountPath"))));
            volumes.add(Map.of("name", "nfs", "nfs", Map.of("server", String.valueOf(nfs.get("server")), "path",
                    String.valueOf(nfs.get("path")))));
        }
        Map<String, Object> resources = new LinkedHashMap<>();
        resources.put("requests", Map.of("memory", memory, "cpu", cpu));
        resources.put("limits", Map.of("nvidia.com/gpu", Long.toString(gpus)));
        Map<String, Object> container = new LinkedHashMap<>();
        container.put("name", "main");
        container.put("image", image);
        container.put("imagePullPolicy", "Always");
        container.put("command", List.of("/run.sh"));
        container.put("lifecycle", Map.of("preStop", Map.of("exec", Map.of("command", List.of("/cleanup.sh")))));
        container.put("env", env);
        container.put("resources", resources);
        container.put("volumeMounts", mounts);
        container.put("terminationMessagePolicy", "FallbackToLogsOnError");
        Map<String, Object> podSpec = new LinkedHashMap<>();
        podSpec.put("containers", List.of(container));
        if (!imagePullSecrets.isEmpty()) {
            podSpec.put("imagePullSecrets", imagePullSecrets);
        }
        podSpec.put("volumes", volumes);
        Map<String, Object> spec = new LinkedHashMap<>();
        spec.put("preemptible", adaptive);
        if (!request.perTrial()) {
            spec.put("maxReplicas", 1);
        }
        spec.put("template", Map.of("metadata", Map.of("labels", request.labels()), "spec", podSpec));
        Map<String, Object> job = new LinkedHashMap<>();
        job.put("apiVersion", TYPE.apiVersion());
        job.put("kind", TYPE.kind());
        job.put("metadata", NniObjects.metadata(name, request.namespace(), request.labels()));
        job.put("spec", spec);
        return job;
    }

    /** The PVC and the ConfigMap of the job, owned by it as NNI has them. */
    @Override
    public List<Map<String, Object>> companions(JobRequest request, String jobUid) throws PlatformException {
        String name = request.objectName();
        Map<String, Object> owner = new LinkedHashMap<>();
        owner.put("apiVersion", TYPE.apiVersion());
        owner.put("kind", TYPE.kind());
        owner.put("name", name);
        owner.put("uid", jobUid);
        Map<String, Object> pvcMetadata = NniObjects.metadata(name, request.namespace(), request.labels());
        pvcMetadata.put("ownerReferences", List.of(owner));
        Map<String, Object> pvc = new LinkedHashMap<>();
        pvc.put("apiVersion", "v1");
        pvc.put("kind", "PersistentVolumeClaim");
        pvc.put("metadata", pvcMetadata);
        pvc.put("spec", claim(storageSize, resolvedStorageClass));
        Map<String, Object> configMetadata = NniObjects.metadata(name, request.namespace(), request.labels());
        configMetadata.put("ownerReferences", List.of(owner));
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("run.sh", "#!/bin/sh\n" + request.script());
        data.put("cleanup.sh", CLEANUP);
        Map<String, Object> binary = new LinkedHashMap<>();
        try {
            for (KeeperRuntime runtime : request.spec().keepers()) {
                binary.put(runtime.fileName(), Base64.getEncoder().encodeToString(Files.readAllBytes(request.spec().keeperFile(runtime))));
            }
            binary.put(KeeperScript.CODE_ARCHIVE, Base64.getEncoder().encodeToString(Files.readAllBytes(request.spec().codeArchive())));
            binary.put(SDK_KEY, Base64.getEncoder().encodeToString(sdk()));
        } catch (IOException e) {
            throw new PlatformException("cannot read the keeper files: " + e.getMessage(), e);
        }
        Map<String, Object> configMap = new LinkedHashMap<>();
        configMap.put("apiVersion", "v1");
        configMap.put("kind", "ConfigMap");
        configMap.put("metadata", configMetadata);
        configMap.put("data", data);
        configMap.put("binaryData", binary);
        return List.of(pvc, configMap);
    }

    /** @return the keys of an environment's ConfigMap: the scripts, the keepers, the code archive, the SDK */
    private static List<String> configMapKeys(EnvironmentSpec spec) {
        List<String> keys = new ArrayList<>(List.of("run.sh", "cleanup.sh"));
        spec.keepers().forEach(runtime -> keys.add(runtime.fileName()));
        keys.add(KeeperScript.CODE_ARCHIVE);
        keys.add(SDK_KEY);
        return keys;
    }

    /** @return the pure-Python trial SDK this bundle ships */
    private static byte[] sdk() throws IOException {
        try (var in = AdaptdlJobs.class.getResourceAsStream(StagedFiles.SDK_RESOURCE)) {
            if (in == null) {
                throw new IOException("the nni SDK is missing from this bundle");
            }
            return in.readAllBytes();
        }
    }

    private static Map<String, Object> claim(String size, String storageClassName) {
        Map<String, Object> spec = new LinkedHashMap<>();
        spec.put("accessModes", List.of("ReadWriteMany"));
        spec.put("volumeMode", "Filesystem");
        spec.put("resources", Map.of("requests", Map.of("storage", size)));
        if (storageClassName != null) {
            spec.put("storageClassName", storageClassName);
        }
        return spec;
    }

    static String tensorboardName(String experimentId) {
        return "adaptdl-tensorboard-" + experimentId.toLowerCase(java.util.Locale.ROOT);
    }

    /** The TensorBoard Deployment and its PVC (owned by it), as NNI creates them at the experiment's start. */
    @Override
    public void openExperiment(KubernetesClient client, String namespace, String experimentId) throws PlatformException {
        if (resolvedStorageClass == null) {
            resolvedStorageClass = defaultStorageClass(client);
        }
        String name = tensorboardName(experimentId);
        Map<String, String> labels = NniObjects.experimentLabels(experimentId);
        Map<String, Object> container = new LinkedHashMap<>();
        container.put("name", "app");
        container.put("image", "tensorflow/tensorflow");
        container.put("command", List.of("tensorboard"));
        container.put("args", List.of("--host=0.0.0.0", "--logdir=/adaptdl/tensorboard", "--port=6006"));
        container.put("volumeMounts", List.of(Map.of("name", "adaptdl-tensorboard-pvc", "mountPath", "/adaptdl/tensorboard",
                "subPath", "adaptdl/tensorboard")));
        container.put("ports", List.of(Map.of("containerPort", 6006)));
        Map<String, Object> podSpec = new LinkedHashMap<>();
        podSpec.put("containers", List.of(container));
        podSpec.put("volumes", List.of(Map.of("name", "adaptdl-tensorboard-pvc", "persistentVolumeClaim", Map.of("claimName", name))));
        Map<String, Object> deployment = new LinkedHashMap<>();
        deployment.put("apiVersion", "apps/v1");
        deployment.put("kind", "Deployment");
        deployment.put("metadata", NniObjects.metadata(name, namespace, labels));
        deployment.put("spec", Map.of("selector", Map.of("matchLabels", Map.of("app", name)), "replicas", 1,
                "template", Map.of("metadata", Map.of("labels", Map.of("app", name)), "spec", podSpec)));
        try {
            HasMetadata created = createOrGet(client, namespace, deployment);
            Map<String, Object> pvcMetadata = NniObjects.metadata(name, namespace, labels);
            pvcMetadata.put("ownerReferences", List.of(Map.of("apiVersion", "apps/v1", "kind", "Deployment", "name", name,
                    "uid", created.getMetadata().getUid())));
            Map<String, Object> pvc = new LinkedHashMap<>();
            pvc.put("apiVersion", "v1");
            pvc.put("kind", "PersistentVolumeClaim");
            pvc.put("metadata", pvcMetadata);
            pvc.put("spec", claim(storageSize, resolvedStorageClass));
            createOrGet(client, namespace, pvc);
        } catch (KubernetesClientException e) {
            throw new PlatformException("cannot create the experiment's TensorBoard (Deployment and PVC " + name + ") in namespace '"
                    + namespace + "': " + e.getMessage(), e);
        }
    }

    /** @return the object created, or the one of that name that exists already (a resumed experiment) */
    private static HasMetadata createOrGet(KubernetesClient client, String namespace, Map<String, Object> object) {
        HasMetadata typed = client.getKubernetesSerialization().unmarshal(client.getKubernetesSerialization().asJson(object));
        try {
            return client.resource(typed).inNamespace(namespace).create();
        } catch (KubernetesClientException e) {
            if (e.getCode() != 409) {
                throw e;
            }
            return client.resource(typed).inNamespace(namespace).get();
        }
    }

    /** NNI's choice: the first StorageClass whose provisioner is one AdaptDL's shared volumes work on. */
    private static String defaultStorageClass(KubernetesClient client) {
        try {
            for (StorageClass candidate : client.storage().v1().storageClasses().list().getItems()) {
                for (Pattern provisioner : PROVISIONERS) {
                    if (candidate.getProvisioner() != null && provisioner.matcher(candidate.getProvisioner()).matches()) {
                        return candidate.getMetadata().getName();
                    }
                }
            }
        } catch (KubernetesClientException e) {
            LOG.info("cannot list the cluster's storage classes ({}); AdaptDL's volumes use the default class", e.getMessage());
        }
        return null;
    }

    @Override
    public void closeExperiment(KubernetesClient client, String namespace, String experimentId) {
        Map<String, String> labels = NniObjects.experimentLabels(experimentId);
        try {
            client.apps().deployments().inNamespace(namespace).withLabels(labels).withPropagationPolicy(DeletionPropagation.BACKGROUND)
                    .delete();
            client.configMaps().inNamespace(namespace).withLabels(labels).withPropagationPolicy(DeletionPropagation.BACKGROUND).delete();
            client.persistentVolumeClaims().inNamespace(namespace).withLabels(labels)
                    .withPropagationPolicy(DeletionPropagation.BACKGROUND).delete();
        } catch (KubernetesClientException e) {
            LOG.warn("experiment {}: deleting its AdaptDL volumes and TensorBoard failed: {}", experimentId, e.getMessage());
        }
    }

    /** NNI's mapping of {@code status.phase}. */
    @Override
    public JobState state(Map<String, Object> job) {
        if (!(job.get("status") instanceof Map<?, ?> status) || status.get("phase") == null) {
            return JobState.of(JobState.Phase.PENDING);
        }
        String message = status.get("message") == null ? "" : String.valueOf(status.get("message"));
        return switch (String.valueOf(status.get("phase"))) {
            case "Pending", "Starting" -> JobState.of(JobState.Phase.PENDING, message);
            case "Running", "Stopping" -> JobState.of(JobState.Phase.RUNNING, message);
            case "Succeeded" -> JobState.of(JobState.Phase.SUCCEEDED, message);
            case "Failed" -> JobState.of(JobState.Phase.FAILED, message);
            default -> JobState.of(JobState.Phase.UNCHANGED, message);
        };
    }

    /**
     * The preStop hook: as NNI's keeper forwards it, the trial gets SIGINT (the process groups the
     * keeper, PID 1 of the container, started) and up to 25 s to save its checkpoint before the pod
     * is stopped (AdaptDL rescaling or preempting it, or the job deleted).
     */
    static final String CLEANUP = """
            #!/bin/sh
            # nni-osgi: interrupt the trial (the process groups of the keeper's children) and wait up to 25 s
            groups=""
            for stat in /proc/[0-9]*/stat; do
              fields=$(sed 's/^[0-9]* (.*) //' "$stat" 2>/dev/null) || continue
              set -- $fields
              [ "${2:-}" = 1 ] && groups="$groups $3"
            done
            for g in $groups; do kill -INT -"$g" 2>/dev/null; done
            n=0
            while [ $n -lt 125 ]; do
              alive=0
              for g in $groups; do kill -0 -"$g" 2>/dev/null && alive=1; done
              [ $alive = 0 ] && break
              n=$((n+1)); sleep 0.2
            done
            exit 0
            """;
}
