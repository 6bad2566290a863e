package nni.manager.internal.experiment;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import nni.api.model.TrialJob;
import nni.api.platform.SessionContext;

/**
 * The context one member of an experiment (one training service, or one of a list of them) hands
 * its platform session: the member's platform and section; trial states go to the experiment's
 * {@link TrialReports}, which tells members apart by this context's index, and metric lines to its
 * {@link MetricIntake}: this is the one hop between a platform and the code that handles them.
 */
public final class MemberContext implements SessionContext {

    private final Experiment experiment;
    private final TrialReports reports;
    private final MetricIntake intake;
    private final int index;

    MemberContext(Experiment experiment, TrialReports reports, MetricIntake intake, int index) {
        this.experiment = experiment;
        this.reports = reports;
        this.intake = intake;
        this.index = index;
    }

    Experiment experiment() {
        return experiment;
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
        reports.reportedBy(index, trial);
    }

    @Override
    public void metricReported(String trialId, String line) {
        intake.reported(trialId, line);
    }

    @Override
    public void metricsReported(String trialId, List<String> lines) {
        intake.reported(trialId, lines);
    }

    @Override
    public void capacityChanged() {
        experiment.capacityChanged();
    }

    @Override
    public String toString() {
        return "member " + index + " (" + platform() + ") of experiment " + experiment.id();
    }
}
