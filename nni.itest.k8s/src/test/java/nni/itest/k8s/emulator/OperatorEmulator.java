package nni.itest.k8s.emulator;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import java.util.logging.Level;
import java.util.logging.Logger;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;

/**
 * The operators NNI's Kubernetes platforms rely on, emulated on the mock API server: the Kubeflow
 * training operator (TFJob, PyTorchJob), FrameworkController (Framework) and AdaptDL's controller
 * (AdaptDLJob). Like the real ones it watches their custom resources (informers in every namespace),
 * creates each job's pods from its templates with the labels, names and environment that operator
 * gives them, has them run by the {@link Kubelet} as local processes, and writes the job's status the
 * way that operator does (conditions; state and completion status; phase; timestamps). A job that is
 * deleted has its pods and the objects it owns deleted (garbage collection), their processes killed.
 *
 * <p>All reactions run on one thread, in the order the events came.
 */
public final class OperatorEmulator implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(OperatorEmulator.class.getName());

    static final ResourceDefinitionContext TFJOB = context("kubeflow.org", "v1", "TFJob", "tfjobs");
    static final ResourceDefinitionContext PYTORCHJOB = context("kubeflow.org", "v1", "PyTorchJob", "pytorchjobs");
    static final ResourceDefinitionContext FRAMEWORK = context("frameworkcontroller.microsoft.com", "v1", "Framework", "frameworks");
    static final ResourceDefinitionContext ADAPTDLJOB = context("adaptdl.petuum.com", "v1", "AdaptDLJob", "adaptdljobs");

    /** One job under an operator's control. */
    interface Controller {
        /** The job was seen for the first time. */
        void start(GenericKubernetesResource job);

        /** One of its pods changed (on the kubelet's write). */
        void podChanged(Pod pod);
    }

    final KubernetesClient client;
    final ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread thread = new Thread(r, "operator-emulator");
        thread.setDaemon(true);
        return thread;
    });
    final Kubelet kubelet;
    private final Set<String> unpullable = ConcurrentHashMap.newKeySet();
    private final Map<String, Controller> controllers = new ConcurrentHashMap<>();
    private final List<SharedIndexInformer<GenericKubernetesResource>> informers = new ArrayList<>();
    private final List<String> failures = new CopyOnWriteArrayList<>();
    private volatile int adaptdlReplicas = 1;

    /**
     * @param client the operators' client (all namespaces)
     * @param root   the emulator's own folder (pods, volumes)
     * @param share  the folder every NFS volume is
     * @param grace  between SIGTERM and SIGKILL when a pod is deleted
     */
    public OperatorEmulator(KubernetesClient client, Path root, Path share, Duration grace) {
        this.client = client;
        this.kubelet = new Kubelet(client, root, share, executor, unpullable, grace);
        watch(TFJOB, job -> new TrainingOperatorEmulator(this, job, TFJOB));
        watch(PYTORCHJOB, job -> new TrainingOperatorEmulator(this, job, PYTORCHJOB));
        watch(FRAMEWORK, job -> new FrameworkControllerEmulator(this, job));
        watch(ADAPTDLJOB, job -> new AdaptdlControllerEmulator(this, job, adaptdlReplicas));
    }

    private static ResourceDefinitionContext context(String group, String version, String kind, String plural) {
        return new ResourceDefinitionContext.Builder().withGroup(group).withVersion(version).withKind(kind).withPlural(plural)
                .withNamespaced(true).build();
    }

    private void watch(ResourceDefinitionContext type, java.util.function.Function<GenericKubernetesResource, Controller> create) {
        SharedIndexInformer<GenericKubernetesResource> informer = client.genericKubernetesResources(type).inAnyNamespace()
                .inform(new ResourceEventHandler<>() {
                    @Override
                    public void onAdd(GenericKubernetesResource job) {
                        executor.execute(guarded(() -> {
                            String uid = job.getMetadata().getUid();
                            if (!controllers.containsKey(uid)) {
                                Controller controller = create.apply(job);
                                controllers.put(uid, controller);
                                controller.start(job);
                            }
                        }));
                    }

                    @Override
                    public void onUpdate(GenericKubernetesResource before, GenericKubernetesResource job) {
                        // the emulator's own status writes: nothing to do
                    }

                    @Override
                    public void onDelete(GenericKubernetesResource job, boolean finalStateUnknown) {
                        executor.execute(guarded(() -> collect(job)));
                    }
                });
        informers.add(informer);
    }

    /**
     * Runs every pod started from now on cut off from this machine's network, as pods of a cluster
     * that cannot reach the manager: in a network namespace of its own, a recorder on the manager's
     * port ({@link nni.itest.cloud.emulator.TaskProcess.Isolation}).
     */
    public void isolatePods(nni.itest.cloud.emulator.TaskProcess.Isolation isolation) {
        kubelet.isolation = isolation;
    }

    /** Lets the node mount {@code azureFile} volumes (without, a pod with one fails the emulator). */
    public void azureFiles(AzureFileMounts mounts) {
        kubelet.azureFiles = mounts;
    }

    /** Pods created with {@code replicas} replicas by AdaptDL's allocator from now on (default 1). */
    public void adaptdlReplicas(int replicas) {
        this.adaptdlReplicas = replicas;
    }

    /** While paused, new pods are not scheduled (Pending, Unschedulable); resuming schedules them. */
    public void pauseScheduling(boolean pause) {
        kubelet.pauseScheduling(pause);
    }

    /** Pulling this image fails, as for an image that does not exist. */
    public void unpullable(String image) {
        unpullable.add(image);
    }

    /** @return what went wrong inside the emulator (a test asserts it is empty) */
    public List<String> failures() {
        return List.copyOf(failures);
    }

    Runnable guarded(Runnable task) {
        return () -> {
            try {
                task.run();
            } catch (RuntimeException e) {
                LOG.log(Level.WARNING, "emulator task failed", e);
                failures.add(e.toString());
            }
        };
    }

    /** Garbage collection: the job's pods (their processes killed) and the objects it owns are deleted. */
    private void collect(GenericKubernetesResource job) {
        String uid = job.getMetadata().getUid();
        controllers.remove(uid);
        String namespace = job.getMetadata().getNamespace();
        for (Pod pod : client.pods().inNamespace(namespace).list().getItems()) {
            if (ownedBy(pod, uid)) {
                kubelet.kill(namespace, pod.getMetadata().getName());
                client.pods().inNamespace(namespace).withName(pod.getMetadata().getName()).delete();
            }
        }
        for (HasMetadata owned : client.configMaps().inNamespace(namespace).list().getItems()) {
            if (ownedBy(owned, uid)) {
                client.configMaps().inNamespace(namespace).withName(owned.getMetadata().getName()).delete();
            }
        }
        for (HasMetadata owned : client.persistentVolumeClaims().inNamespace(namespace).list().getItems()) {
            if (ownedBy(owned, uid)) {
                client.persistentVolumeClaims().inNamespace(namespace).withName(owned.getMetadata().getName()).delete();
            }
        }
    }

    private static boolean ownedBy(HasMetadata object, String uid) {
        List<OwnerReference> owners = object.getMetadata().getOwnerReferences();
        return owners != null && owners.stream().anyMatch(o -> uid.equals(o.getUid()));
    }

    /**
     * Creates a pod of {@code job} from a pod template, as the operators do: the template's labels
     * and annotations plus the operator's, owned by the job, then hands it to the kubelet.
     */
    @SuppressWarnings("unchecked")
    Pod createPod(GenericKubernetesResource job, Map<String, Object> template, String name, Map<String, String> labels,
                  Map<String, String> annotations, String restartPolicy, String hostname, Map<String, String> environment,
                  Controller controller) {
        PodTemplateSpec spec = client.getKubernetesSerialization().convertValue(template, PodTemplateSpec.class);
        Pod pod = new Pod();
        pod.setApiVersion("v1");
        pod.setKind("Pod");
        pod.setMetadata(spec.getMetadata() == null ? new io.fabric8.kubernetes.api.model.ObjectMeta() : spec.getMetadata());
        pod.getMetadata().setName(name);
        pod.getMetadata().setNamespace(job.getMetadata().getNamespace());
        Map<String, String> allLabels = new LinkedHashMap<>(pod.getMetadata().getLabels() == null ? Map.of() : pod.getMetadata().getLabels());
        allLabels.putAll(labels);
        pod.getMetadata().setLabels(allLabels);
        Map<String, String> allAnnotations = new LinkedHashMap<>(pod.getMetadata().getAnnotations() == null ? Map.of()
                : pod.getMetadata().getAnnotations());
        allAnnotations.putAll(annotations);
        pod.getMetadata().setAnnotations(allAnnotations);
        pod.getMetadata().setOwnerReferences(List.of(new OwnerReferenceBuilder().withApiVersion(job.getApiVersion()).withKind(job.getKind())
                .withName(job.getMetadata().getName()).withUid(job.getMetadata().getUid()).withController(true).build()));
        pod.setSpec(spec.getSpec());
        if (restartPolicy != null) {
            pod.getSpec().setRestartPolicy(restartPolicy);
        }
        if (hostname != null) {
            pod.getSpec().setHostname(hostname);
        }
        Pod created = client.pods().inNamespace(job.getMetadata().getNamespace()).resource(pod).create();
        kubelet.run(created, environment, changed -> controller.podChanged(changed));
        return created;
    }

    /** Writes a job's status the way its operator does: through the status subresource, or (no subresource) the whole object. */
    @SuppressWarnings("unchecked")
    void writeStatus(ResourceDefinitionContext type, GenericKubernetesResource job, boolean subresource,
                     UnaryOperator<Map<String, Object>> change) {
        var resource = client.genericKubernetesResources(type).inNamespace(job.getMetadata().getNamespace()).withName(job.getMetadata().getName());
        UnaryOperator<GenericKubernetesResource> edit = current -> {
            Map<String, Object> status = current.getAdditionalProperties().get("status") instanceof Map<?, ?> s
                    ? new LinkedHashMap<>((Map<String, Object>) s) : new LinkedHashMap<>();
            current.getAdditionalProperties().put("status", change.apply(status));
            return current;
        };
        if (resource.get() == null) {
            return; // deleted meanwhile
        }
        if (subresource) {
            resource.editStatus(edit);
        } else {
            resource.edit(edit);
        }
    }

    /** Runs {@code task} on the emulator's thread after {@code millis}. */
    void later(long millis, Runnable task) {
        executor.schedule(guarded(task), millis, TimeUnit.MILLISECONDS);
    }

    @Override
    public void close() {
        informers.forEach(SharedIndexInformer::stop);
        kubelet.close();
        executor.shutdownNow();
    }
}
