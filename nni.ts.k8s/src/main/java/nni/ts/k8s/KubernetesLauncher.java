package nni.ts.k8s;

import java.io.IOException;
import java.nio.charset.StandardCharsets;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.fabric8.kubernetes.api.model.DeletionPropagation;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;

import nni.api.environment.EnvironmentListener;
import nni.api.environment.EnvironmentSpec;
import nni.api.environment.EnvironmentState;
import nni.api.environment.KeeperRuntime;
import nni.api.environment.LaunchedEnvironment;
import nni.api.platform.PlatformException;
import nni.api.platform.TransientPlatformException;
import nni.ts.cloud.ClusterJobs;
import nni.ts.cloud.Refusal;
import nni.ts.cloud.StagedFiles;

/**
 * Starts keeper environments as Kubernetes jobs of one operator ({@link JobKind}): each
 * environment is a Secret with its keeper's token (unless {@code keeper.token=environment}) and the job, whose pods run the keeper script;
 * AdaptDL adds its companions. Everything is labelled with NNI's labels. The experiment's
 * {@link ExperimentWatch} tells what becomes of them: pod progress goes to the environment's
 * listener, a job that ends ends its environment, a job deleted by someone else ends it too and is
 * reported to the session ({@link #whenRemovedFromOutside}). Stopping an environment is a
 * label-selector delete with background propagation. A 401 or 403 when creating means the
 * credentials are refused: no more jobs are created ({@link #refusal()}).
 *
 * <p>Creation runs on the caller's thread (so that a refusal reaches the manager as an exception,
 * a passing one as {@link TransientPlatformException}); deletes run on {@link #executor}; watch
 * events on the informers' threads. State is guarded by {@link #lock}.
 */
public final class KubernetesLauncher implements ClusterJobs, ExperimentWatch.Listener {

    private static final Logger LOG = LoggerFactory.getLogger(KubernetesLauncher.class);
    /** No answer (status 0 or -1), too many requests, the server failing for now. */
    private static final Set<Integer> TRANSIENT = Set.of(-1, 0, 429, 500, 502, 503, 504);

    private final Cluster cluster;
    private final KubernetesClient client;
    private final String namespace;
    private final JobKind kind;
    private final ExperimentShare share;
    private final ReportShare channelShare;
    private final String experimentId;
    private final String keeperChoice;
    private final KeeperToken keeperToken;
    private final NamedTokenSecret tokenSecret;
    private final long cancelGraceMillis;
    private final ScheduledExecutorService executor;
    private final ExperimentWatch watch;
    private final Object lock = new Object();
    private final Object filesLock = new Object();
    private final Map<String, KubernetesEnvironment> byName = new LinkedHashMap<>();
    private final Map<String, KubernetesEnvironment> byId = new LinkedHashMap<>();
    private final Refusal refusal;
    private volatile BiConsumer<String, String> onDeletedFromOutside = (id, why) -> { };
    private boolean filesCopied;
    private boolean closed;

    /**
     * Starts watching the experiment's objects.
     *
     * @param share             the experiment's share, or null when the kind places the keeper itself
     * @param channelShare      where the keepers' channel folders are when that is not {@code share} (AdaptDL's
     *                          {@code nfs}), or null: released at {@link #close}
     * @param keeperChoice      the platform's keeper setting, shown as an attribute
     * @param keeperToken       how the containers get their keeper's token
     * @param tokenSecret       with {@link KeeperToken#NAMED_SECRET}: the Secret {@code keeper.token.secret} names; else ignored
     * @param cancelGraceMillis how long a cancelled trial's keeper has to report before its job is deleted anyway
     * @param executor          runs deletes; owned by the caller, shut down by {@link #close} and {@link #detach}
     * @param onRefusal         told once when the cluster refuses the credentials
     */
    public KubernetesLauncher(Cluster cluster, String namespace, JobKind kind, ExperimentShare share, ReportShare channelShare,
                              String experimentId, String keeperChoice, KeeperToken keeperToken, String tokenSecret,
                              long cancelGraceMillis, ScheduledExecutorService executor, Runnable onRefusal)
            throws PlatformException {
        this.cluster = cluster;
        this.client = cluster.client();
        this.namespace = namespace;
        this.kind = kind;
        this.share = share;
        this.channelShare = channelShare;
        this.experimentId = experimentId;
        this.keeperChoice = keeperChoice;
        this.keeperToken = keeperToken;
        this.tokenSecret = new NamedTokenSecret(client, namespace, tokenSecret);
        this.cancelGraceMillis = cancelGraceMillis;
        this.refusal = new Refusal(kind.type().kind(), onRefusal);
        this.executor = executor;
        this.watch = new ExperimentWatch(client, namespace, kind.type(), experimentId, this, cluster);
    }

