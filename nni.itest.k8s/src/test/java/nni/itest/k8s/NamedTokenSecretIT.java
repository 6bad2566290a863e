package nni.itest.k8s;

import static nni.itest.k8s.KubernetesCluster.TFJOBS;
import static org.awaitility.Awaitility.await;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.After;
import org.junit.Before;
import org.junit.Test;

import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;

import nni.api.environment.EnvironmentSpec;
import nni.itest.k8s.emulator.OperatorEmulator;
import nni.itest.launcher.RuntimeProcess;

/**
 * Issue 30, the second route for a user without rights to create Secrets: an administrator made
 * one Secret ({@link MockCluster#TOKEN_SECRET}) and the README's Role {@code nni-keeper-token-secret}
 * lets the user get and patch that one only ({@link MockCluster#LIMITED_TOKEN}). With
 * {@code keeper.token.secret} naming it, an experiment runs to DONE: each job's token is a key of
 * that Secret, read through {@code secretKeyRef}, no Secret is created, the Secret's other keys are
 * left as they were, and the experiment's keys are gone once it is stopped.
 */
public class NamedTokenSecretIT {

    private Path root;
    private MockCluster cluster;
    private OperatorEmulator emulator;
    private RuntimeProcess runtime;
    private KubernetesClient admin;

