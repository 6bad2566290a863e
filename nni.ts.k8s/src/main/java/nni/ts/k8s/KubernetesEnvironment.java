package nni.ts.k8s;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import io.fabric8.kubernetes.api.model.Pod;

import nni.api.environment.EnvironmentListener;
import nni.api.environment.EnvironmentState;
import nni.api.environment.LaunchedEnvironment;

/**
 * One environment of a {@link KubernetesLauncher}: its job, what its pods say (the least advanced
 * pod's progress is what the waiting trials are told), why one failed, whether nni-osgi asked for
 * its deletion, its end. Watch events arrive on the informers' threads; state is guarded by this.
 */
final class KubernetesEnvironment implements LaunchedEnvironment {
    final String id;
    final String name;
    final Map<String, String> labels;
    private final EnvironmentListener listener;
    private final Map<String, String> attributes;
    private final String url;
    private final Runnable deleteJob;
    private final CompletableFuture<String> ended = new CompletableFuture<>();
    private final Map<String, PodProgress> pods = new LinkedHashMap<>();
    private String failure;
    private String host = "";
    private EnvironmentState reportedState;
    private String reportedMessage;
    private boolean stopRequested;
    private boolean deleteWhenEnded;
    private volatile boolean detached;

    /**
     * @param attributes what the trials show of where they run
     * @param url        where the environment's files are
     * @param deleteJob  deletes the environment's objects (a label-selector delete, not on the caller's thread)
     */
    KubernetesEnvironment(String id, String name, Map<String, String> labels, EnvironmentListener listener,
                          Map<String, String> attributes, String url, Runnable deleteJob) {
        this.id = id;
        this.name = name;
        this.labels = labels;
        this.listener = listener;
        this.attributes = Collections.unmodifiableMap(new LinkedHashMap<>(attributes));
        this.url = url;
        this.deleteJob = deleteJob;
    }

    boolean isOver() {
        return ended.isDone() || detached;
    }

    /** Tells the listener, unless it was told that already or the environment is over. */
    void progress(EnvironmentState state, String message) {
        synchronized (this) {
            if (isOver() || state == reportedState && message.equals(reportedMessage)) {
                return;
            }
            reportedState = state;
            reportedMessage = message;
        }
        listener.stateChanged(state, message);
    }

    /** @return the pod's progress; the environment's (its least advanced pod's) is reported */
    PodProgress podChanged(Pod pod) {
        PodProgress progress = PodProgress.of(pod);
        PodProgress least = null;
        synchronized (this) {
            String podFailure = PodProgress.failure(pod);
            if (podFailure != null && failure == null) {
                failure = podFailure;
            }
            if (pod.getSpec() != null && pod.getSpec().getNodeName() != null && host.isEmpty()) {
                host = pod.getSpec().getNodeName();
            }
            if (progress == null) {
                pods.remove(pod.getMetadata().getName());
            } else {
                pods.put(pod.getMetadata().getName(), progress);
            }
            for (PodProgress each : pods.values()) {
                if (least == null || each.state().ordinal() < least.state().ordinal()) {
                    least = each;
                }
            }
        }
        if (least != null) {
            progress(least.state(), least.message());
        }
        return progress;
    }

    synchronized void podDeleted(Pod pod) {
        pods.remove(pod.getMetadata().getName());
    }

    synchronized String podFailure() {
        return failure;
    }

    synchronized boolean stopRequested() {
        return stopRequested;
    }

    synchronized void requestStop() {
        stopRequested = true;
    }

    synchronized void markDeleteWhenEnded() {
        deleteWhenEnded = true;
    }

    synchronized boolean deleteWhenEnded() {
        return deleteWhenEnded;
    }

    void end(String why) {
        if (!detached) {
            ended.complete(why);
        }
    }

    @Override
    public CompletionStage<String> ended() {
        return ended;
    }

    @Override
    public void stop() {
        if (ended.isDone()) {
            return;
        }
        requestStop();
        deleteJob.run();
    }

    @Override
    public void detach() {
        detached = true;
    }

    @Override
    public String handle() {
        return name;
    }

    @Override
    public synchronized String host() {
        return host;
    }

    @Override
    public Map<String, String> attributes() {
        return attributes;
    }

    @Override
    public String url() {
        return url;
    }
}
