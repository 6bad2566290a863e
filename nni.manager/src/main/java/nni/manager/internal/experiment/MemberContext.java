package nni.manager.internal.experiment;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import nni.api.model.TrialJob;
import nni.manager.internal.registry.TrackedContext;

/**
 * The context one member of an experiment (one training service, or one of a list of them) hands
 * its platform session: the member's platform and section; trial states go to the experiment's
 * {@link TrialReports}, which tells members apart by this context's index, and metric lines to its
 * {@link MetricIntake}: this is the one hop between a platform and the code that handles them.
 * Once its session is detached it forwards nothing more ({@link #detached()}); each session of the
 * member gets a context of its own ({@link #forNextSession()}), so a session let go stays silent
 * when the member opens the next.
 */
public final class MemberContext implements TrackedContext {

    private static final Logger LOG = LoggerFactory.getLogger(MemberContext.class);

    private final Experiment experiment;
    private final TrialReports reports;
    private final MetricIntake intake;
    private final int index;
    private volatile String lostReason;
    private volatile boolean detached;

    MemberContext(Experiment experiment, TrialReports reports, MetricIntake intake, int index) {
        this.experiment = experiment;
        this.reports = reports;
        this.intake = intake;
        this.index = index;
    }

    /** @return a context for a new session of the same member, not yet detached */
    MemberContext forNextSession() {
        return new MemberContext(experiment, reports, intake, index);
    }

    /** @return the member's position in {@code trainingService} (0 for a single service) */
    public int index() {
        return index;
    }

    @Override
    public String experimentId() {
        return experiment.id();
    }

    @Override
    public Path experimentDirectory() {
        return experiment.directory();
    }

    @Override
    public String platform() {
        return String.valueOf(section().get("platform"));
    }

    @Override
    public Map<String, Object> section() {
        return experiment.config().trainingServices().get(index);
    }

    @Override
    public void trialChanged(TrialJob trial) {
        if (detached) {
            LOG.debug("experiment {}: {} reported by a detached session, dropped", experiment.id(), trial);
            return;
        }
        reports.reportedBy(index, trial);
    }

    @Override
    public void metricReported(String trialId, String line) {
        requireAttached();
        intake.reported(trialId, line);
    }

    @Override
    public void metricsReported(String trialId, List<String> lines) {
        requireAttached();
        intake.reported(trialId, lines);
    }

    @Override
    public void capacityChanged() {
        if (!detached) {
            experiment.capacityChanged();
        }
    }

    @Override
    public void platformLost(String reason) {
        lostReason = reason;
        experiment.platformLost(index, reason);
    }

    @Override
    public void detached() {
        detached = true;
    }

    private void requireAttached() {
        if (detached) {
            throw new IllegalStateException("the " + platform() + " session of experiment " + experiment.id()
                    + " is detached" + (lostReason == null ? "" : " (" + lostReason + ")"));
        }
    }

    @Override
    public String toString() {
        return "member " + index + " (" + platform() + ") of experiment " + experiment.id();
    }
}
