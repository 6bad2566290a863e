package nni.ts.k8s;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.fabric8.kubernetes.api.model.NamedContext;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.internal.KubeConfigUtils;
import io.fabric8.kubernetes.client.jdkhttp.JdkHttpClientFactory;

import nni.api.platform.PlatformException;

/**
 * Where the Kubernetes credentials come from, in the order NNI looks: the pod's service account
 * when the manager itself runs in a cluster ({@code KUBERNETES_SERVICE_HOST} set), else the
 * kubeconfig files {@code KUBECONFIG} lists, merged as kubectl merges them (files that do not exist
 * are skipped; for each cluster, user and context name the first file that defines it wins, and so
 * does the first {@code current-context}; relative paths stay relative to the file that holds
 * them), else {@code $HOME/.kube/config}.
 * A platform's {@code kubeconfig} setting, when given, wins over all three. The environment is
 * passed in (never read from a hidden place), so that tests give their own.
 *
 * <p>Under OSGi the HTTP client factory is given explicitly: fabric8 finds it through the service
 * loader otherwise, which does not see across bundles.
 */
public final class ClusterAccess {

    /**
     * Whether the OSGi framework's API is visible: in the runtime fabric8's bundles are started on
     * first use ({@link FabricBundles}); on a plain class path (tests, the kit on the plain class)
     * there are no bundles, and the API may be absent, so nothing of it is touched.
     */
    private static final boolean IN_A_FRAMEWORK = visible("org.osgi.framework.FrameworkUtil");

