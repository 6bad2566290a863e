package nni.itest.k8s;

import static nni.itest.k8s.KubernetesCluster.ADAPTDLJOBS;
import static nni.itest.k8s.KubernetesCluster.FRAMEWORKS;
import static nni.itest.k8s.KubernetesCluster.TFJOBS;
import static org.awaitility.Awaitility.await;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

import org.junit.After;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;

import com.fasterxml.jackson.databind.JsonNode;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;

import nni.itest.cloud.emulator.TaskProcess;
import nni.itest.cloud.emulator.azure.AzureFilesEmulator;
import nni.itest.cloud.emulator.azure.KeyVaultEmulator;
import nni.itest.k8s.emulator.OperatorEmulator;
import nni.itest.launcher.RuntimeProcess;

/**
 * Issue 30: Kubernetes pods that cannot reach the manager. The emulator runs every container in a
 * network namespace of its own ({@link OperatorEmulator#isolatePods}), a recorder on the manager's
 * port in place of the manager: a keeper told to call the manager would reach only the recorder.
 * The experiments give no {@code nniManagerIp} and the runtime's port is bound to 127.0.0.1 only, so
 * the platforms' default {@code keeper.transport = auto} knows the pods cannot reach the manager; it
 * finds the experiment's share mounted on this machine (the NFS share at {@code nfs.mount.path}, the
 * emulated Azure file share at {@code azureStorage.mount}) and has the keepers report through
 * channel folders there (AdaptDL, which requires {@code nniManagerIp}, is set to {@code files} and uses
 * its trials' {@code nfs} volume): every trial ends SUCCEEDED with each metric once, no process of a pod connected to the manager's
 * port, the keepers were given {@code --channel} and never the manager's address, and {@code
 * nni:platforms} and the web UI say the session reports over files, and why.
 */
public class FileTransportIT {

    private static final String TENANT = "72f988bf-0000-4000-8000-2d7cd011db47";
    private static final String CLIENT = "0c3f1e2d-1111-4222-8333-444455556666";
    private static final String CLIENT_SECRET = "client~secret.Xy9";
    private static final String KEY = Base64.getEncoder().encodeToString("the account key of nniaccount, 64 bytes long as Azure's are!!!"
            .getBytes(StandardCharsets.US_ASCII));

    private static Path root;
    private static Path code;
    private static Path share;
    private static MockCluster cluster;
    private static OperatorEmulator emulator;
    private static RuntimeProcess runtime;
    private static KubernetesClient admin;
    private static KeyVaultEmulator vault;
    private static AzureFilesEmulator files;

