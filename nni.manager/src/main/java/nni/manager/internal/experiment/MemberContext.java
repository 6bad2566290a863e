package nni.manager.internal.experiment;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import nni.api.model.TrialJob;
import nni.api.platform.SessionContext;

/**
 * The context one member of an experiment (one training service; today every experiment has
 * exactly one) hands its platform session: the member's platform and section, and callbacks that
 * forward to the experiment. The experiment is not the context itself, so that an experiment with
 * several members can tell them apart.
 */
public final class MemberContext implements SessionContext {

    private final Experiment experiment;
    private final int index;

    MemberContext(Experiment experiment, int index) {
        this.experiment = experiment;
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
        experiment.trialChanged(index, trial);
    }

    @Override
    public void metricReported(String trialId, String line) {
        experiment.metricReported(trialId, line);
    }

    @Override
    public void metricsReported(String trialId, List<String> lines) {
        experiment.metricsReported(trialId, lines);
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
