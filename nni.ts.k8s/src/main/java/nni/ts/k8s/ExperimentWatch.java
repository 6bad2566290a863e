package nni.ts.k8s;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;

import nni.api.platform.PlatformException;

/**
 * One experiment's view of its objects: an informer (list, then watch from the list's
 * resourceVersion) on the experiment's jobs of one kind and one on their pods, both selected by the
 * experiment's labels. A watch that drops is re-established from the last resourceVersion seen;
 * when the server no longer has that version (HTTP 410) the informer lists again and reports
 * objects that changed or disappeared meanwhile, so no final state is missed. Events of one object
 * arrive in order, on the informer's thread.
 */
final class ExperimentWatch implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ExperimentWatch.class);
    private static final long START_TIMEOUT_SECONDS = 30;

    /** What the watch reports; called on the informers' threads. */
    interface Listener {
        void jobChanged(GenericKubernetesResource job);

        void jobDeleted(GenericKubernetesResource job);

        void podChanged(Pod pod);

        void podDeleted(Pod pod);
    }

    private final String namespace;
    private final SharedIndexInformer<GenericKubernetesResource> jobs;
    private final SharedIndexInformer<Pod> pods;

    /**
     * Starts both informers and waits until they have listed what exists.
     *
     * @throws PlatformException when the first listing fails
     */
    ExperimentWatch(KubernetesClient client, String namespace, CustomResourceType type, String experimentId, Listener listener,
                    Cluster cluster) throws PlatformException {
        this.namespace = namespace;
        Map<String, String> labels = NniObjects.experimentLabels(experimentId);
        jobs = client.genericKubernetesResources(type.context()).inNamespace(namespace).withLabels(labels).runnableInformer(0);
        pods = client.pods().inNamespace(namespace).withLabels(labels).runnableInformer(0);
        jobs.exceptionHandler((started, failure) -> retry("the watch on " + type.plural(), started, failure));
        pods.exceptionHandler((started, failure) -> retry("the watch on pods", started, failure));
        jobs.addEventHandler(new ResourceEventHandler<>() {
            @Override
            public void onAdd(GenericKubernetesResource job) {
                guarded(() -> listener.jobChanged(job));
            }

            @Override
            public void onUpdate(GenericKubernetesResource before, GenericKubernetesResource job) {
                guarded(() -> listener.jobChanged(job));
            }

            @Override
            public void onDelete(GenericKubernetesResource job, boolean finalStateUnknown) {
                guarded(() -> listener.jobDeleted(job));
            }
        });
        pods.addEventHandler(new ResourceEventHandler<>() {
            @Override
            public void onAdd(Pod pod) {
                guarded(() -> listener.podChanged(pod));
            }

            @Override
            public void onUpdate(Pod before, Pod pod) {
                guarded(() -> listener.podChanged(pod));
            }

            @Override
            public void onDelete(Pod pod, boolean finalStateUnknown) {
                guarded(() -> listener.podDeleted(pod));
            }
        });
        try {
            jobs.start().toCompletableFuture().get(START_TIMEOUT_SECONDS, TimeUnit.SECONDS);
            pods.start().toCompletableFuture().get(START_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            close();
            if (e.getCause() instanceof KubernetesClientException k8s) {
                throw cluster.refused(k8s, "watching " + type.plural() + " and pods in namespace '" + namespace + "'");
            }
            throw new PlatformException("cannot watch " + type.plural() + " in namespace '" + namespace + "' of " + cluster.identity()
                    + ": " + Messages.of(e.getCause()), e.getCause());
        } catch (TimeoutException e) {
            close();
            throw new PlatformException("listing " + type.plural() + " in namespace '" + namespace + "' of " + cluster.identity()
                    + " took longer than " + START_TIMEOUT_SECONDS + " s", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            close();
            throw new PlatformException("interrupted while listing " + type.plural(), e);
        }
    }

    /** The informers retry whatever fails once they run: a cluster that is away comes back. */
    private static boolean retry(String what, boolean started, Throwable failure) {
        if (started) {
            LOG.warn("{} failed ({}); it is established again", what, Messages.of(failure));
        }
        return started;
    }

    private static void guarded(Runnable handler) {
        try {
            handler.run();
        } catch (RuntimeException e) {
            LOG.error("handling a Kubernetes event failed", e);
        }
    }

    /** @return the job of that name as last seen, if it exists */
    Optional<GenericKubernetesResource> job(String name) {
        return Optional.ofNullable(jobs.getStore().getByKey(namespace + "/" + name));
    }

    /** @return the pods of the experiment as last seen */
    java.util.List<Pod> pods() {
        return pods.getStore().list();
    }

    @Override
    public void close() {
        jobs.stop();
        pods.stop();
    }
}
