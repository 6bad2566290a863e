package nni.itest.k8s;

import java.io.IOException;
import java.net.InetAddress;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.ObjectMapper;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.jdkhttp.JdkHttpClientFactory;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.crud.AttributeSet;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.fabric8.mockwebserver.http.Response;
import io.fabric8.mockwebserver.http.WebSocket;
import io.fabric8.mockwebserver.http.WebSocketListener;

/**
 * A Kubernetes API server for tests: fabric8's {@link KubernetesMockServer} in CRUD mode on
 * 127.0.0.1 (plain HTTP), with what a real API server adds that the tests need:
 * <ul>
 * <li>bearer tokens: {@link #PLATFORM_TOKEN} and {@link #OPERATOR_TOKEN} may do anything,
 *     {@link #FORBIDDEN_TOKEN} (user {@code restricted}) gets 403 for everything but {@code /version} and discovery,
 *     {@link #LIMITED_TOKEN} (user {@code limited}) may do what the README's Role {@code nni-experiments} allows
 *     ({@link RoleRules}; nothing on Secrets) and gets 403 for the rest, any other token 401;</li>
 * <li>SelfSubjectAccessReviews answered from those rights, as the RBAC authorizer answers them;</li>
 * <li>{@code /version} and API group discovery ({@code /apis/<group>}) for the installed CRDs;</li>
 * <li>CRDs installed as objects ({@link #install}), and every custom object created or replaced
 *     checked against its CRD's {@code openAPIV3Schema} ({@link CrdSchema}): a violation is answered
 *     422 Invalid, as a real server does, and kept for the tests ({@link #violations()});</li>
 * <li>watches that resume from a resourceVersion also get the DELETED events they missed (the mock
 *     only sends the objects that exist when a watch opens);</li>
 * <li>the platform's watches can be cut and refused for a while ({@link #cutPlatformWatches},
 *     {@link #refusePlatformWatches}), the operators' go on;</li>
 * <li>every DELETE request is recorded with its body ({@link #deletes()}), every request of the limited
 *     user with its method ({@link #limitedRequests()}).</li>
 * </ul>
 */
public final class MockCluster implements AutoCloseable {

    public static final String PLATFORM_TOKEN = "nni-platform-token";
    public static final String OPERATOR_TOKEN = "operator-token";
    public static final String FORBIDDEN_TOKEN = "forbidden-token";
    public static final String LIMITED_TOKEN = "limited-token";
    /**
     * The rights of {@link #LIMITED_TOKEN}'s user: the README's Role without the one on Secrets, and
     * {@code get}, {@code patch} on the one Secret {@link #TOKEN_SECRET} ({@code keeper.token.secret}).
     */
    public static final RoleRules LIMITED_ROLE = RoleRules.of("nni-experiments.yaml", "nni-keeper-token-secret.yaml");
    /** The Secret an administrator made for the keepers' tokens, which {@link #LIMITED_TOKEN}'s user may get and patch. */
    public static final String TOKEN_SECRET = "nni-keeper-tokens";
    private static final String ACCESS_REVIEWS = "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews";
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern CUSTOM_OBJECT = Pattern.compile("/apis/([^/]+)/([^/]+)/namespaces/([^/]+)/([^/?]+)(/[^/?]+)?(/status)?(\\?.*)?");

    /** A DELETE the server was asked for: its path (with the label selector) and its body (DeleteOptions). */
    public record DeleteRequest(String path, String body) {
    }

    private final Dispatcher dispatcher = new Dispatcher();
    private final KubernetesMockServer server;
    private final KubernetesClient admin;
    private final Map<String, CrdSchema> installed = new ConcurrentHashMap<>();
    private final List<String> violations = new CopyOnWriteArrayList<>();
    private final List<Map<String, Object>> validated = new CopyOnWriteArrayList<>();
    private final List<DeleteRequest> deletes = new CopyOnWriteArrayList<>();
    private final List<String> limitedRequests = new CopyOnWriteArrayList<>();
    private final Set<WebSocket> platformWatches = ConcurrentHashMap.newKeySet();
    /**
     * Ends watches off the server's event loop: the mock's listener waits there for its sender to
     * drain, which needs the event loop, so many watches dropped at once (a runtime stopping)
     * stalled the server.
     */
    private final java.util.concurrent.ExecutorService closer = java.util.concurrent.Executors.newCachedThreadPool(r -> {
        Thread thread = new Thread(r, "mock-watch-closer");
        thread.setDaemon(true);
        return thread;
    });
    private volatile boolean refusePlatformWatches;

