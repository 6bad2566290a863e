package nni.itest.k8s;

import static nni.itest.k8s.KubernetesCluster.FRAMEWORKS;
import static nni.itest.k8s.KubernetesCluster.PYTORCHJOBS;
import static nni.itest.k8s.KubernetesCluster.TFJOBS;
import static org.awaitility.Awaitility.await;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

import org.junit.After;
import org.junit.AfterClass;
import org.junit.Before;
import org.junit.BeforeClass;
import org.junit.Test;

import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;

import nni.itest.cloud.CloudRuns;
import nni.itest.cloud.emulator.CloudEmulator;
import nni.itest.cloud.emulator.azure.AzureFilesEmulator;
import nni.itest.cloud.emulator.azure.KeyVaultEmulator;
import nni.itest.k8s.emulator.OperatorEmulator;
import nni.itest.launcher.RuntimeProcess;

/**
 * Kubeflow and FrameworkController experiments over NNI's {@code storageType: azureStorage}, end to
 * end without Azure or a cluster: the runnable jar (a service principal in its environment, its
 * platforms configured with the emulators' addresses) reads the storage key from the emulated Key
 * Vault with a token of the emulated Microsoft Entra ID, creates the share and uploads the keeper
 * and the code through the emulated Azure Files (every request's Shared Key signature checked), puts
 * the key in a Secret of the mock API server's namespace and mounts the share as the pods' azureFile
 * volume; the operator emulator's node mounts it with the Secret's account and key (the emulated
 * share's folder), so the keepers and trials run from it and report every metric once. A wrong key
 * and a missing secret stop the experiment with a message naming the account or the vault, and no
 * key or secret name is in any log.
 */
public class AzureStorageIT {

    private static final String TENANT = "72f988bf-0000-4000-8000-2d7cd011db47";
    private static final String CLIENT = "0c3f1e2d-1111-4222-8333-444455556666";
    private static final String CLIENT_SECRET = "client~secret.Xy9";
    private static final String KEY = Base64.getEncoder().encodeToString("the account key of nniaccount, 64 bytes long as Azure's are!!!"
            .getBytes(StandardCharsets.US_ASCII));
    private static final String STORAGE = "storage: {storageType: azureStorage, azureAccount: nniaccount, azureShare: nnishare,"
            + " keyVaultName: nnivault, keyVaultKey: nnikey}";

    private static Path root;
    private static Path code;
    private static Path kubeconfig;
    private static MockCluster cluster;
    private static KubernetesClient admin;
    private static OperatorEmulator emulator;
    private static KeyVaultEmulator vault;
    private static AzureFilesEmulator files;
    private RuntimeProcess runtime;
    private int refusedBefore;

    @Before
    public void start() {
        refusedBefore = files.refused().size();
    }

    /** @return what Azure Files refused during this test */
    private List<String> refusedNow() {
        List<String> all = files.refused();
        return all.subList(refusedBefore, all.size());
    }

    @BeforeClass
    public static void emulators() throws Exception {
        root = KubernetesCluster.freshFolder("azure-it");
        code = KubernetesCluster.trialCode(root.resolve("code"));
        cluster = MockCluster.start(TFJOBS, PYTORCHJOBS, FRAMEWORKS);
        admin = cluster.admin();
        emulator = new OperatorEmulator(admin, root.resolve("emulator"), Files.createDirectories(root.resolve("no-nfs")),
                Duration.ofSeconds(3));
        vault = new KeyVaultEmulator(TENANT, CLIENT, CLIENT_SECRET, "nnivault");
        files = new AzureFilesEmulator("nniaccount", KEY, root.resolve("azure-files"));
        emulator.azureFiles(files::mount);
        kubeconfig = cluster.writeKubeconfig(root.resolve("kube").resolve("config"), "nni-user", MockCluster.PLATFORM_TOKEN);
    }

    @AfterClass
    public static void stop() throws Exception {
        for (AutoCloseable each : new AutoCloseable[] {emulator, vault, files, cluster}) {
            if (each != null) {
                each.close();
            }
        }
    }

    @After
    public void end() throws Exception {
        if (runtime != null) {
            runtime.close();
        }
        vault.faults().clear();
        files.faults().clear();
        KubernetesCluster.assertClean(cluster, emulator);
    }

