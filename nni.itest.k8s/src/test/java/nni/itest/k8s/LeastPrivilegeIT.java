package nni.itest.k8s;

import static nni.itest.k8s.KubernetesCluster.FRAMEWORKS;
import static nni.itest.k8s.KubernetesCluster.TFJOBS;
import static org.awaitility.Awaitility.await;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;

import com.fasterxml.jackson.databind.JsonNode;

import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;

import nni.api.environment.EnvironmentSpec;
import nni.itest.k8s.emulator.OperatorEmulator;
import nni.itest.launcher.RuntimeProcess;

/**
 * A user with the README's Role {@code nni-experiments} and no rights on Secrets ({@link
 * MockCluster#LIMITED_TOKEN}, whose requests outside the Role are refused 403): with the default
 * {@code keeper.token=secret} (FrameworkController here) opening an experiment fails naming the
 * Secret verbs missing; with {@code keeper.token=environment} (Kubeflow here) an experiment runs to
 * DONE without a Secret, the token a plain value in the pods, and the warning is logged.
 */
public class LeastPrivilegeIT {

    private static Path root;
    private static Path code;
    private static MockCluster cluster;
    private static OperatorEmulator emulator;
    private static RuntimeProcess runtime;
    private static KubernetesClient admin;

    @BeforeClass
    public static void cluster() throws Exception {
        root = KubernetesCluster.freshFolder("k8s-least-privilege");
        code = KubernetesCluster.trialCode(root.resolve("code"));
        Path share = Files.createDirectories(root.resolve("share"));
        cluster = MockCluster.start(TFJOBS, FRAMEWORKS);
        admin = cluster.admin();
        emulator = new OperatorEmulator(admin, root.resolve("emulator"), share, Duration.ofSeconds(3));
        Path kubeconfig = cluster.writeKubeconfig(root.resolve("kube").resolve("config"), "limited", MockCluster.LIMITED_TOKEN);
        Path etc = Files.createDirectories(root.resolve("home").resolve("etc"));
        String common = "kubeconfig=" + kubeconfig + "\nnfs.mount.path=" + share + "\n";
        Files.writeString(etc.resolve("nni.ts.kubeflow.cfg"), common + "keeper.token=environment\n");
        Files.writeString(etc.resolve("nni.ts.frameworkcontroller.cfg"), common);
        runtime = RuntimeProcess.startWithShell(root.resolve("home"), Files.createDirectories(root.resolve("experiments")));
        runtime.endpoint();
        await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> {
            Set<String> ready = new TreeSet<>();
            for (JsonNode platform : runtime.get("platforms")) {
                if (platform.path("state").asText().equals("active")) {
                    ready.add(platform.path("name").asText());
                }
            }
            return ready.containsAll(Set.of("kubeflow", "frameworkcontroller"));
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
        if (cluster != null) {
            cluster.close();
        }
    }

    /** Writes the experiment (namespace {@code nni}, the Role's) and creates it. @return its folder */
    private static Path create(String name, String trainingService, int trials) throws IOException {
        Path folder = Files.createDirectories(root.resolve("runs").resolve(name));
        Path config = folder.resolve("config.yml");
        Files.writeString(config, String.join("\n",
                "experimentName: " + name,
                "searchSpace: {x: {_type: choice, _value: [1, 2]}}",
                "trialCommand: bash trial.sh",
                "trialCodeDirectory: " + code,
                "trialConcurrency: 1",
                "maxTrialNumber: " + trials,
                "nniManagerIp: 127.0.0.1",
                "experimentWorkingDirectory: " + folder.resolve("experiments"),
                "tuner: {name: GridSearch}",
                "trainingService:",
                trainingService.stripTrailing().indent(2),
                ""));
        runtime.type("nni:create " + config);
        return folder.resolve("experiments");
    }

    @Test(timeout = 120_000)
    public void withoutRightsOnSecretsTheDefaultModeIsRefusedAtOpenNamingWhatIsMissing() throws Exception {
        int before = runtime.console().length();
        create("fc-secret-mode", """
                platform: frameworkcontroller
                serviceAccountName: frameworkcontroller
                namespace: nni
                reuseMode: false
                storage: {storageType: nfs, server: 192.0.2.10, path: /exports/nni}
                taskRoles:
                  - {name: worker, taskNumber: 1, command: bash trial.sh, gpuNumber: 0, cpuNumber: 1, memorySize: 512mb,
                     dockerImage: emulated/nni:nojava, frameworkAttemptCompletionPolicy: {minFailedTaskCount: 1, minSucceedTaskCount: 1}}
                """, 1);
        String expected = "user 'limited' may not create, delete, deletecollection secrets in namespace 'nni' of cluster 'mock' at "
                + cluster.url() + "; give the Role in nni.ts.k8s/README.md (\"Kubernetes RBAC\"), or name a Secret made for the"
                + " tokens in keeper.token.secret, or set keeper.token=environment in etc/nni.ts.frameworkcontroller.cfg";
        await().atMost(Duration.ofSeconds(60)).until(() -> runtime.console().substring(before).contains(expected)
                || runtime.log().contains(expected));
        assertTrue("nothing was created: " + cluster.limitedRequests(),
                cluster.limitedRequests().stream().noneMatch(r -> r.startsWith("POST") && !r.contains("selfsubjectaccessreviews")));
    }

    @Test(timeout = 300_000)
    public void withoutRightsOnSecretsTheTokenInTheEnvironmentRunsTheExperimentToDone() throws Exception {
        Path experiments = create("tf-environment-token", """
                platform: kubeflow
                operator: tf-operator
                apiVersion: v1
                namespace: nni
                reuseMode: false
                storage: {storageType: nfs, server: 192.0.2.10, path: /exports/nni}
                worker: {replicas: 1, command: bash trial.sh, cpuNumber: 1, memorySize: 1gb, dockerImage: emulated/nni:nojava, codeDirectory: .}
                """, 2);
        await().atMost(Duration.ofSeconds(60)).until(() -> KubernetesCluster.subfolders(experiments).size() == 1);
        Path directory = KubernetesCluster.subfolders(experiments).get(0);
        String id = directory.getFileName().toString();
        await().atMost(Duration.ofMinutes(3)).ignoreExceptions()
                // one fail-fast condition: Awaitility keeps only the last one given
                .failFast("the emulator failed or the experiment ended in ERROR",
                        () -> !emulator.failures().isEmpty() || "ERROR".equals(KubernetesCluster.status(runtime, id)))
                .until(() -> "DONE".equals(KubernetesCluster.status(runtime, id)));
        KubernetesCluster.assertEverySucceededWithItsMetricsOnce(directory, 2);
        assertTrue("the user's requests: " + cluster.limitedRequests(),
                cluster.limitedRequests().stream().noneMatch(r -> r.contains("/secrets")));
        assertTrue(admin.secrets().inNamespace("nni").list().getItems().isEmpty());
        List<Pod> pods = admin.pods().inNamespace("nni").withLabel("expId", id).list().getItems();
        assertTrue("the trials' pods are kept until the experiment ends", !pods.isEmpty());
        for (Pod pod : pods) {
            EnvVar token = pod.getSpec().getContainers().get(0).getEnv().stream()
                    .filter(v -> v.getName().equals(EnvironmentSpec.TOKEN_VARIABLE)).findFirst().orElseThrow();
            assertEquals("the token is a plain value", null, token.getValueFrom());
            assertTrue(token.getValue() != null && !token.getValue().isBlank());
        }
        String warning = "keeper.token=environment: the keepers' tokens are plain values in the pod specs of namespace nni;"
                + " anyone who can read the tfjobs objects there can read them";
        String log = runtime.log();
        assertEquals(log, 1, log.split(java.util.regex.Pattern.quote(warning), -1).length - 1);
        runtime.type("nni:halt " + id);
    }
}
