package nni.ts.k8s;

import java.util.List;
import java.util.stream.Collectors;

import io.fabric8.kubernetes.api.model.APIGroup;
import io.fabric8.kubernetes.api.model.APIResourceList;
import io.fabric8.kubernetes.api.model.GroupVersionForDiscovery;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;

import nni.api.platform.PlatformException;

/**
 * A connection to one Kubernetes cluster, and the checks a session makes before it creates
 * anything there: the API server answers and accepts the credentials, the namespace exists, the
 * operator's custom resource is installed and the user may list it. Each failure is a message
 * naming the cluster, its server, the namespace, the user and what is missing.
 */
public final class Cluster implements AutoCloseable {

    /**
     * @param name   the kubeconfig's cluster name ({@code in-cluster} for a service account)
     * @param server the API server's URL
     * @param user   the kubeconfig's user name for the context used
     */
    public record Identity(String name, String server, String user) {
        @Override
        public String toString() {
            return "cluster '" + name + "' at " + server;
        }
    }

    private final KubernetesClient client;
    private final Identity identity;

    Cluster(KubernetesClient client, Identity identity) {
        this.client = client;
        this.identity = identity;
    }

    public KubernetesClient client() {
        return client;
    }

    public Identity identity() {
        return identity;
    }

    /**
     * Checks, in this order, that the API server answers, that {@code namespace} exists (when the
     * user may read namespaces), that every type is served by the cluster, and that the user may
     * list the first type in the namespace.
     *
     * @throws PlatformException with a message naming what failed
     */
    public void check(String namespace, List<CustomResourceType> types) throws PlatformException {
        try {
            client.getKubernetesVersion();
        } catch (KubernetesClientException e) {
            throw refused(e, "the API server");
        }
        try {
            if (client.namespaces().withName(namespace).get() == null) {
                throw new PlatformException("namespace '" + namespace + "' does not exist in " + identity
                        + " (trainingService.namespace)");
            }
        } catch (KubernetesClientException e) {
            if (Messages.status(e) != 403) { // a user without rights on namespaces may still use one
                throw refused(e, "namespace '" + namespace + "'");
            }
        }
        for (CustomResourceType type : types) {
            served(type);
        }
        CustomResourceType first = types.get(0);
        try {
            client.genericKubernetesResources(first.context()).inNamespace(namespace).list(
                    new io.fabric8.kubernetes.api.model.ListOptionsBuilder().withLimit(1L).build());
        } catch (KubernetesClientException e) {
            throw refused(e, first.plural() + " in namespace '" + namespace + "'");
        }
    }

    /**
     * Asks the API server, with SelfSubjectAccessReviews, whether the user may do what the session
     * does in {@code namespace}.
     *
     * @param remedy what to do about it, said after the missing rights
     * @throws PlatformException naming the user, every verb missing on every resource, the namespace and the cluster
     */
    public void checkAccess(String namespace, List<AccessReview.Rule> rules, String remedy) throws PlatformException {
        java.util.Map<String, List<String>> missing = AccessReview.missing(client, namespace, rules);
        if (missing.isEmpty()) {
            return;
        }
        String what = missing.entrySet().stream().map(e -> String.join(", ", e.getValue()) + " " + e.getKey())
                .collect(Collectors.joining(" nor "));
        throw new PlatformException("user '" + identity.user() + "' may not " + what + " in namespace '" + namespace + "' of "
                + identity + "; " + remedy);
    }

    /** Fails unless the cluster serves {@code type} in the version asked for. */
    private void served(CustomResourceType type) throws PlatformException {
        APIResourceList resources;
        try {
            resources = client.getApiResources(type.apiVersion());
        } catch (KubernetesClientException e) {
            if (Messages.status(e) != 404) {
                throw refused(e, "the API group " + type.apiVersion());
            }
            resources = null;
        }
        boolean found = resources != null && resources.getResources() != null
                && resources.getResources().stream().anyMatch(r -> type.plural().equals(r.getName()));
        if (found) {
            return;
        }
        String versions = "";
        try {
            APIGroup group = client.getApiGroup(type.group());
            // another version of the group is served: the experiment's apiVersion may be the mistake
            if (group != null && group.getVersions() != null && !group.getVersions().isEmpty()
                    && group.getVersions().stream().noneMatch(v -> type.version().equals(v.getVersion()))) {
                versions = "; the cluster serves " + type.group() + " in version(s) "
                        + group.getVersions().stream().map(GroupVersionForDiscovery::getVersion).collect(Collectors.joining(", "))
                        + " (apiVersion in the experiment)";
            }
        } catch (KubernetesClientException ignored) {
            // the group itself is unknown: the CRD is not installed
        }
        throw new PlatformException(identity + " has no " + type.kind() + " custom resource (CRD " + type.crdName() + ", version "
                + type.version() + ")" + versions + "; install " + type.installHint());
    }

    /** @return the message for a request about {@code what} that failed */
    PlatformException refused(KubernetesClientException e, String what) {
        int status = Messages.status(e);
        String message = switch (status) {
            case 401 -> "the API server of " + identity + " refused the credentials of user '" + identity.user()
                    + "' (HTTP 401 Unauthorized)";
            case 403 -> "user '" + identity.user() + "' is not allowed to use " + what + " in " + identity
                    + " (HTTP 403 Forbidden): " + Messages.of(e);
            default -> status <= 0 ? "cannot reach the Kubernetes API server of " + identity + ": " + Messages.of(e)
                    : "the API server of " + identity + " answered HTTP " + status + " about " + what + ": " + Messages.of(e);
        };
        return new PlatformException(message, e);
    }

    @Override
    public void close() {
        client.close();
    }
}