    private MockCluster() {
        server = new KubernetesMockServer(new Context(Serialization.jsonMapper()), new MockWebServer(), new HashMap<>(), dispatcher,
                false);
        server.init(InetAddress.getLoopbackAddress(), 0);
        admin = client(OPERATOR_TOKEN);
    }

    /** Starts the server with namespaces {@code default} and {@code nni} and the given CRDs installed. */
    public static MockCluster start(CrdSchema... crds) {
        MockCluster cluster = new MockCluster();
        for (String namespace : List.of("default", "nni")) {
            cluster.admin.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(namespace).endMetadata().build()).create();
        }
        for (CrdSchema crd : crds) {
            cluster.install(crd);
        }
        return cluster;
    }

    /** @return the API server's URL */
    public String url() {
        return "http://127.0.0.1:" + server.getPort();
    }

    /** @return a client with {@code token} */
    public KubernetesClient client(String token) {
        Config config = new ConfigBuilder(Config.empty()).withMasterUrl(url()).withOauthToken(token).withNamespace("default")
                .withRequestTimeout(10_000).withWatchReconnectInterval(200).build();
        return new KubernetesClientBuilder().withConfig(config).withHttpClientFactory(new JdkHttpClientFactory()).build();
    }

    /** @return the operators' client (the emulator's, and the tests' own) */
    public KubernetesClient admin() {
        return admin;
    }

    /** Writes a kubeconfig for this server: cluster {@code mock}, context {@code mock}, the user with the token. */
    public Path writeKubeconfig(Path file, String user, String token) throws IOException {
        Files.createDirectories(file.getParent());
        Files.writeString(file, String.join("\n",
                "apiVersion: v1",
                "kind: Config",
                "clusters:",
                "- name: mock",
                "  cluster:",
                "    server: " + url(),
                "users:",
                "- name: " + user,
                "  user:",
                "    token: " + token,
                "contexts:",
                "- name: mock",
                "  context:",
                "    cluster: mock",
                "    user: " + user,
                "current-context: mock",
                ""));
        return file;
    }

    /** Installs a CRD: its object is created (the mock then serves the resource) and its schema checks objects. */
    public void install(CrdSchema crd) {
        CustomResourceDefinition definition = new CustomResourceDefinitionBuilder().withNewMetadata().withName(crd.name()).endMetadata()
                .withNewSpec().withGroup(crd.group()).withScope("Namespaced")
                .withNewNames().withKind(crd.kind()).withPlural(crd.plural()).endNames()
                .addNewVersion().withName(crd.version()).withServed(true).withStorage(true)
                .withNewSubresources().withStatus(crd.statusSubresource() ? new io.fabric8.kubernetes.api.model.apiextensions.v1
                        .CustomResourceSubresourceStatus() : null).endSubresources().endVersion()
                .endSpec().build();
        admin.apiextensions().v1().customResourceDefinitions().resource(definition).create();
        installed.put(crd.plural() + "." + crd.group(), crd);
    }

    /** Uninstalls a CRD (its objects stay in the store, as the tests never look at them then). */
    public void uninstall(CrdSchema crd) {
        admin.apiextensions().v1().customResourceDefinitions().withName(crd.name()).delete();
        installed.remove(crd.plural() + "." + crd.group());
    }

    /** @return every schema violation a create or replace was refused for */
    public List<String> violations() {
        return List.copyOf(violations);
    }

    /** @return every custom object checked against its schema (and accepted) */
    public List<Map<String, Object>> validatedObjects() {
        return List.copyOf(validated);
    }

    /** @return every request of {@link #LIMITED_TOKEN}'s user so far, as {@code <method> <path>} */
    public List<String> limitedRequests() {
        return Collections.unmodifiableList(limitedRequests);
    }

    /** @return every DELETE request so far */
    public List<DeleteRequest> deletes() {
        return List.copyOf(deletes);
    }

    /** Closes the platform's open watches, as a dropped connection or an API server restart does. */
    public void cutPlatformWatches() {
        for (WebSocket socket : List.copyOf(platformWatches)) {
            socket.close(1001, "the test cut the watch");
            platformWatches.remove(socket);
        }
    }

    /** While true, the platform's watch requests are answered 503 (its informers retry). */
    public void refusePlatformWatches(boolean refuse) {
        this.refusePlatformWatches = refuse;
    }

    @Override
    public void close() {
        admin.close();
        server.destroy();
        closer.shutdownNow();
    }

    private static MockResponse status(int code, String reason, String message) {
        Map<String, Object> status = new java.util.LinkedHashMap<>();
        status.put("kind", "Status");
        status.put("apiVersion", "v1");
        status.put("metadata", Map.of());
        status.put("status", "Failure");
        status.put("message", message);
        status.put("reason", reason);
        status.put("code", code);
        try {
            return new MockResponse().setResponseCode(code).setBody(JSON.writeValueAsString(status));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** One deletion, for watches that resume from before it. */
    private record Deletion(long resourceVersion, AttributeSet attributes, String object) {
    }

    private final class Dispatcher extends KubernetesCrudDispatcher {

        private final List<Deletion> deletions = new CopyOnWriteArrayList<>();

        @Override
        public MockResponse dispatch(RecordedRequest request) {
            String path = request.getPath();
            String token = request.getHeader("Authorization") == null ? "" : request.getHeader("Authorization").replaceFirst("^Bearer ", "");
            if (path.equals("/version")) {
                return new MockResponse().setResponseCode(200).setBody("{\"major\":\"1\",\"minor\":\"29\",\"gitVersion\":\"v1.29.0-mock\","
                        + "\"platform\":\"linux/amd64\"}");
            }
            if (token.equals(LIMITED_TOKEN)) {
                limitedRequests.add(request.getMethod() + " " + path);
            }
            boolean known = token.equals(PLATFORM_TOKEN) || token.equals(OPERATOR_TOKEN) || token.equals(FORBIDDEN_TOKEN)
                    || token.equals(LIMITED_TOKEN);
            if (known && request.getMethod().equals("POST") && URI.create(path).getPath().equals(ACCESS_REVIEWS)) {
                return accessReview(token, parse(body(request)));
            }
            boolean allowed = token.equals(PLATFORM_TOKEN) || token.equals(OPERATOR_TOKEN)
                    || (token.equals(FORBIDDEN_TOKEN) || token.equals(LIMITED_TOKEN)) && discovery(request)
                    || token.equals(LIMITED_TOKEN) && LIMITED_ROLE.allows(request.getMethod(), path);
            if (!allowed) {
                if (token.equals(FORBIDDEN_TOKEN) || token.equals(LIMITED_TOKEN)) {
                    return status(403, "Forbidden", "the request is forbidden: User \"" + (token.equals(LIMITED_TOKEN) ? "limited" : "restricted")
                            + "\" cannot " + request.getMethod().toLowerCase() + " " + URI.create(path).getPath());
                }
                return status(401, "Unauthorized", "Unauthorized");
            }
            if (token.equals(PLATFORM_TOKEN) && refusePlatformWatches && path.contains("watch=true")) {
                return status(503, "ServiceUnavailable", "the test refuses watches for now");
            }
            if (request.getMethod().equals("DELETE")) {
                deletes.add(new DeleteRequest(path, body(request)));
            }
            Matcher group = Pattern.compile("/apis/([^/?]+)").matcher(path);
            if (request.getMethod().equals("GET") && group.matches()) {
                return apiGroup(group.group(1));
            }
            Matcher custom = CUSTOM_OBJECT.matcher(path);
            if ((request.getMethod().equals("POST") || request.getMethod().equals("PUT")) && custom.matches()) {
                CrdSchema crd = installed.get(custom.group(4) + "." + custom.group(1));
                if (crd != null && crd.version().equals(custom.group(2)) && custom.group(6) == null) {
                    Map<String, Object> object = parse(body(request));
                    List<String> problems = crd.violations(object);
                    if (!problems.isEmpty()) {
                        violations.addAll(problems);
                        Object name = object.get("metadata") instanceof Map<?, ?> m ? m.get("name") : null;
                        return status(422, "Invalid", crd.kind() + "." + crd.group() + " \"" + name + "\" is invalid: "
                                + String.join("; ", problems));
                    }
                    validated.add(object);
                }
            }
            return super.dispatch(request);
        }

        /** A SelfSubjectAccessReview, answered from the token's rights (every authenticated user may ask). */
        @SuppressWarnings("unchecked")
        private MockResponse accessReview(String token, Map<String, Object> review) {
            Map<String, Object> spec = review.get("spec") instanceof Map<?, ?> m ? (Map<String, Object>) m : Map.of();
            Map<String, Object> asked = spec.get("resourceAttributes") instanceof Map<?, ?> m ? (Map<String, Object>) m : Map.of();
            boolean allowed = switch (token) {
                case PLATFORM_TOKEN, OPERATOR_TOKEN -> true;
                case LIMITED_TOKEN -> LIMITED_ROLE.allows(String.valueOf(asked.getOrDefault("namespace", "")),
                        String.valueOf(asked.getOrDefault("group", "")), String.valueOf(asked.get("resource")),
                        (String) asked.get("name"), String.valueOf(asked.get("verb")));
                default -> false;
            };
            Map<String, Object> answer = new java.util.LinkedHashMap<>(review);
            answer.put("status", allowed ? Map.of("allowed", true) : Map.of("allowed", false, "reason", "no RBAC rule allows it"));
            try {
                return new MockResponse().setResponseCode(201).setBody(JSON.writeValueAsString(answer));
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        }

        private MockResponse apiGroup(String name) {
            List<Map<String, Object>> versions = new ArrayList<>();
            for (CrdSchema crd : installed.values()) {
                if (crd.group().equals(name)) {
                    versions.add(Map.of("groupVersion", crd.group() + "/" + crd.version(), "version", crd.version()));
                }
            }
            if (versions.isEmpty()) {
                return status(404, "NotFound", "the server could not find the requested resource");
            }
            Map<String, Object> group = Map.of("kind", "APIGroup", "apiVersion", "v1", "name", name, "versions", versions,
                    "preferredVersion", versions.get(0));
            try {
                return new MockResponse().setResponseCode(200).setBody(JSON.writeValueAsString(group));
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        }

        /** RBAC grants discovery ({@code /api}, {@code /apis}, {@code /apis/<group>[/<version>]}) to every authenticated user. */
        private boolean discovery(RecordedRequest request) {
            return request.getMethod().equals("GET") && request.getPath().matches("/apis?(/[^/?]+){0,2}(\\?.*)?");
        }

        /** @return the request's body, left in place for the CRUD dispatcher ({@code getUtf8Body} would empty it) */
        private String body(RecordedRequest request) {
            return request.getBody() == null ? "" : new String(request.getBody().getBytes(), java.nio.charset.StandardCharsets.UTF_8);
        }

        @SuppressWarnings("unchecked")
        private Map<String, Object> parse(String body) {
            try {
                return JSON.readValue(body, Map.class);
            } catch (IOException e) {
                return Map.of();
            }
        }

        @Override
        public void processEvent(String path, AttributeSet pathAttributes, AttributeSet oldAttributes, GenericKubernetesResource resource,
                                 String newState) {
            String existing = oldAttributes == null ? null : getMap().get(oldAttributes);
            super.processEvent(path, pathAttributes, oldAttributes, resource, newState);
            if (newState == null && existing != null) {
                deletions.add(new Deletion(requestResourceVersion(), oldAttributes, existing));
            }
        }

        @Override
        public MockResponse handleWatch(String path) {
            MockResponse response = super.handleWatch(path);
            WebSocketListener watch = response.getWebSocketListener();
            AttributeSet query = getAttributeExtractor().fromPath(path);
            long since = resourceVersion(path);
            return response.withWebSocketUpgrade(new WebSocketListener() {
                @Override
                public void onBeforeAccept(WebSocket webSocket, Response upgrade) {
                    watch.onBeforeAccept(webSocket, upgrade);
                }

                @Override
                public void onOpen(WebSocket webSocket, Response upgrade) {
                    String auth = webSocket.request().getHeader("Authorization");
                    if (auth != null && auth.endsWith(PLATFORM_TOKEN)) {
                        platformWatches.add(webSocket);
                    }
                    watch.onOpen(webSocket, upgrade);
                    if (since > 0) {
                        for (Deletion deletion : deletions) {
                            if (deletion.resourceVersion() > since && deletion.attributes().matches(query)) {
                                webSocket.send("{\"type\":\"DELETED\",\"object\":" + deletion.object() + "}");
                            }
                        }
                    }
                }

                @Override
                public void onMessage(WebSocket webSocket, String text) {
                    watch.onMessage(webSocket, text);
                }

                @Override
                public void onMessage(WebSocket webSocket, byte[] bytes) {
                    watch.onMessage(webSocket, bytes);
                }

                @Override
                public void onClosing(WebSocket webSocket, int code, String reason) {
                    platformWatches.remove(webSocket);
                    watch.onClosing(webSocket, code, reason);
                }

                @Override
                public void onClosed(WebSocket webSocket, int code, String reason) {
                    platformWatches.remove(webSocket);
                    closer.execute(() -> watch.onClosed(webSocket, code, reason));
                }

                @Override
                public void onFailure(WebSocket webSocket, Throwable error, Response failed) {
                    platformWatches.remove(webSocket);
                    closer.execute(() -> watch.onFailure(webSocket, error, failed));
                }
            });
        }

        private long resourceVersion(String path) {
            Matcher m = Pattern.compile("[?&]resourceVersion=(\\d+)").matcher(path);
            return m.find() ? Long.parseLong(m.group(1)) : 0;
        }
    }

    /** @return an unmodifiable view, for tests that look at the installed schemas */
    Map<String, CrdSchema> installed() {
        return Collections.unmodifiableMap(installed);
    }
}
