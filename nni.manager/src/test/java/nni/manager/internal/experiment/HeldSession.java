package nni.manager.internal.experiment;

import java.io.InputStream;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import nni.api.model.TrialApplication;
import nni.api.model.TrialJob;
import nni.api.model.TrialStatus;
import nni.api.platform.Capacity;
import nni.api.platform.SessionContext;
import nni.api.platform.TrainingSession;

/**
 * A platform session of the test's own: every trial runs at once and stays RUNNING until the test
 * reports its metrics and ends it through the experiment ({@link #finish}). Public for the tests of
 * the web UI's read model in {@code internal.ui}.
 */
public final class HeldSession implements TrainingSession {

    private final SessionContext context;
    private final Map<String, TrialJob> trials = new ConcurrentHashMap<>();
    /** The trial ids submitted here, in order. */
    public final List<String> submitted = new CopyOnWriteArrayList<>();
    /** What {@link #capacity()} tells; unknown unless the test sets it. */
    public volatile Capacity capacity = Capacity.unknown();
    /**
     * How many of the next submits answer with the trial already SUCCEEDED, as a platform does whose
     * trial process exited before its submit returned.
     */
    public volatile int endingInsideSubmit;
    private int running;
    private int mostRunning;

    public HeldSession(SessionContext context) {
        this.context = context;
    }

    public SessionContext context() {
        return context;
    }

    @Override
    public TrialJob submit(TrialApplication application) {
        TrialJob started = TrialJob.waiting(application, "", "").running(Instant.now());
        submitted.add(started.id());
        if (endingInsideSubmit > 0) {
            endingInsideSubmit--;
            TrialJob ended = started.ended(TrialStatus.SUCCEEDED, Instant.now(), "");
            trials.put(ended.id(), ended);
            return ended;
        }
        trials.put(started.id(), started);
        synchronized (this) {
            mostRunning = Math.max(mostRunning, ++running);
        }
        return started;
    }

    /** @return the most trials this session had RUNNING at one time */
    public synchronized int mostRunning() {
        return mostRunning;
    }

    @Override
    public Capacity capacity() {
        return capacity;
    }

    /** Reports the trial's intermediate results and final result (null: none), then ends it. */
    public void finish(String trialId, List<Double> intermediate, Double result, TrialStatus end) {
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < intermediate.size(); i++) {
            lines.add("{\"type\":\"PERIODICAL\",\"sequence\":" + i + ",\"value\":" + intermediate.get(i) + "}");
        }
        if (result != null) {
            lines.add("{\"type\":\"FINAL\",\"sequence\":0,\"value\":" + result + "}");
        }
        if (!lines.isEmpty()) {
            context.metricsReported(trialId, lines);
        }
        TrialJob ended = trials.get(trialId).ended(end, Instant.now(), "");
        trials.put(trialId, ended);
        synchronized (this) {
            running--;
        }
        context.trialChanged(ended);
    }

    @Override
    public void cancel(String trialId, boolean earlyStopped) {
        TrialJob job = trials.get(trialId);
        if (job != null && !job.status().isTerminal()) {
            finish(trialId, List.of(), null, earlyStopped ? TrialStatus.EARLY_STOPPED : TrialStatus.USER_CANCELED);
        }
    }

    @Override
    public Optional<TrialJob> trial(String trialId) {
        return Optional.ofNullable(trials.get(trialId));
    }

    @Override
    public List<TrialJob> trials() {
        return List.copyOf(trials.values());
    }

    @Override
    public Optional<InputStream> openTrialFile(String trialId, String name) {
        return Optional.empty();
    }

    @Override
    public void close() {
        // nothing runs
    }

    @Override
    public void detach() {
        // nothing to let go of
    }
}