    @Before
    public void cluster() throws Exception {
        root = KubernetesCluster.freshFolder("k8s-named-token-secret");
        Path share = Files.createDirectories(root.resolve("share"));
        cluster = MockCluster.start(TFJOBS);
        admin = cluster.admin();
        emulator = new OperatorEmulator(admin, root.resolve("emulator"), share, Duration.ofSeconds(3));
        Path kubeconfig = cluster.writeKubeconfig(root.resolve("kube").resolve("config"), "limited", MockCluster.LIMITED_TOKEN);
        Path etc = Files.createDirectories(root.resolve("home").resolve("etc"));
        Files.writeString(etc.resolve("nni.ts.kubeflow.cfg"), "kubeconfig=" + kubeconfig + "\nnfs.mount.path=" + share
                + "\nkeeper.token.secret=" + MockCluster.TOKEN_SECRET
                // the keepers call the manager's port, as before keeper.transport: the NFS share with HTTP stays covered
                + "\nkeeper.transport=http\n");
        runtime = RuntimeProcess.startWithShell(root.resolve("home"), Files.createDirectories(root.resolve("experiments")));
        runtime.endpoint();
        // the platform is bound first with its defaults, then again once FileInstall gave it etc/nni.ts.kubeflow.cfg
        await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> {
            for (var platform : uiPlatforms().path("platforms")) {
                if (platform.path("name").asText().equals("kubeflow") && platform.path("state").asText().equals("active")) {
                    for (var attribute : platform.path("configuration").path("attributes")) {
                        if (attribute.path("id").asText().equals("keeper.token.secret")) {
                            return attribute.path("effective").asText().equals(MockCluster.TOKEN_SECRET);
                        }
                    }
                }
            }
            return false;
        });
    }

    @After
    public void stop() throws Exception {
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

    @Test(timeout = 300_000)
    public void theTokensAreKeysOfTheSecretTheConfigurationNamesAndNoSecretIsCreated() throws Exception {
        String unrelated = Base64.getEncoder().encodeToString("kept as it is".getBytes(StandardCharsets.UTF_8));
        admin.secrets().inNamespace("nni").resource(new SecretBuilder().withNewMetadata().withName(MockCluster.TOKEN_SECRET)
                .withNamespace("nni").endMetadata().withType("Opaque").addToData("unrelated", unrelated).build()).create();
        Path folder = Files.createDirectories(root.resolve("runs").resolve("tf-named-secret"));
        Path experiments = folder.resolve("experiments");
        Path config = folder.resolve("config.yml");
        Files.writeString(config, String.join("\n",
                "experimentName: tf-named-secret",
                "searchSpace: {x: {_type: choice, _value: [1, 2]}}",
                "trialCommand: bash trial.sh",
                "trialCodeDirectory: " + KubernetesCluster.trialCode(root.resolve("code")),
                "trialConcurrency: 1",
                "maxTrialNumber: 2",
                "nniManagerIp: 127.0.0.1",
                "experimentWorkingDirectory: " + experiments,
                "tuner: {name: GridSearch}",
                "trainingService:",
                """
                platform: kubeflow
                operator: tf-operator
                apiVersion: v1
                namespace: nni
                reuseMode: false
                storage: {storageType: nfs, server: 192.0.2.10, path: /exports/nni}
                worker: {replicas: 1, command: bash trial.sh, cpuNumber: 1, memorySize: 1gb, dockerImage: emulated/nni:nojava, codeDirectory: .}
                """.stripTrailing().indent(2),
                ""));
        runtime.type("nni:create " + config);
        await().atMost(Duration.ofSeconds(60)).until(() -> KubernetesCluster.subfolders(experiments).size() == 1);
        Path directory = KubernetesCluster.subfolders(experiments).get(0);
        String id = directory.getFileName().toString();
        try {
            await().atMost(Duration.ofMinutes(3)).ignoreExceptions()
                    // one fail-fast condition: Awaitility keeps only the last one given
                    .failFast("the emulator failed or the experiment ended in ERROR",
                            () -> !emulator.failures().isEmpty() || "ERROR".equals(KubernetesCluster.status(runtime, id)))
                    .until(() -> "DONE".equals(KubernetesCluster.status(runtime, id)));
        } catch (AssertionError | org.awaitility.core.ConditionTimeoutException e) {
            throw new AssertionError("experiment " + id + " did not run to DONE: " + runtime.console(), e);
        }
        KubernetesCluster.assertEverySucceededWithItsMetricsOnce(directory, 2);

        String path = "/api/v1/namespaces/nni/secrets/" + MockCluster.TOKEN_SECRET;
        List<String> onSecrets = cluster.limitedRequests().stream().filter(r -> r.contains("/secrets")).toList();
        assertTrue("the user's requests on Secrets: " + onSecrets, onSecrets.stream().allMatch(r -> r.equals("PATCH " + path)
                || r.equals("GET " + path) || r.startsWith("POST") && r.contains("selfsubjectaccessreviews")));
        assertTrue("the tokens were patched in: " + onSecrets, onSecrets.contains("PATCH " + path));
        assertEquals(List.of(MockCluster.TOKEN_SECRET),
                admin.secrets().inNamespace("nni").list().getItems().stream().map(s -> s.getMetadata().getName()).toList());
        Map<String, String> data = admin.secrets().inNamespace("nni").withName(MockCluster.TOKEN_SECRET).get().getData();
        List<Pod> pods = admin.pods().inNamespace("nni").withLabel("expId", id).list().getItems();
        assertEquals(2, pods.size());
        for (Pod pod : pods) {
            EnvVar token = pod.getSpec().getContainers().get(0).getEnv().stream()
                    .filter(v -> v.getName().equals(EnvironmentSpec.TOKEN_VARIABLE)).findFirst().orElseThrow();
            assertEquals(null, token.getValue());
            var reference = token.getValueFrom().getSecretKeyRef();
            assertEquals(MockCluster.TOKEN_SECRET, reference.getName());
            String job = reference.getKey();
            assertTrue("the key is the name of the pod's job: " + job, job.contains(id.toLowerCase())
                    && pod.getMetadata().getName().startsWith(job + "-"));
            assertTrue("the job's key is in the Secret until the experiment is stopped: " + data.keySet(), data.containsKey(job));
        }

        runtime.type("nni:halt " + id);
        await().atMost(Duration.ofSeconds(60)).until(() -> {
            Secret secret = admin.secrets().inNamespace("nni").withName(MockCluster.TOKEN_SECRET).get();
            return secret.getData().keySet().equals(Set.of("unrelated"));
        });
        assertEquals(unrelated, admin.secrets().inNamespace("nni").withName(MockCluster.TOKEN_SECRET).get().getData().get("unrelated"));
    }

    private com.fasterxml.jackson.databind.JsonNode uiPlatforms() throws Exception {
        java.net.http.HttpResponse<String> response = java.net.http.HttpClient.newHttpClient().send(java.net.http.HttpRequest
                .newBuilder(java.net.URI.create(runtime.endpoint() + "api/v1/nni-ui/platforms")).timeout(Duration.ofSeconds(60))
                .build(), java.net.http.HttpResponse.BodyHandlers.ofString());
        assertEquals(response.body(), 200, response.statusCode());
        return RuntimeProcess.JSON.readTree(response.body());
    }
}