    /** Runs an experiment with {@code run} in a runtime of its own, as a user does. */
    private RuntimeProcess run(String name, String trainingService, String search, int trials, int concurrency) throws Exception {
        Path folder = Files.createDirectories(root.resolve("runs").resolve(name));
        Path config = folder.resolve("config.yml");
        Files.writeString(config, String.join("\n",
                "experimentName: " + name,
                "searchSpace:",
                "  x: {_type: choice, _value: " + search + "}",
                "trialCommand: bash trial.sh",
                "trialCodeDirectory: " + code,
                "trialConcurrency: " + concurrency,
                "maxTrialNumber: " + trials,
                "nniManagerIp: 127.0.0.1",
                "tuner: {name: GridSearch}",
                "trainingService:",
                trainingService.stripTrailing().indent(2),
                ""));
        return start(folder, config);
    }

    /** Starts a runtime of the test's own on {@code config} ({@code run}), configured for the emulators. */
    private RuntimeProcess start(Path folder, Path config) throws Exception {
        Map<String, String> settings = Map.of("kubeconfig", kubeconfig.toString(), "azure.credential", "environment",
                "keyvault.url", vault.address() + "/{vault}", "azure.files.url", files.address() + "/{account}",
                "azure.request.timeout.seconds", "20", "cancel.grace.seconds", "20");
        Path home = CloudRuns.home(folder.resolve("home"), "nni.ts.kubeflow", settings);
        CloudRuns.home(home, "nni.ts.frameworkcontroller", settings);
        runtime = RuntimeProcess.start(Map.of("AZURE_TENANT_ID", TENANT, "AZURE_CLIENT_ID", CLIENT, "AZURE_CLIENT_SECRET", CLIENT_SECRET,
                "AZURE_AUTHORITY_HOST", vault.address()), home, folder.resolve("experiments"), "run", config.toString());
        return runtime;
    }

    private Path experiments() {
        return runtime.home.getParent().resolve("experiments");
    }

    /** Waits for the experiment's storage Secret in the namespace and checks what it holds; @return its name */
    private static String awaitStorageSecret(String experimentId) {
        List<Secret> found = new ArrayList<>();
        await().atMost(Duration.ofSeconds(90)).until(() -> {
            found.clear();
            admin.secrets().inNamespace("default").withLabel("expId", experimentId).list().getItems().stream()
                    .filter(s -> s.getMetadata().getName().startsWith("nni-secret-")).forEach(found::add);
            return !found.isEmpty();
        });
        Secret secret = found.get(0);
        assertTrue(secret.getMetadata().getName(), secret.getMetadata().getName().matches("nni-secret-[a-z0-9]{8}"));
        assertEquals("Opaque", secret.getType());
        assertEquals("nni-kubernetes-trial", secret.getMetadata().getLabels().get("app"));
        assertEquals("nniaccount", decode(secret.getData().get("azurestorageaccountname")));
        assertEquals(KEY, decode(secret.getData().get("azurestorageaccountkey")));
        return secret.getMetadata().getName();
    }

    private static String decode(String base64) {
        return new String(Base64.getDecoder().decode(base64), StandardCharsets.UTF_8);
    }

    /** Every object of the experiment the API server took (each checked against its CRD) has the share as volume nni-vol, mounted at /tmp/mount. */
    @SuppressWarnings("unchecked")
    private static int assertAzureFileVolumes(String kind, String experimentId, String secretName) {
        int pods = 0;
        for (Map<String, Object> object : cluster.validatedObjects()) {
            Map<String, Object> metadata = (Map<String, Object>) object.get("metadata");
            if (!kind.equals(object.get("kind")) || !experimentId.equals(((Map<String, Object>) metadata.get("labels")).get("expId"))) {
                continue;
            }
            List<Map<String, Object>> podSpecs = new ArrayList<>();
            Map<String, Object> spec = (Map<String, Object>) object.get("spec");
            Object replicaSpecs = spec.getOrDefault("tfReplicaSpecs", spec.get("pytorchReplicaSpecs"));
            if (replicaSpecs instanceof Map<?, ?> replicas) {
                replicas.values().forEach(r -> podSpecs.add((Map<String, Object>) ((Map<String, Object>) ((Map<String, Object>) r)
                        .get("template")).get("spec")));
            } else {
                ((List<Object>) spec.get("taskRoles")).forEach(r -> podSpecs.add((Map<String, Object>) ((Map<String, Object>)
                        ((Map<String, Object>) ((Map<String, Object>) r).get("task")).get("pod")).get("spec")));
            }
            for (Map<String, Object> podSpec : podSpecs) {
                assertTrue(podSpec.toString(), ((List<Object>) podSpec.get("volumes")).contains(Map.of("name", "nni-vol", "azureFile",
                        Map.of("secretName", secretName, "shareName", "nnishare", "readOnly", false))));
                Map<String, Object> container = (Map<String, Object>) ((List<Object>) podSpec.get("containers")).get(0);
                assertTrue(container.toString(), ((List<Object>) container.get("volumeMounts")).contains(Map.of("name", "nni-vol",
                        "mountPath", "/tmp/mount")));
                pods++;
            }
        }
        return pods;
    }

