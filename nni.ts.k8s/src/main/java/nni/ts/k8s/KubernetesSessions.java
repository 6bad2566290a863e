package nni.ts.k8s;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicInteger;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import nni.api.environment.KeeperChoice;
import nni.api.environment.KeeperOptions;
import nni.api.environment.KeeperSessions;
import nni.api.platform.PlatformException;
import nni.api.platform.SessionContext;
import nni.api.platform.TrainingSession;
import nni.ts.cloud.ManagerAddress;
import nni.ts.cloud.AzureCredential;
import nni.ts.cloud.JobSession;

/**
 * Opens a Kubernetes platform's session, the same way for every operator: credentials, the
 * cluster checks, the share, the watch, the experiment's shared objects, then the manager's keeper
 * session on top. What fails first is undone and reported.
 */
public final class KubernetesSessions {

    private static final Logger LOG = LoggerFactory.getLogger(KubernetesSessions.class);

    /**
     * The platform component's settings (its {@code etc/<pid>.cfg}).
     *
     * @param kubeconfig      a kubeconfig file, or blank for NNI's lookup ({@link ClusterAccess})
     * @param context         the kubeconfig context, or blank for its current one
     * @param nfsMountPath    where the experiments' NFS share is mounted on this machine, or blank
     * @param keeper          which keeper the containers run
     * @param maxEnvironments most environments (jobs) alive at once
     * @param idleTimeout     how long a reuse environment may stay idle
     * @param cancelGrace     how long a cancelled trial's keeper has before its job is deleted anyway
     * @param stopGrace       one job per trial: how long a job may run on after its trial ended
     * @param azure           how an Azure file share's key is read and the share reached
     * @param keeperToken     how the containers get their keeper's token
     * @param tokenSecret     {@code keeper.token.secret}: the Secret that holds the tokens ({@link KeeperToken#NAMED_SECRET}), or blank
     * @param keeperTransport {@code keeper.transport}: auto, files or http ({@link ReportRoute})
     */
    public record ComponentSettings(String kubeconfig, String context, String nfsMountPath, KeeperChoice keeper,
                                    KeeperToken keeperToken, String tokenSecret, String keeperTransport, int maxEnvironments, Duration idleTimeout, Duration cancelGrace,
                                    Duration stopGrace, AzureFileShare.Settings azure) {

        /**
         * @return the settings of a component configuration
         * @throws PlatformException naming a bad {@code keeper}, {@code keeper.transport} or {@code azure.credential} value
         */
        public static ComponentSettings of(KubernetesPlatformConfig config) throws PlatformException {
            KeeperChoice keeper;
            AzureCredential.Source credential;
            KeeperToken keeperToken;
            String keeperTransport;
            try {
                keeper = KeeperChoice.of(config.keeper());
                keeperToken = KeeperToken.of(config.keeper_token(), config.keeper_token_secret());
                keeperTransport = ReportRoute.setting(config.keeper_transport());
                credential = AzureCredential.Source.of(config.azure_credential());
            } catch (IllegalArgumentException e) {
                throw new PlatformException("the platform's configuration: " + e.getMessage(), e);
            }
            return new ComponentSettings(config.kubeconfig(), config.context(), config.nfs_mount_path(), keeper, keeperToken,
                    config.keeper_token_secret() == null ? "" : config.keeper_token_secret().strip(), keeperTransport,
                    config.max_environments(), Duration.ofSeconds(Math.max(1, config.reuse_idle_seconds())),
                    Duration.ofSeconds(Math.max(0, config.cancel_grace_seconds())),
                    Duration.ofSeconds(Math.max(0, config.stop_grace_seconds())),
                    new AzureFileShare.Settings(credential, config.az_command(), config.keyvault_url(), config.keyvault_resource(),
                            config.azure_files_url(), Duration.ofSeconds(Math.max(1, config.azure_request_timeout_seconds())),
                            config.azureStorage_mount()));
        }
    }

    private KubernetesSessions() {
    }