    @Override
    public void whenRemovedFromOutside(BiConsumer<String, String> listener) {
        this.onDeletedFromOutside = listener;
    }

    @Override
    public Optional<String> refusal() {
        return refusal.get();
    }

    @Override
    public LaunchedEnvironment start(EnvironmentSpec spec, EnvironmentListener listener) throws PlatformException {
        kind.check(spec);
        boolean perTrial = spec.mode().equals("trial");
        String id = spec.environmentId();
        String name = kind.objectName(experimentId, perTrial, id);
        Map<String, String> labels = NniObjects.labels(experimentId, perTrial, id);
        String secret = NniObjects.tokenSecretName(name);
        NniObjects.KeeperPlacement placement = kind.placement(experimentId, name, secret);
        if (placement == null) {
            copyFilesToShare(spec);
            String home = ExperimentShare.containerFolder(experimentId);
            placement = new NniObjects.KeeperPlacement(home, home + "/envs/" + id, secret);
        }
        placement = placement.withChannel(spec.channel());
        if (keeperToken == KeeperToken.ENVIRONMENT) {
            placement = placement.withPlainToken(spec.token());
        } else if (keeperToken == KeeperToken.NAMED_SECRET) {
            placement = placement.withSharedSecret(tokenSecret.name(), name);
        }
        JobRequest request = new JobRequest(spec, name, namespace, labels, placement, KeeperScript.build(spec, kind.leadTest(name),
                kind.leadCommand(), placement.home(), placement.channel()), share == null ? null : share.volume());
        Map<String, Object> job = kind.job(request);
        KubernetesEnvironment environment = environment(id, name, labels, listener);
        refusal.check();
        synchronized (lock) {
            if (closed) {
                throw new PlatformException("the experiment's " + kind.type().kind() + " session is closed");
            }
            byName.put(name, environment);
            byId.put(id, environment);
        }
        try {
            if (keeperToken == KeeperToken.SECRET) {
                client.secrets().inNamespace(namespace).resource(new SecretBuilder().withNewMetadata().withName(secret)
                        .withNamespace(namespace).withLabels(labels).endMetadata().withType("Opaque")
                        .addToData("token", Base64.getEncoder().encodeToString(spec.token().getBytes(StandardCharsets.UTF_8)))
                        .build()).create();
            } else if (keeperToken == KeeperToken.NAMED_SECRET) {
                tokenSecret.put(name, spec.token());
            }
            GenericKubernetesResource created = client.genericKubernetesResources(kind.type().context()).inNamespace(namespace)
                    .resource(client.getKubernetesSerialization().convertValue(job, GenericKubernetesResource.class)).create();
            for (Map<String, Object> companion : kind.companions(request, created.getMetadata().getUid())) {
                HasMetadata object = client.getKubernetesSerialization().unmarshal(client.getKubernetesSerialization().asJson(companion));
                client.resource(object).inNamespace(namespace).create();
            }
        } catch (KubernetesClientException | PlatformException e) {
            synchronized (lock) {
                byName.remove(name);
                byId.remove(id);
            }
            deleteQuietly(labels, name);
            if (e instanceof PlatformException refused) {
                throw refused;
            }
            KubernetesClientException failure = (KubernetesClientException) e;
            int status = Messages.status(failure);
            String what = "cannot create " + kind.type().kind() + " " + name + " in namespace '" + namespace + "' of "
                    + cluster.identity() + ": ";
            if (TRANSIENT.contains(status)) {
                throw new TransientPlatformException(what + Messages.of(failure), null, failure);
            }
            if (status == 409) {
                throw new PlatformException(what + "an object of that name exists already (left by an earlier run of"
                        + " experiment " + experimentId + "?)", failure);
            }
            PlatformException refused = cluster.refused(failure, "creating " + kind.type().plural() + " and secrets in namespace '"
                    + namespace + "'");
            if (status == 401 || status == 403) {
                refusal.refuse(refused.getMessage());
            }
            throw refused;
        }
        LOG.info("experiment {}: {} {} created in namespace {} for {} {}", experimentId, kind.type().kind(), name, namespace,
                perTrial ? "trial" : "environment", id);
        environment.progress(EnvironmentState.PENDING, "waiting: " + kind.type().kind() + " " + name
                + " is created; its pods are not scheduled yet");
        watch.job(name).ifPresent(this::jobChanged); // an event that came before the registration was ignored
        return environment;
    }