    private static long count(CloudEmulator emulator, String method, String query) {
        return emulator.requests().stream().filter(r -> r.method().equals(method) && query.equals(r.query())).count();
    }

    @Test(timeout = 300_000)
    public void aKubeflowExperimentRunsToDoneFromAnAzureFileShareWhoseKeyIsInKeyVault() throws Exception {
        vault.put("nnikey", KEY);
        long shareCreatesBefore = count(files, "PUT", "restype=share");
        files.faults().failNext(1, 503); // the first call (creating the share) meets an outage and is tried again
        run("tf-azure", """
                platform: kubeflow
                operator: tf-operator
                apiVersion: v1
                %s
                worker: {replicas: 1, command: python3 trial.py, cpuNumber: 1, memorySize: 1gb, dockerImage: emulated/nni:nojava, codeDirectory: .}
                """.formatted(STORAGE), "[1, 2, 3]", 3, 2);
        String id = await().atMost(Duration.ofSeconds(60)).until(() -> experimentId(runtime.console()), java.util.Objects::nonNull);
        String secretName = awaitStorageSecret(id);
        runtime.assertExit(0, Duration.ofSeconds(240));
        KubernetesCluster.assertEverySucceededWithItsMetricsOnce(experiments().resolve(id), 3);
        assertTrue("the TFJobs mount the share", assertAzureFileVolumes("TFJob", id, secretName) > 0);
        // what the manager put on the share, and what the keepers wrote there through the pods' mount
        Path share = files.folder("nnishare").resolve("nni").resolve(id);
        assertTrue(Files.isRegularFile(share.resolve("nni-code.tar.gz")));
        assertTrue(Files.isRegularFile(share.resolve("sdk/nni/__init__.py")));
        try (var envs = Files.list(share.resolve("envs"))) {
            assertFalse("the keepers worked on the share", envs.toList().isEmpty());
        }
        assertEquals(List.of(), refusedNow());
        assertEquals("the share: once refused (503), then created", 2, count(files, "PUT", "restype=share") - shareCreatesBefore);
        assertTrue(count(files, "PUT", "comp=range") >= 2);
        List<String> reads = vault.vaultRequests().stream().map(Object::toString).toList();
        assertEquals("GET /nnivault/secrets/nnikey?api-version=7.4", reads.get(reads.size() - 1));
        // the experiment's end deleted its jobs and the storage Secret; the share stays (it is the user's)
        KubernetesCluster.awaitNothingLeft(admin, TFJOBS, id);
        assertTrue(Files.isRegularFile(share.resolve("nni-code.tar.gz")));
        CloudRuns.assertNowhere(KEY, runtime.console() + runtime.log(), runtime.home, experiments());
        CloudRuns.assertNowhere("nnikey", runtime.console() + runtime.log(), runtime.home, experiments());
    }

    @Test(timeout = 300_000)
    public void aFrameworkControllerExperimentWithOneFrameworkPerTrialRunsFromTheShare() throws Exception {
        vault.put("nnikey", KEY);
        run("fc-azure", """
                platform: frameworkcontroller
                serviceAccountName: null
                reuseMode: false
                %s
                taskRoles:
                  - {name: worker, taskNumber: 1, command: bash trial.sh, gpuNumber: 0, cpuNumber: 1, memorySize: 512mb,
                     dockerImage: emulated/nni:nojava, frameworkAttemptCompletionPolicy: {minFailedTaskCount: 1, minSucceedTaskCount: 1}}
                """.formatted(STORAGE), "[4, 5]", 2, 2);
        runtime.assertExit(0, Duration.ofSeconds(240));
        String id = CloudRuns.experimentId(runtime.console());
        KubernetesCluster.assertEverySucceededWithItsMetricsOnce(experiments().resolve(id), 2);
        String secretName = cluster.validatedObjects().stream().filter(o -> "Framework".equals(o.get("kind"))).map(Object::toString)
                .map(text -> text.replaceAll("(?s).*secretName=(nni-secret-[a-z0-9]{8}).*", "$1")).findFirst().orElse("none");
        assertEquals("one Framework per trial, each with the share", 2, assertAzureFileVolumes("Framework", id, secretName));
        KubernetesCluster.awaitNothingLeft(admin, FRAMEWORKS, id);
        assertEquals(List.of(), refusedNow());
    }