    /**
     * @param context         the experiment member
     * @param keeperSessions  the manager's keeper mechanism
     * @param settings        the component's settings
     * @param kind            the operator's jobs, built from the section
     * @param sessionSettings how the platform's sessions differ (the share, reuse by default)
     * @param httpHost        the host the manager's port is bound to ({@code org.apache.felix.http.host}), or null (every address)
     */
    public static TrainingSession open(SessionContext context, KeeperSessions keeperSessions, ComponentSettings settings,
                                       JobKind kind, KubernetesSessionSettings sessionSettings, String httpHost) throws PlatformException {
        Map<String, Object> section = context.section();
        String namespace = section.get("namespace") instanceof String ns && !ns.isBlank() ? ns : "default";
        boolean reuse = section.get("reuseMode") instanceof Boolean b ? b : sessionSettings.reuseByDefault();
        ExperimentShare share = null;
        PodNfsShare podNfs = null;
        Cluster cluster = null;
        KubernetesLauncher launcher = null;
        ScheduledThreadPoolExecutor executor = null;
        KeeperOptions options;
        ReportRoute reports;
        try {
            K8sStorage.Choice storage = sessionSettings.keeperOnShare() ? K8sStorage.of(section) : null;
            cluster = ClusterAccess.connect(settings.kubeconfig(), settings.context(), System.getenv());
            cluster.check(namespace, List.of(kind.type()));
            boolean secrets = settings.keeperToken() == KeeperToken.SECRET || storage instanceof K8sStorage.Azure;
            cluster.checkAccess(namespace, AccessReview.needed(kind.type(), secrets,
                            settings.keeperToken() == KeeperToken.NAMED_SECRET ? settings.tokenSecret() : null),
                    remedy(sessionSettings.pid(), settings, storage));
            if (settings.keeperToken() == KeeperToken.ENVIRONMENT) {
                LOG.warn("experiment {}: keeper.token=environment: the keepers' tokens are plain values in the pod specs of namespace"
                        + " {}; anyone who can read the {} objects there can read them", context.experimentId(), namespace,
                        kind.type().plural());
            }
            if (storage instanceof K8sStorage.Nfs nfs) {
                share = NfsShare.open(nfs.server(), nfs.path(), settings.nfsMountPath(), context.experimentDirectory().resolve("nfs-root"));
            } else if (storage instanceof K8sStorage.Azure azure) {
                share = AzureFileShare.open(azure, settings.azure(), cluster, namespace, context.experimentId(),
                        context.experimentDirectory().resolve("azure-share"));
            }
            if (share == null && kind.podNfs() != null) {
                podNfs = new PodNfsShare(kind.podNfs(), settings.nfsMountPath(), context.experimentDirectory().resolve("nfs-root"));
            }
            reports = ReportRoute.choose(settings.keeperTransport(), share != null ? share : podNfs, context.experimentId(),
                    new ManagerAddress(managerHost(section), httpHost), sessionSettings.pid());
            AtomicInteger threads = new AtomicInteger();
            executor = new ScheduledThreadPoolExecutor(1, r -> {
                Thread thread = new Thread(r, "nni-" + context.platform() + "-" + context.experimentId() + "-" + threads.incrementAndGet());
                thread.setDaemon(true);
                return thread;
            });
            executor.setRemoveOnCancelPolicy(true);
            // closing deletes everything of the experiment at once: deletes still waiting out a grace are dropped
            executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
            launcher = new KubernetesLauncher(cluster, namespace, kind, share, podNfs, context.experimentId(),
                    settings.keeper().toString(), settings.keeperToken(), settings.tokenSecret(), settings.cancelGrace().toMillis(),
                    executor, context::capacityChanged);
            kind.openExperiment(cluster.client(), namespace, context.experimentId());
            options = KeeperOptions.builder(context.platform()).reuse(reuse)
                    .maxEnvironments(Math.max(1, settings.maxEnvironments())).idleTimeout(settings.idleTimeout())
                    .managerHost(managerHost(section)).keeper(settings.keeper()).transport(reports.transport()).build();
            LOG.info("experiment {}: {} in namespace {} of {} as user {}, {}{}, reports {} ({})", context.experimentId(), kind.type(),
                    namespace, cluster.identity(), cluster.identity().user(), reuse ? "reuse mode" : "one keeper per trial",
                    share == null ? "" : ", " + share.describe(), reports.transport(), reports.why());
        } catch (PlatformException | RuntimeException e) {
            // nothing is deleted: a resumed experiment's jobs may be running
            if (launcher != null) {
                launcher.detach();
            } else {
                if (executor != null) {
                    executor.shutdownNow();
                }
                if (cluster != null) {
                    cluster.close();
                }
            }
            if (share != null) {
                share.release();
            }
            if (podNfs != null) {
                podNfs.release();
            }
            throw e;
        }
        try {
            return JobSession.open(context, launcher, options, settings.stopGrace(), keeperSessions).transportChosen(reports.why());
        } catch (PlatformException | RuntimeException e) {
            if (share != null) { // the launcher is detached, nothing deleted
                share.release();
            }
            if (podNfs != null) {
                podNfs.release();
            }
            throw e;
        }
    }

    /** @return what a user lacking rights can do: the Role in nni.ts.k8s/README.md, or (for Secrets) the setting that needs none */
    private static String remedy(String pid, ComponentSettings settings, K8sStorage.Choice storage) {
        String remedy = "give the Role in nni.ts.k8s/README.md (\"Kubernetes RBAC\")";
        if (settings.keeperToken() == KeeperToken.SECRET && !(storage instanceof K8sStorage.Azure)) {
            remedy += ", or name a Secret made for the tokens in keeper.token.secret, or set keeper.token=environment in etc/"
                    + pid + ".cfg";
        }
        return remedy;
    }

    /**
     * @return {@code nniManagerIp}, the address the pods call the manager back at, or null: the
     *         manager then decides from where its port is bound (KeeperSessions)
     */
    static String managerHost(Map<String, Object> section) {
        return section.get("nniManagerIp") instanceof String ip && !ip.isBlank() ? ip.strip() : null;
    }
}