    private static boolean visible(String className) {
        try {
            Class.forName(className, false, ClusterAccess.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    static final String SERVICE_ACCOUNT = "/var/run/secrets/kubernetes.io/serviceaccount";

    private ClusterAccess() {
    }

    /**
     * @param kubeconfigSetting the platform's {@code kubeconfig} setting, or blank
     * @param contextSetting    the kubeconfig context to use, or blank for its current context
     * @param environment       the process environment ({@code KUBERNETES_SERVICE_HOST}, {@code KUBECONFIG}, {@code HOME})
     * @return a connected client (nothing asked of the server yet) and what it points at
     * @throws PlatformException naming where it looked, when no credentials are found or they cannot be read
     */
    public static Cluster connect(String kubeconfigSetting, String contextSetting, Map<String, String> environment)
            throws PlatformException {
        Config config = config(kubeconfigSetting, contextSetting, environment);
        // a request that finds no server is tried 4 more times over about 1.5 s, not fabric8's 10 (over a minute):
        // opening an experiment says soon that the cluster is away, and submissions are retried by the manager
        config.setRequestRetryBackoffLimit(Math.min(config.getRequestRetryBackoffLimit(), 4));
        if (IN_A_FRAMEWORK) {
            FabricBundles.start();
        }
        KubernetesClient client = new KubernetesClientBuilder().withConfig(config)
                .withHttpClientFactory(new JdkHttpClientFactory()).build();
        return new Cluster(client, describe(config));
    }

    /** @return the client configuration the settings and environment lead to */
    static Config config(String kubeconfigSetting, String contextSetting, Map<String, String> environment)
            throws PlatformException {
        String context = blank(contextSetting) ? null : contextSetting.strip();
        if (!blank(kubeconfigSetting)) {
            return fromFile(Path.of(kubeconfigSetting.strip()), context, "the platform's kubeconfig setting");
        }
        String serviceHost = environment.get("KUBERNETES_SERVICE_HOST");
        if (!blank(serviceHost)) {
            return inCluster(serviceHost.strip(), environment.getOrDefault("KUBERNETES_SERVICE_PORT", "443").strip());
        }
        String kubeconfig = environment.get("KUBECONFIG");
        if (!blank(kubeconfig)) {
            return fromList(kubeconfig, context);
        }
        String home = environment.get("HOME");
        if (blank(home)) {
            throw new PlatformException("no Kubernetes credentials: KUBERNETES_SERVICE_HOST, KUBECONFIG and HOME are all unset;"
                    + " set kubeconfig in the platform's configuration");
        }
        Path file = Path.of(home, ".kube", "config");
        if (!Files.isRegularFile(file)) {
            throw new PlatformException("no Kubernetes credentials: KUBERNETES_SERVICE_HOST and KUBECONFIG are unset and " + file
                    + " does not exist; give the manager a kubeconfig there, in KUBECONFIG, or in the platform's kubeconfig setting");
        }
        return fromFile(file, context, "$HOME/.kube/config");
    }

    private static Config fromFile(Path file, String context, String source) throws PlatformException {
        if (!Files.isRegularFile(file)) {
            throw new PlatformException("the kubeconfig " + file + " (from " + source + ") does not exist");
        }
        try {
            Config config = Config.fromKubeconfig(context, file.toFile());
            if (config.getMasterUrl() == null || config.getMasterUrl().isBlank()) {
                throw new PlatformException("the kubeconfig " + file + " names no cluster server"
                        + (context == null ? " for its current context" : " for context " + context));
            }
            return config;
        } catch (RuntimeException e) { // the client's own failures, I/O, and the YAML parser's for a malformed file
            throw new PlatformException("cannot read the kubeconfig " + file + " (from " + source + "): " + Messages.of(e), e);
        }
    }

    /** The files of a {@code KUBECONFIG} list, merged (see the class comment). */
    private static Config fromList(String list, String context) throws PlatformException {
        List<Path> named = new ArrayList<>();
        for (String name : list.split(File.pathSeparator)) {
            if (!name.isBlank() && !named.contains(Path.of(name.strip()))) {
                named.add(Path.of(name.strip()));
            }
        }
        if (named.size() == 1) {
            return fromFile(named.get(0), context, "KUBECONFIG");
        }
        List<Path> files = named.stream().filter(Files::isRegularFile).toList();
        if (files.isEmpty()) {
            throw new PlatformException("none of the kubeconfig files KUBECONFIG lists exists: " + list);
        }
        if (files.size() == 1) {
            return fromFile(files.get(0), context, "KUBECONFIG");
        }
        try {
            List<io.fabric8.kubernetes.api.model.Config> parsed = new ArrayList<>();
            for (Path file : files) {
                parsed.add(parse(file));
            }
            Config config = Config.empty();
            KubeConfigUtils.merge(config, context, parsed.toArray(io.fabric8.kubernetes.api.model.Config[]::new));
            if (config.getMasterUrl() == null || config.getMasterUrl().isBlank()) {
                throw new PlatformException("the kubeconfig files " + files + " (from KUBECONFIG) name no cluster server"
                        + (context == null ? " for their current context" : " for context " + context));
            }
            return config;
        } catch (RuntimeException e) {
            throw new PlatformException("cannot read the kubeconfig files " + files + " (from KUBECONFIG): " + Messages.of(e), e);
        }
    }

    private static io.fabric8.kubernetes.api.model.Config parse(Path file) {
        try {
            return KubeConfigUtils.parseConfig(file.toFile());
        } catch (RuntimeException e) {
            throw new IllegalArgumentException(file + ": " + Messages.of(e), e);
        }
    }

    /** The pod's service account; its token is read at each request, as the kubelet rotates it. */
    private static Config inCluster(String host, String port) {
        Config config = Config.empty();
        String hostPort = host.contains(":") ? "[" + host + "]:" + port : host + ":" + port;
        config.setMasterUrl("https://" + hostPort);
        Path ca = Path.of(SERVICE_ACCOUNT, "ca.crt");
        if (Files.isRegularFile(ca)) {
            config.setCaCertFile(ca.toString());
        }
        Path token = Path.of(SERVICE_ACCOUNT, "token");
        config.setOauthTokenProvider(() -> {
            try {
                return Files.readString(token, StandardCharsets.UTF_8).strip();
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read the service account token " + token, e);
            }
        });
        config.setUsername("system:serviceaccount (in-cluster)");
        return config;
    }

    /** @return the cluster as messages name it: context, cluster, server and user */
    static Cluster.Identity describe(Config config) {
        NamedContext current = config.getCurrentContext();
        String cluster = current != null && current.getContext() != null ? current.getContext().getCluster() : null;
        String user = current != null && current.getContext() != null ? current.getContext().getUser() : null;
        if (user == null) {
            user = config.getUsername() != null ? config.getUsername() : "(no user)";
        }
        String server = config.getMasterUrl().endsWith("/") ? config.getMasterUrl().substring(0, config.getMasterUrl().length() - 1)
                : config.getMasterUrl();
        return new Cluster.Identity(cluster == null ? "in-cluster" : cluster, server, user);
    }

    private static boolean blank(String text) {
        return text == null || text.isBlank();
    }
}