    /**
     * NNI's v1 file with {@code kubeflowConfig.keyVault} and {@code azureStorage} (the config corpus'
     * {@code v1-kubeflow-azure.yml}, a PyTorchJob), converted as NNI converts it: its PyTorchJob mounts the
     * share and passes the CRD's schema. Its pods are not scheduled (its image and mnist.py are not here).
     */
    @Test(timeout = 180_000)
    public void nniV1FileWithKeyVaultAndAzureStorageMakesPyTorchJobsThatMountTheShare() throws Exception {
        vault.put("nnikey", KEY);
        Path folder = Files.createDirectories(root.resolve("runs").resolve("v1-azure"));
        Path corpus = Path.of(System.getProperty("nni.root"), "nni.manager", "src", "test", "resources", "configs", "valid");
        Files.writeString(folder.resolve("search_space.json"), "{\"lr\": {\"_type\": \"choice\", \"_value\": [0.1, 0.01]}}");
        Path config = folder.resolve("config.yml");
        Files.writeString(config, Files.readString(corpus.resolve("v1-kubeflow-azure.yml")) + "maxTrialNum: 1\nnniManagerIp: 127.0.0.1\n");
        emulator.pauseScheduling(true);
        try {
            start(folder, config);
            String id = await().atMost(Duration.ofSeconds(60)).until(() -> experimentId(runtime.console()), java.util.Objects::nonNull);
            // the operator has taken the job (its status written): deleting it later does not race the operator's first write
            await().atMost(Duration.ofSeconds(60)).until(() -> KubernetesCluster.objects(admin, PYTORCHJOBS, id).stream()
                    .anyMatch(job -> job.getAdditionalProperties().get("status") != null));
            String secretName = awaitStorageSecret(id);
            assertEquals("the Master replica mounts the share", 1, assertAzureFileVolumes("PyTorchJob", id, secretName));
            runtime.close();
            runtime = null;
            admin.genericKubernetesResources(KubernetesCluster.context(PYTORCHJOBS)).inNamespace("default").withLabel("expId", id).delete();
            admin.secrets().inNamespace("default").withLabel("expId", id).delete();
        } finally {
            emulator.pauseScheduling(false);
        }
    }

    /** @return the id the console printed, or null yet */
    private static String experimentId(String console) {
        java.util.regex.Matcher started = java.util.regex.Pattern.compile("experiment (\\w{8}) started").matcher(console);
        return started.find() ? started.group(1) : null;
    }

    /** Runs a one-trial experiment that cannot open; @return what the console and the log say */
    private String refused(String name, Consumer<KeyVaultEmulator> setUp) throws Exception {
        setUp.accept(vault);
        run(name, """
                platform: kubeflow
                operator: tf-operator
                apiVersion: v1
                %s
                worker: {replicas: 1, command: bash trial.sh, cpuNumber: 1, memorySize: 1gb, dockerImage: emulated/nni:nojava, codeDirectory: .}
                """.formatted(STORAGE), "[9]", 1, 1);
        int exit = runtime.awaitExit(Duration.ofSeconds(120));
        String said = runtime.console() + runtime.log();
        assertEquals(said, 1, exit);
        return said;
    }

    @Test(timeout = 300_000)
    public void aWrongKeyAndAMissingSecretStopTheExperimentNamingTheAccountOrTheVault() throws Exception {
        String wrongKey = Base64.getEncoder().encodeToString(new byte[64]);
        String wrong = refused("wrong-key", v -> v.put("nnikey", wrongKey));
        assertTrue(wrong, wrong.contains("trainingService.storage: storage account 'nniaccount' refused the key read from Key Vault"
                + " 'nnivault' (is the secret the account's current key?)") && wrong.contains("AuthenticationFailed: Server failed to"
                + " authenticate the request."));
        assertFalse("refused before any Secret or job", admin.secrets().inNamespace("default").list().getItems().stream()
                .anyMatch(s -> s.getMetadata().getName().startsWith("nni-secret-")));
        CloudRuns.assertNowhere(wrongKey, wrong, runtime.home, experiments());
        CloudRuns.assertNowhere(KEY, wrong, runtime.home, experiments());
        runtime.close();
        runtime = null;

        String missing = refused("no-secret", v -> v.remove("nnikey"));
        assertTrue(missing, missing.contains("trainingService.storage: Key Vault 'nnivault' has no secret of the name in"
                + " trainingService.storage.keyVaultKey"));
        CloudRuns.assertNowhere("nnikey", missing, runtime.home, experiments());
        assertEquals("the wrong key's request", 1, refusedNow().size());
    }
}