    @BeforeClass
    public static void cluster() throws Exception {
        root = KubernetesCluster.freshFolder("k8s-file-transport");
        code = KubernetesCluster.trialCode(root.resolve("code"));
        share = Files.createDirectories(root.resolve("share"));
        cluster = MockCluster.start(TFJOBS, FRAMEWORKS, ADAPTDLJOBS);
        admin = cluster.admin();
        emulator = new OperatorEmulator(admin, root.resolve("emulator"), share, Duration.ofSeconds(3));
        vault = new KeyVaultEmulator(TENANT, CLIENT, CLIENT_SECRET, "nnivault");
        vault.put("nnikey", KEY);
        files = new AzureFilesEmulator("nniaccount", KEY, root.resolve("azure-files"));
        emulator.azureFiles(files::mount);
        // the user mounted the existing share on this machine (mount -t cifs): here, the emulated share's own folder
        Path azureMount = Files.createDirectories(files.folder("nnishare"));
        Path kubeconfig = cluster.writeKubeconfig(root.resolve("kube").resolve("config"), "nni-user", MockCluster.PLATFORM_TOKEN);
        Path etc = Files.createDirectories(root.resolve("home").resolve("etc"));
        for (String pid : List.of("nni.ts.kubeflow", "nni.ts.frameworkcontroller")) {
            Files.writeString(etc.resolve(pid + ".cfg"), "kubeconfig=" + kubeconfig + "\nnfs.mount.path=" + share + "\n"
                    + "azure.credential=environment\nkeyvault.url=" + vault.address() + "/{vault}\nazure.files.url=" + files.address()
                    + "/{account}\nazure.request.timeout.seconds=20\nazureStorage.mount=" + azureMount + "\n");
        }
        // AdaptDL requires nniManagerIp (as NNI does), so its auto stays HTTP: the file transport is asked for
        Files.writeString(etc.resolve("nni.ts.adaptdl.cfg"), "kubeconfig=" + kubeconfig + "\nnfs.mount.path=" + share
                + "\nkeeper.transport=files\n");
        runtime = RuntimeProcess.startWithShell(Map.of("AZURE_TENANT_ID", TENANT, "AZURE_CLIENT_ID", CLIENT, "AZURE_CLIENT_SECRET",
                CLIENT_SECRET, "AZURE_AUTHORITY_HOST", vault.address()), root.resolve("home"),
                Files.createDirectories(root.resolve("experiments")));
        runtime.endpoint();
        // the platforms are bound first with their defaults, then again once FileInstall gave them their etc/<pid>.cfg
        await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> {
            Set<String> configured = new TreeSet<>();
            for (JsonNode platform : uiPlatforms().path("platforms")) {
                for (JsonNode attribute : platform.path("configuration").path("attributes")) {
                    if (attribute.path("id").asText().equals("nfs.mount.path") && attribute.path("effective").asText().equals(share.toString())
                            && platform.path("state").asText().equals("active")) {
                        configured.add(platform.path("name").asText());
                    }
                }
            }
            return configured.containsAll(Set.of("kubeflow", "frameworkcontroller", "adl"));
        });
    }

    @AfterClass
    public static void stop() throws Exception {
        if (runtime != null) {
            runtime.close();
        }
        if (emulator != null) {
            emulator.close();
        }
        for (AutoCloseable each : new AutoCloseable[] {vault, files, cluster}) {
            if (each != null) {
                each.close();
            }
        }
    }

    @After
    public void nothingWentWrong() {
        KubernetesCluster.assertClean(cluster, emulator);
    }

    @Test(timeout = 300_000)
    public void kubeflowPodsCutOffFromTheManagerReportThroughTheNfsShare() throws Exception {
        Path connections = root.resolve("tf-connections-to-the-manager");
        emulator.isolatePods(new TaskProcess.Isolation(() -> URI.create(runtime.endpoint()).getPort(), connections));
        // x = 150 waits for signals/150.release: while it runs, the session is open and its pod is there
        String id = create("tf-files", """
                platform: kubeflow
                operator: tf-operator
                apiVersion: v1
                reuseMode: false
                storage: {storageType: nfs, server: 192.0.2.10, path: /exports/nni}
                worker: {replicas: 1, command: bash trial.sh, cpuNumber: 1, memorySize: 1gb, dockerImage: emulated/nni:nojava, codeDirectory: .}
                """, "[150, 2]");
        Path waiting = code.resolve("signals").resolve("150.pid");
        awaitUnlessConnected(id, connections, () -> Files.exists(waiting), Duration.ofMinutes(3));

        JsonNode reports = platform(uiPlatforms(), "kubeflow").path("reports");
        assertEquals(reports.toString(), 1, reports.size());
        assertEquals(reports.toString(), "files", reports.get(0).path("transport").asText());
        String why = reports.get(0).path("why").asText();
        assertTrue(why, why.startsWith("keeper.transport = auto: nniManagerIp is not set and the manager's port is bound to"
                + " 127.0.0.1 only, which the pods cannot reach; the NFS share 192.0.2.10:/exports/nni is mounted on this machine"));
        Path channels = share.resolve("nni").resolve(id).resolve("channels");
        assertTrue(why, why.contains(channels.toString()) && why.contains("/tmp/mount/nni/" + id + "/channels"));
        int before = runtime.console().length();
        runtime.type("nni:platforms");
        await().atMost(Duration.ofSeconds(30)).until(() -> runtime.console().substring(before)
                .contains("experiment " + id + " reports over files: keeper.transport = auto: "));
        List<Pod> pods = admin.pods().inNamespace("default").withLabel("expId", id).list().getItems();
        assertEquals(1, pods.size());
        assertToldTheChannelOnly(pods.get(0));
        Files.createFile(code.resolve("signals").resolve("150.release"));

        awaitUnlessConnected(id, connections, () -> "DONE".equals(KubernetesCluster.status(runtime, id)), Duration.ofMinutes(3));
        Path directory = root.resolve("runs").resolve("tf-files").resolve("experiments").resolve(id);
        KubernetesCluster.assertEverySucceededWithItsMetricsOnce(directory, 2);
        assertEquals("connections from the pods to the manager's port", "", Files.readString(connections));
        assertHandshakesWentThrough(channels, 2);
        halt(id, TFJOBS);
    }

    @Test(timeout = 300_000)
    public void frameworkControllerPodsInReuseModeCutOffFromTheManagerReportThroughTheNfsShare() throws Exception {
        Path connections = root.resolve("fc-connections-to-the-manager");
        emulator.isolatePods(new TaskProcess.Isolation(() -> URI.create(runtime.endpoint()).getPort(), connections));
        String id = create("fc-files", """
                platform: frameworkcontroller
                serviceAccountName: frameworkcontroller
                reuseMode: true
                storage: {storageType: nfs, server: 192.0.2.10, path: /exports/nni}
                taskRoles:
                  - {name: worker, taskNumber: 1, command: bash trial.sh, gpuNumber: 0, cpuNumber: 1, memorySize: 512mb,
                     dockerImage: emulated/nni:nojava, frameworkAttemptCompletionPolicy: {minFailedTaskCount: 1, minSucceedTaskCount: 1}}
                """, "[3, 4]");
        awaitUnlessConnected(id, connections, () -> "DONE".equals(KubernetesCluster.status(runtime, id)), Duration.ofMinutes(3));
        Path directory = root.resolve("runs").resolve("fc-files").resolve("experiments").resolve(id);
        KubernetesCluster.assertEverySucceededWithItsMetricsOnce(directory, 2);
        assertEquals("connections from the pods to the manager's port", "", Files.readString(connections));
        List<Pod> pods = admin.pods().inNamespace("default").withLabel("expId", id).list().getItems();
        assertEquals("one environment ran both trials", 1, pods.size());
        assertToldTheChannelOnly(pods.get(0));
        assertHandshakesWentThrough(share.resolve("nni").resolve(id).resolve("channels"), 1);
        halt(id, FRAMEWORKS);
    }

    /**
     * An Azure file share ({@code storageType: azureStorage}) the manager uploads to through Azure
     * Files REST, mounted on this machine too ({@code azureStorage.mount}): the channel folders are on
     * it, the pods (mounting the share as their {@code azureFile} volume) write there, the manager
     * reads there.
     */
    @Test(timeout = 300_000)
    public void kubeflowPodsCutOffFromTheManagerReportThroughTheAzureFileShareMountedHere() throws Exception {
        Path connections = root.resolve("azure-connections-to-the-manager");
        emulator.isolatePods(new TaskProcess.Isolation(() -> URI.create(runtime.endpoint()).getPort(), connections));
        String id = create("tf-azure-files", """
                platform: kubeflow
                operator: tf-operator
                apiVersion: v1
                reuseMode: true
                storage: {storageType: azureStorage, azureAccount: nniaccount, azureShare: nnishare, keyVaultName: nnivault, keyVaultKey: nnikey}
                worker: {replicas: 1, command: bash trial.sh, cpuNumber: 1, memorySize: 1gb, dockerImage: emulated/nni:nojava, codeDirectory: .}
                """, "[151, 7]");
        Path waiting = code.resolve("signals").resolve("151.pid");
        awaitUnlessConnected(id, connections, () -> Files.exists(waiting), Duration.ofMinutes(3));
        JsonNode reports = platform(uiPlatforms(), "kubeflow").path("reports");
        assertEquals(reports.toString(), 1, reports.size());
        assertEquals(reports.toString(), "files", reports.get(0).path("transport").asText());
        String why = reports.get(0).path("why").asText();
        assertTrue(why, why.startsWith("keeper.transport = auto: nniManagerIp is not set and the manager's port is bound to"
                + " 127.0.0.1 only, which the pods cannot reach; the Azure file share nniaccount/nnishare is mounted on this machine"));
        Path channels = files.folder("nnishare").resolve("nni").resolve(id).resolve("channels");
        assertTrue(why, why.contains(channels.toString()) && why.contains("/tmp/mount/nni/" + id + "/channels"));
        Files.createFile(code.resolve("signals").resolve("151.release"));

        awaitUnlessConnected(id, connections, () -> "DONE".equals(KubernetesCluster.status(runtime, id)), Duration.ofMinutes(3));
        Path directory = root.resolve("runs").resolve("tf-azure-files").resolve("experiments").resolve(id);
        KubernetesCluster.assertEverySucceededWithItsMetricsOnce(directory, 2);
        assertEquals("connections from the pods to the manager's port", "", Files.readString(connections));
        List<Pod> pods = admin.pods().inNamespace("default").withLabel("expId", id).list().getItems();
        assertEquals("one environment ran both trials", 1, pods.size());
        assertTrue("the pod mounts the Azure file share", pods.get(0).getSpec().getVolumes().stream()
                .anyMatch(v -> v.getAzureFile() != null && "nnishare".equals(v.getAzureFile().getShareName())));
        assertToldTheChannelOnly(pods.get(0));
        assertHandshakesWentThrough(channels, 1);
        assertEquals("Azure Files refused nothing", List.of(), files.refused());
        halt(id, TFJOBS);
    }

    /**
     * AdaptDL's pods have no NNI share, but the user's {@code nfs} volume: with {@code keeper.transport
     * = files}, the channel folders are in {@code nni/<experiment>/channels} on it, which the manager
     * sees at {@code nfs.mount.path}. The keeper (in the job's ConfigMap) is given its channel through
     * {@code NNI_KEEPER_CHANNEL}, below the volume's {@code containerMountPath}.
     */
    @Test(timeout = 300_000)
    public void adaptdlPodsCutOffFromTheManagerReportThroughTheTrialsNfsVolume() throws Exception {
        Path connections = root.resolve("adl-connections-to-the-manager");
        emulator.isolatePods(new TaskProcess.Isolation(() -> URI.create(runtime.endpoint()).getPort(), connections));
        String id = create("adl-files", """
                platform: adl
                image: emulated/nni:nojava
                namespace: default
                trialCommand: bash trial.sh
                trialGpuNumber: 0
                nniManagerIp: 127.0.0.1
                nfs: {server: 192.0.2.10, path: /exports/nni, containerMountPath: /mnt/nfs}
                checkpoint: {storageClass: standard, storageSize: 1Gi}
                """, "[152, 8]");
        Path waiting = code.resolve("signals").resolve("152.pid");
        awaitUnlessConnected(id, connections, () -> Files.exists(waiting), Duration.ofMinutes(3));
        JsonNode reports = platform(uiPlatforms(), "adl").path("reports");
        assertEquals(reports.toString(), 1, reports.size());
        assertEquals(reports.toString(), "files", reports.get(0).path("transport").asText());
        String why = reports.get(0).path("why").asText();
        Path channels = share.resolve("nni").resolve(id).resolve("channels");
        assertTrue(why, why.startsWith("keeper.transport = files") && why.contains(channels.toString())
                && why.contains("/mnt/nfs/nni/" + id + "/channels"));
        List<Pod> pods = admin.pods().inNamespace("default").withLabel("expId", id).list().getItems();
        assertEquals(1, pods.size());
        String env = pods.get(0).getSpec().getContainers().get(0).getEnv().toString();
        assertTrue(env, env.contains("name=NNI_KEEPER_CHANNEL, value=/mnt/nfs/nni/" + id + "/channels/"));
        String scripts = admin.configMaps().inNamespace("default").withLabel("expId", id).list().getItems().stream()
                .map(map -> String.valueOf(map.getData())).reduce("", String::concat);
        assertTrue(scripts, scripts.contains("'--channel' \"$NNI_KEEPER_CHANNEL\""));
        String port = ":" + URI.create(runtime.endpoint()).getPort();
        assertFalse("the pod is never told where the manager listens", scripts.contains("--manager") || scripts.contains(port)
                || env.contains(port));
        Files.createFile(code.resolve("signals").resolve("152.release"));

        awaitUnlessConnected(id, connections, () -> "DONE".equals(KubernetesCluster.status(runtime, id)), Duration.ofMinutes(3));
        Path directory = root.resolve("runs").resolve("adl-files").resolve("experiments").resolve(id);
        KubernetesCluster.assertEverySucceededWithItsMetricsOnce(directory, 2);
        assertEquals("connections from the pods to the manager's port", "", Files.readString(connections));
        assertHandshakesWentThrough(channels, 2);
        halt(id, ADAPTDLJOBS);
    }

    /** The pod's keeper is given its channel folder on the share, and neither {@code --manager} nor the manager's port. */
    private static void assertToldTheChannelOnly(Pod pod) {
        Container container = pod.getSpec().getContainers().get(0);
        String told = String.join(" ", container.getCommand() == null ? List.of() : container.getCommand()) + " "
                + String.join(" ", container.getArgs() == null ? List.of() : container.getArgs()) + " " + container.getEnv();
        assertTrue(told, told.contains("'--channel' \"$NNI_KEEPER_HOME\"'/channels/"));
        String port = ":" + URI.create(runtime.endpoint()).getPort();
        assertFalse("the pod is never told where the manager listens: " + told, told.contains("--manager") || told.contains(port));
    }

    /** Each keeper's handshake and the manager's acknowledgements went through its channel folder on the share. */
    private static void assertHandshakesWentThrough(Path channels, int keepers) throws Exception {
        List<Path> folders;
        try (Stream<Path> list = Files.list(channels)) {
            folders = list.filter(Files::isDirectory).toList();
        }
        assertEquals(folders.toString(), keepers, folders.size());
        for (Path channel : folders) {
            assertTrue(channel + ": the keeper's handshake", Files.isRegularFile(channel.resolve("hello.json")));
            assertTrue(channel + ": the manager's acknowledgement", Files.readString(channel.resolve("acked")).strip().matches("\\d+"));
        }
    }

    /** Waits for {@code condition}; a connection to the manager's port, ERROR or the emulator failing ends the wait at once. */
    private static void awaitUnlessConnected(String id, Path connections, java.util.concurrent.Callable<Boolean> condition,
                                             Duration patience) throws Exception {
        try {
            // one fail-fast condition: Awaitility keeps only the last one given
            await().atMost(patience).ignoreExceptions()
                    .failFast("the emulator failed, a pod connected to the manager's port or the experiment ended in ERROR",
                            () -> !emulator.failures().isEmpty() || Files.exists(connections) && Files.size(connections) > 0
                                    || "ERROR".equals(KubernetesCluster.status(runtime, id)))
                    .until(condition);
        } catch (AssertionError | org.awaitility.core.ConditionTimeoutException | org.awaitility.core.TerminalFailureException e) {
            throw new AssertionError("experiment " + id + " (" + KubernetesCluster.status(runtime, id) + "): " + (Files.exists(connections)
                    ? Files.readString(connections) : "") + runtime.console(), e);
        }
    }

    /** Writes the experiment (one trial at a time, GridSearch over {@code x}) and creates it. @return its id */
    private static String create(String name, String trainingService, String search) throws Exception {
        Path folder = Files.createDirectories(root.resolve("runs").resolve(name));
        Path experiments = folder.resolve("experiments");
        Path config = folder.resolve("config.yml");
        Files.writeString(config, String.join("\n",
                "experimentName: " + name,
                "searchSpace: {x: {_type: choice, _value: " + search + "}}",
                "trialCommand: bash trial.sh",
                "trialCodeDirectory: " + code,
                "trialConcurrency: 1",
                "maxTrialNumber: 2",
                "experimentWorkingDirectory: " + experiments,
                "tuner: {name: GridSearch}",
                "trainingService:",
                trainingService.stripTrailing().indent(2),
                ""));
        runtime.type("nni:create " + config);
        await().atMost(Duration.ofSeconds(60)).until(() -> KubernetesCluster.subfolders(experiments).size() == 1);
        return KubernetesCluster.subfolders(experiments).get(0).getFileName().toString();
    }

    private static void halt(String id, CrdSchema crd) throws Exception {
        runtime.type("nni:halt " + id);
        KubernetesCluster.awaitNothingLeft(admin, crd, id);
    }

    private static JsonNode platform(JsonNode platforms, String name) {
        for (JsonNode platform : platforms.path("platforms")) {
            if (platform.path("name").asText().equals(name)) {
                return platform;
            }
        }
        throw new AssertionError("no " + name + " platform in " + platforms);
    }

    /** @return what the web UI's platforms view shows */
    private static JsonNode uiPlatforms() throws Exception {
        java.net.http.HttpResponse<String> response = java.net.http.HttpClient.newHttpClient().send(java.net.http.HttpRequest
                .newBuilder(URI.create(runtime.endpoint() + "api/v1/nni-ui/platforms")).timeout(Duration.ofSeconds(60)).build(),
                java.net.http.HttpResponse.BodyHandlers.ofString());
        assertEquals(response.body(), 200, response.statusCode());
        return RuntimeProcess.JSON.readTree(response.body());
    }
}
