package nni.itest.k8s;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.fail;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.ClassRule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import nni.api.platform.PlatformException;
import nni.ts.k8s.Cluster;
import nni.ts.k8s.ClusterAccess;
import nni.ts.k8s.CustomResourceType;

/**
 * What a Kubernetes platform checks when an experiment opens, against the mock API server, and the
 * message each failure gives: the credentials refused (401) or not allowed (403, naming the user
 * the kubeconfig names), the namespace missing, the CRD missing or served in another version, the
 * server unreachable.
 */
public class ClusterChecksTest {

    @ClassRule
    public static final TemporaryFolder FOLDER = new TemporaryFolder();
    private static final CustomResourceType TFJOB_V1 = new CustomResourceType("kubeflow.org", "v1", "TFJob", "tfjobs",
            "the Kubeflow training operator (TFJob)");
    private static MockCluster cluster;

    @BeforeClass
    public static void start() {
        cluster = MockCluster.start(KubernetesCluster.TFJOBS);
    }

    @AfterClass
    public static void stop() {
        cluster.close();
    }

    private static String refusal(String user, String token, String namespace, CustomResourceType type) throws Exception {
        Path kubeconfig = cluster.writeKubeconfig(FOLDER.getRoot().toPath().resolve(user).resolve("config"), user, token);
        try (Cluster connected = ClusterAccess.connect(kubeconfig.toString(), "", Map.of())) {
            connected.check(namespace, List.of(type));
        } catch (PlatformException e) {
            return e.getMessage();
        }
        fail("no refusal");
        return null;
    }

    @Test
    public void aClusterThatHasWhatTheExperimentNeedsPasses() throws Exception {
        Path kubeconfig = cluster.writeKubeconfig(FOLDER.getRoot().toPath().resolve("ok").resolve("config"), "nni-user",
                MockCluster.PLATFORM_TOKEN);
        try (Cluster connected = ClusterAccess.connect(kubeconfig.toString(), "", Map.of())) {
            connected.check("default", List.of(TFJOB_V1));
            assertEquals("nni-user", connected.identity().user());
        }
    }

    @Test
    public void refusedCredentialsNameTheUser() throws Exception {
        assertEquals("the API server of cluster 'mock' at " + cluster.url() + " refused the credentials of user 'stranger'"
                + " (HTTP 401 Unauthorized)", refusal("stranger", "wrong-token", "default", TFJOB_V1));
    }

    @Test
    public void aForbiddenUserIsNamedWithWhatItMayNotUse() throws Exception {
        assertEquals("user 'restricted' is not allowed to use tfjobs in namespace 'default' in cluster 'mock' at " + cluster.url()
                + " (HTTP 403 Forbidden): the request is forbidden: User \"restricted\" cannot get"
                + " /apis/kubeflow.org/v1/namespaces/default/tfjobs (HTTP 403)",
                refusal("restricted", MockCluster.FORBIDDEN_TOKEN, "default", TFJOB_V1));
    }

    @Test
    public void aMissingNamespaceOrCrdIsNamed() throws Exception {
        assertEquals("namespace 'kubeflow' does not exist in cluster 'mock' at " + cluster.url() + " (trainingService.namespace)",
                refusal("nni-user", MockCluster.PLATFORM_TOKEN, "kubeflow", TFJOB_V1));
        assertEquals("cluster 'mock' at " + cluster.url() + " has no Framework custom resource (CRD"
                + " frameworks.frameworkcontroller.microsoft.com, version v1); install FrameworkController",
                refusal("nni-user", MockCluster.PLATFORM_TOKEN, "default", new CustomResourceType(
                        "frameworkcontroller.microsoft.com", "v1", "Framework", "frameworks", "FrameworkController")));
        assertEquals("cluster 'mock' at " + cluster.url() + " has no PyTorchJob custom resource (CRD pytorchjobs.kubeflow.org,"
                + " version v1); install the Kubeflow training operator (PyTorchJob)",
                refusal("nni-user", MockCluster.PLATFORM_TOKEN, "default", new CustomResourceType("kubeflow.org", "v1", "PyTorchJob",
                        "pytorchjobs", "the Kubeflow training operator (PyTorchJob)")));
        assertEquals("cluster 'mock' at " + cluster.url() + " has no TFJob custom resource (CRD tfjobs.kubeflow.org, version"
                + " v1beta2); the cluster serves kubeflow.org in version(s) v1 (apiVersion in the experiment); install the Kubeflow"
                + " training operator (TFJob)", refusal("nni-user", MockCluster.PLATFORM_TOKEN, "default",
                new CustomResourceType("kubeflow.org", "v1beta2", "TFJob", "tfjobs", "the Kubeflow training operator (TFJob)")));
    }

    @Test
    public void anUnreachableServerIsNamed() throws Exception {
        Path kubeconfig = FOLDER.getRoot().toPath().resolve("away").resolve("config");
        java.nio.file.Files.createDirectories(kubeconfig.getParent());
        java.nio.file.Files.writeString(kubeconfig, String.join("\n", "apiVersion: v1", "kind: Config",
                "clusters: [{name: away, cluster: {server: 'http://127.0.0.1:1'}}]",
                "users: [{name: u, user: {token: t}}]",
                "contexts: [{name: away, context: {cluster: away, user: u}}]", "current-context: away", ""));
        try (Cluster connected = ClusterAccess.connect(kubeconfig.toString(), "", Map.of())) {
            connected.check("default", List.of(TFJOB_V1));
            fail("no refusal");
        } catch (PlatformException e) {
            assertEquals("cannot reach the Kubernetes API server of cluster 'away' at http://127.0.0.1:1: connection refused",
                    e.getMessage());
        }
    }
}
