package nni.manager.internal.ui;

import java.io.InputStream;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import nni.api.model.TrialApplication;
import nni.api.model.TrialJob;
import nni.api.model.TrialStatus;
import nni.api.platform.SessionContext;
import nni.api.platform.TrainingSession;

/**
 * A platform session of the test's own: every trial runs at once and stays RUNNING until the test
 * reports its metrics and ends it through the experiment ({@link #finish}).
 */
final class HeldSession implements TrainingSession {

    private final SessionContext context;
    private final Map<String, TrialJob> trials = new ConcurrentHashMap<>();

    HeldSession(SessionContext context) {
        this.context = context;
    }

    @Override
    public TrialJob submit(TrialApplication application) {
        TrialJob running = TrialJob.waiting(application, "", "").running(Instant.now());
        trials.put(running.id(), running);
        return running;
    }

    /** Reports the trial's intermediate results and final result (null: none), then ends it. */
    void finish(String trialId, List<Double> intermediate, Double result, TrialStatus end) {
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