    /** Puts the keeper files, the code archive and the trial SDK in the experiment's folder on the share, once per session. */
    private void copyFilesToShare(EnvironmentSpec spec) throws PlatformException {
        synchronized (filesLock) { // not the state's lock: an upload to Azure Files takes a while, watch events go on
            if (filesCopied) {
                return;
            }
            Path folder = share.stagingFolder(experimentId);
            try {
                for (KeeperRuntime runtime : spec.keepers()) {
                    StagedFiles.copy(spec.keeperFile(runtime), folder.resolve(runtime.fileName()));
                }
                StagedFiles.copy(spec.codeArchive(), folder.resolve(KeeperScript.CODE_ARCHIVE));
                StagedFiles.sdk(KubernetesLauncher.class, folder.resolve(KeeperScript.SDK_FOLDER));
            } catch (IOException e) {
                throw new PlatformException("cannot copy the trial keeper and code to " + folder + " for "
                        + share.describe() + ": " + e.getMessage(), e);
            }
            share.publish(experimentId);
            filesCopied = true;
        }
    }

    // ---- watch events ----------------------------------------------------------------------------

    @Override
    public void jobChanged(GenericKubernetesResource job) {
        KubernetesEnvironment environment;
        synchronized (lock) {
            environment = byName.get(job.getMetadata().getName());
        }
        if (environment == null || environment.isOver()) {
            return;
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> json = client.getKubernetesSerialization().convertValue(job, Map.class);
        JobState state = kind.state(json);
        String what = kind.type().kind() + " " + environment.name;
        switch (state.phase()) {
            case SUCCEEDED -> finish(environment, what + " succeeded" + detail(state.message()));
            case FAILED -> {
                String podFailure = environment.podFailure() != null ? environment.podFailure() : podFailureFromServer(environment);
                finish(environment, what + " failed" + detail(state.message()) + (podFailure == null ? "" : "; " + podFailure));
            }
            case PENDING, RUNNING, UNCHANGED -> {
                // the pods tell more
            }
        }
    }

    /**
     * @return why a pod of the environment failed, asked of the API server: the job's verdict can
     *         come before the pod's last change (the pod watch was re-listing, or lags), or null
     */
    private String podFailureFromServer(KubernetesEnvironment environment) {
        try {
            for (Pod pod : client.pods().inNamespace(namespace).withLabels(environment.labels).list().getItems()) {
                String failure = PodProgress.failure(pod);
                if (failure != null) {
                    return failure;
                }
            }
        } catch (KubernetesClientException e) {
            LOG.info("experiment {}: cannot list the pods of {}: {}", experimentId, environment.name, Messages.of(e));
        }
        return null;
    }

    private static String detail(String message) {
        return message == null || message.isBlank() ? "" : ": " + message.strip();
    }

    @Override
    public void jobDeleted(GenericKubernetesResource job) {
        String name = job.getMetadata().getName();
        KubernetesEnvironment environment;
        synchronized (lock) {
            environment = byName.remove(name);
            if (environment != null) {
                byId.remove(environment.id);
            }
        }
        if (environment == null || environment.isOver()) {
            return;
        }
        String what = kind.type().kind() + " " + name;
        if (environment.stopRequested()) {
            environment.end(what + " deleted");
            return;
        }
        String why = what + " was deleted by someone else (not by nni-osgi)";
        LOG.warn("experiment {}: {}", experimentId, why);
        try {
            onDeletedFromOutside.accept(environment.id, why);
        } finally {
            environment.end(why);
        }
    }

    @Override
    public void podChanged(Pod pod) {
        KubernetesEnvironment environment = environmentOf(pod);
        if (environment == null || environment.isOver()) {
            return;
        }
        PodProgress progress = environment.podChanged(pod);
        if (progress != null && progress.fatal() != null) {
            LOG.warn("experiment {}: environment {}: {}", experimentId, environment.id, progress.fatal());
            environment.requestStop();
            finish(environment, progress.fatal());
            deleteLater(environment.labels, environment.name, 0);
        }
    }

    @Override
    public void podDeleted(Pod pod) {
        KubernetesEnvironment environment = environmentOf(pod);
        if (environment != null) {
            environment.podDeleted(pod);
        }
    }

    private KubernetesEnvironment environmentOf(Pod pod) {
        Map<String, String> labels = pod.getMetadata().getLabels();
        if (labels == null) {
            return null;
        }
        String id = labels.getOrDefault("trialId", labels.get("envId"));
        synchronized (lock) {
            return id == null ? null : byId.get(id);
        }
    }

    /** Ends an environment whose job has ended; the job stays until it is stopped or the experiment closes. */
    private void finish(KubernetesEnvironment environment, String why) {
        LOG.info("experiment {}: environment {}: {}", experimentId, environment.id, why);
        boolean delete = environment.deleteWhenEnded();
        environment.end(why);
        if (delete) {
            deleteLater(environment.labels, environment.name, 0);
        }
    }

    // ---- stop, delete --------------------------------------------------------------------------

    /**
     * Deletes a cancelled trial's job once its keeper has reported and ended, or after the cancel
     * grace at the latest (one keeper per trial: the environment is the trial's).
     */
    @Override
    public void stopJobOf(String trialId) {
        KubernetesEnvironment environment;
        synchronized (lock) {
            environment = byId.get(trialId);
        }
        if (environment == null) {
            return;
        }
        if (environment.isOver()) {
            deleteLater(environment.labels, environment.name, 0);
            return;
        }
        environment.markDeleteWhenEnded();
        deleteLater(environment.labels, environment.name, cancelGraceMillis, environment);
    }

    /** A job whose trial ended is left {@code grace} to end too; deleted then if it still runs (another role keeps it up). */
    @Override
    public void stopJobLater(String environmentId, Duration grace) {
        KubernetesEnvironment environment;
        synchronized (lock) {
            environment = byId.get(environmentId);
        }
        if (environment == null || environment.isOver()) {
            return;
        }
        try {
            executor.schedule(() -> {
                if (!environment.isOver()) {
                    LOG.info("experiment {}: {} {} still runs {} s after its trial ended; deleting it", experimentId,
                            kind.type().kind(), environment.name, grace.toSeconds());
                    environment.requestStop();
                    deleteQuietly(environment.labels, environment.name);
                }
            }, grace.toMillis(), TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException closing) {
            // the session is closing: close() deletes everything of the experiment
        }
    }

    private void deleteLater(Map<String, String> labels, String objectName, long delayMillis) {
        deleteLater(labels, objectName, delayMillis, null);
    }

    /** Deletes the objects with {@code labels} (the job {@code objectName}) after the delay (marking {@code environment} as stopped by us). */
    private void deleteLater(Map<String, String> labels, String objectName, long delayMillis, KubernetesEnvironment environment) {
        try {
            executor.schedule(() -> {
                if (environment != null) {
                    environment.requestStop();
                }
                deleteQuietly(labels, objectName);
            }, delayMillis, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException closing) {
            // the session is closing: close() deletes everything of the experiment
        }
    }

    /**
     * Label-selector deletes (background propagation) of the jobs and Secrets with {@code labels};
     * with {@link KeeperToken#NAMED_SECRET}, the tokens' keys in that Secret: {@code objectName}'s,
     * or every key of the experiment when null.
     */
    private void deleteQuietly(Map<String, String> labels, String objectName) {
        try {
            client.genericKubernetesResources(kind.type().context()).inNamespace(namespace).withLabels(labels)
                    .withPropagationPolicy(DeletionPropagation.BACKGROUND).delete();
            if (keeperToken == KeeperToken.SECRET) { // the user may have no rights on Secrets otherwise
                client.secrets().inNamespace(namespace).withLabels(labels).withPropagationPolicy(DeletionPropagation.BACKGROUND).delete();
            } else if (keeperToken == KeeperToken.NAMED_SECRET) {
                if (objectName == null) {
                    tokenSecret.removeExperiment(experimentId);
                } else {
                    tokenSecret.remove(List.of(objectName));
                }
            }
        } catch (KubernetesClientException e) {
            LOG.warn("experiment {}: deleting {} {} failed: {}", experimentId, kind.type().plural(), labels, Messages.of(e));
        }
    }

    /**
     * Finds the job of an environment an earlier session started, from its name, as the watch has
     * listed it: taken back while it has not ended.
     */
    @Override
    public Optional<LaunchedEnvironment> reattach(String environmentId, String handle) {
        if (handle == null || handle.isBlank()) {
            return Optional.empty();
        }
        Optional<GenericKubernetesResource> job = watch.job(handle);
        if (job.isEmpty()) {
            LOG.info("experiment {}: {} {} of environment {} is gone", experimentId, kind.type().kind(), handle, environmentId);
            return Optional.empty();
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> json = client.getKubernetesSerialization().convertValue(job.get(), Map.class);
        if (kind.state(json).phase().isTerminal()) {
            LOG.info("experiment {}: {} {} of environment {} has ended", experimentId, kind.type().kind(), handle, environmentId);
            return Optional.empty();
        }
        Map<String, String> labels = job.get().getMetadata().getLabels();
        boolean perTrial = labels != null && labels.containsKey("trialId");
        KubernetesEnvironment environment = environment(environmentId, handle, NniObjects.labels(experimentId, perTrial, environmentId),
                (state, message) -> { });
        synchronized (lock) {
            if (closed) {
                return Optional.empty();
            }
            byName.put(handle, environment);
            byId.put(environmentId, environment);
        }
        for (Pod pod : watch.pods()) {
            if (environmentOf(pod) == environment) {
                environment.podChanged(pod);
            }
        }
        LOG.info("experiment {}: {} {} of environment {} found again", experimentId, kind.type().kind(), handle, environmentId);
        return Optional.of(environment);
    }

    /**
     * Lets go of every environment without deleting anything: the watch and the connection end,
     * jobs and keepers keep running.
     */
    @Override
    public void detach() {
        List<KubernetesEnvironment> all;
        synchronized (lock) {
            closed = true;
            all = new ArrayList<>(byName.values());
        }
        all.forEach(KubernetesEnvironment::detach);
        executor.shutdownNow();
        watch.close();
        cluster.close();
    }

    /**
     * Deletes everything the experiment created in the cluster (its jobs, their Secrets, what the
     * kind created for the experiment), ends the environments still live, and lets go of the
     * cluster and the share.
     */
    @Override
    public void close() {
        List<KubernetesEnvironment> all;
        synchronized (lock) {
            closed = true;
            all = new ArrayList<>(byName.values());
        }
        executor.shutdown();
        try {
            executor.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        all.forEach(KubernetesEnvironment::requestStop);
        deleteQuietly(NniObjects.experimentLabels(experimentId), null);
        kind.closeExperiment(client, namespace, experimentId);
        for (KubernetesEnvironment environment : all) {
            environment.end("the experiment closed; " + kind.type().kind() + " " + environment.name + " deleted");
        }
        watch.close();
        cluster.close();
        if (share != null) {
            share.release().forEach(problem -> LOG.warn("experiment {}: {}", experimentId, problem));
        }
        if (channelShare != null) {
            channelShare.release().forEach(problem -> LOG.warn("experiment {}: {}", experimentId, problem));
        }
    }

    /** A new environment's handle: what the trials show of it, and its stop (a label-selector delete). */
    private KubernetesEnvironment environment(String id, String name, Map<String, String> labels, EnvironmentListener listener) {
        Map<String, String> attributes = new LinkedHashMap<>(kind.attributes());
        attributes.put("object", name);
        attributes.put("namespace", namespace);
        attributes.put("keeper", keeperChoice);
        String url = share != null ? share.url(experimentId, id) : "k8s://" + namespace + "/" + kind.type().plural() + "/" + name;
        return new KubernetesEnvironment(id, name, labels, listener, attributes, url, () -> deleteLater(labels, name, 0));
    }
}
