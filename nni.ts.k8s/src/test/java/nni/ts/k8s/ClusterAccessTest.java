package nni.ts.k8s;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import io.fabric8.kubernetes.client.Config;

import nni.api.platform.PlatformException;

/** Where the credentials come from, in NNI's order, and what is said when there are none. */
public class ClusterAccessTest {

    @Rule
    public TemporaryFolder folder = new TemporaryFolder();

    private Path kubeconfig(Path file, String server, String user) throws IOException {
        Files.createDirectories(file.getParent());
        Files.writeString(file, String.join("\n",
                "apiVersion: v1",
                "kind: Config",
                "clusters:",
                "- {name: main, cluster: {server: '" + server + "'}}",
                "- {name: other, cluster: {server: 'https://other.example:6443'}}",
                "users:",
                "- {name: " + user + ", user: {token: secret-token}}",
                "- {name: someone, user: {token: other-token}}",
                "contexts:",
                "- {name: main, context: {cluster: main, user: " + user + "}}",
                "- {name: second, context: {cluster: other, user: someone}}",
                "current-context: main",
                ""));
        return file;
    }

    @Test
    public void theSettingWinsThenTheServiceAccountThenKubeconfigThenHome() throws Exception {
        Path home = folder.newFolder("home").toPath();
        kubeconfig(home.resolve(".kube").resolve("config"), "https://home.example:6443", "home-user");
        Path fromVariable = kubeconfig(folder.getRoot().toPath().resolve("env").resolve("config"), "https://env.example:6443", "env-user");
        Path fromSetting = kubeconfig(folder.getRoot().toPath().resolve("setting").resolve("config"), "https://setting.example", "cfg-user");
        Map<String, String> all = Map.of("HOME", home.toString(), "KUBECONFIG", fromVariable + File.pathSeparator + "/nonexistent",
                "KUBERNETES_SERVICE_HOST", "10.0.0.1", "KUBERNETES_SERVICE_PORT", "443");

        Config setting = ClusterAccess.config(fromSetting.toString(), "", all);
        assertEquals("https://setting.example/", setting.getMasterUrl());
        assertEquals("cluster 'main' at https://setting.example", ClusterAccess.describe(setting).toString());
        assertEquals("cfg-user", ClusterAccess.describe(setting).user());

        Config inCluster = ClusterAccess.config("", "", all);
        assertEquals("https://10.0.0.1:443/", inCluster.getMasterUrl());
        assertEquals("in-cluster", ClusterAccess.describe(inCluster).name());

        Config variable = ClusterAccess.config("", "", Map.of("HOME", home.toString(), "KUBECONFIG",
                fromVariable + File.pathSeparator + "/nonexistent"));
        assertEquals("https://env.example:6443/", variable.getMasterUrl());
        assertEquals("env-user", ClusterAccess.describe(variable).user());

        Config homeConfig = ClusterAccess.config("", "", Map.of("HOME", home.toString()));
        assertEquals("https://home.example:6443/", homeConfig.getMasterUrl());

        Config context = ClusterAccess.config("", "second", Map.of("HOME", home.toString()));
        assertEquals("https://other.example:6443/", context.getMasterUrl());
        assertEquals("someone", ClusterAccess.describe(context).user());
    }

    /**
     * KUBECONFIG with several files, as kubectl merges them: a missing file skipped, the first
     * current-context and the first definition of each name winning, a context of the second file
     * usable, and a relative certificate path read against the file that holds it.
     */
    @Test
    public void aKubeconfigListIsMergedAsKubectlMergesIt() throws Exception {
        Path first = kubeconfig(folder.getRoot().toPath().resolve("a").resolve("config"), "https://first.example:6443", "first-user");
        Path secondFolder = folder.newFolder("b").toPath();
        Files.writeString(secondFolder.resolve("ca.crt"), "not a real certificate\n");
        Path second = secondFolder.resolve("config");
        Files.writeString(second, String.join("\n",
                "apiVersion: v1",
                "kind: Config",
                "clusters:",
                "- {name: main, cluster: {server: 'https://shadowed.example'}}",
                "- {name: lab, cluster: {server: 'https://lab.example:6443', certificate-authority: ca.crt}}",
                "users:",
                "- {name: lab-user, user: {token: lab-token}}",
                "contexts:",
                "- {name: lab, context: {cluster: lab, user: lab-user, namespace: experiments}}",
                "current-context: lab",
                ""));
        String list = "/nonexistent/config" + File.pathSeparator + first + File.pathSeparator + second;

        Config current = ClusterAccess.config("", "", Map.of("KUBECONFIG", list));
        assertEquals("the first file's current-context and its cluster 'main' win", "https://first.example:6443/", current.getMasterUrl());
        assertEquals("first-user", ClusterAccess.describe(current).user());

        Config lab = ClusterAccess.config("", "lab", Map.of("KUBECONFIG", list));
        assertEquals("https://lab.example:6443/", lab.getMasterUrl());
        assertEquals("lab-user", ClusterAccess.describe(lab).user());
        assertEquals("experiments", lab.getNamespace());
        assertEquals(secondFolder.resolve("ca.crt").toString(), lab.getCaCertFile());

        try {
            ClusterAccess.config("", "", Map.of("KUBECONFIG", "/nonexistent/a" + File.pathSeparator + "/nonexistent/b"));
            fail("no file of the list exists");
        } catch (PlatformException e) {
            assertTrue(e.getMessage(), e.getMessage().contains("/nonexistent/a") && e.getMessage().contains("/nonexistent/b"));
        }
    }

    @Test
    public void withoutCredentialsTheMessageSaysWhereItLooked() throws Exception {
        Path home = folder.newFolder("empty-home").toPath();
        assertEquals("no Kubernetes credentials: KUBERNETES_SERVICE_HOST and KUBECONFIG are unset and " + home.resolve(".kube/config")
                + " does not exist; give the manager a kubeconfig there, in KUBECONFIG, or in the platform's kubeconfig setting",
                refusal("", Map.of("HOME", home.toString())));
        assertEquals("the kubeconfig /nonexistent/config (from KUBECONFIG) does not exist",
                refusal("", Map.of("KUBECONFIG", "/nonexistent/config")));
        assertEquals("the kubeconfig /nonexistent/kc (from the platform's kubeconfig setting) does not exist",
                refusal("/nonexistent/kc", Map.of()));
        Path broken = folder.newFile("broken").toPath();
        Files.writeString(broken, "apiVersion: v1\nkind: Config\nclusters: [\n");
        String message = refusal(broken.toString(), Map.of());
        assertTrue(message, message.startsWith("cannot read the kubeconfig " + broken + " (from the platform's kubeconfig setting): "));
        assertTrue(message, !message.contains("Exception"));
    }

    private static String refusal(String setting, Map<String, String> environment) {
        try {
            ClusterAccess.config(setting, "", environment);
        } catch (PlatformException e) {
            return e.getMessage();
        }
        fail("no refusal");
        return null;
    }
}
