package nni.manager.internal.service;

import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Predicate;

import nni.config.GivenConfig;
import nni.api.experiment.ExperimentInfo;
import nni.api.experiment.ExperimentMember;
import nni.api.experiment.ExperimentProfile;
import nni.api.experiment.ExperimentSummary;
import nni.api.experiment.GivenConfigFile;
import nni.api.experiment.MetricInfo;
import nni.api.experiment.ExperimentReading;
import nni.api.experiment.ExperimentService;
import nni.api.experiment.Outcome;
import nni.api.experiment.Refusal;
import nni.api.experiment.TrialEvent;
import nni.api.experiment.TrialInfo;
import nni.api.experiment.TrialSummary;
import nni.manager.internal.experiment.Experiment;
import nni.manager.internal.experiment.TrialFiles;

/**
 * {@link ExperimentReading} over the engine's experiment: the open one, or a read-only copy of a
 * stored one that this reading owns and stops when closed.
 */
public final class EngineReading implements ExperimentReading {

    private final Experiment experiment;
    private final boolean copy;
    /** whether the experiment is the one open under its id now */
    private final Predicate<Experiment> isOpen;

    EngineReading(Experiment experiment, boolean copy, Predicate<Experiment> isOpen) {
        this.experiment = experiment;
        this.copy = copy;
        this.isOpen = isOpen;
    }

    @Override
    public ExperimentInfo info() {
        return ExperimentViews.of(experiment);
    }

    @Override
    public ExperimentSummary summary() {
        return ExperimentViews.summary(experiment);
    }

    @Override
    public List<ExperimentMember> members() {
        if (copy || experiment.readOnly()) {
            return List.of();
        }
        return experiment.members().stream().map(ExperimentViews::member).toList();
    }

    @Override
    public boolean open() {
        return !copy && isOpen.test(experiment);
    }

    @Override
    public List<TrialSummary> trialSummaries() {
        return experiment.summaries().stream().map(trial -> ExperimentViews.of(experiment, trial)).toList();
    }

    @Override
    public List<TrialEvent> trialEvents() {
        return experiment.store().events().stream().map(ExperimentViews::of).toList();
    }

    @Override
    public Optional<TrialInfo> trial(String trialId) {
        return experiment.trial(trialId).map(trial -> ExperimentViews.of(experiment, trial));
    }

    @Override
    public Map<String, Object> searchSpace() {
        return experiment.config().searchSpace();
    }

    @Override
    public ExperimentProfile profile() {
        return ExperimentViews.profile(experiment);
    }

    @Override
    public Optional<GivenConfigFile> givenConfig() throws IOException {
        return GivenConfig.stored(experiment.directory())
                .map(given -> GivenConfigFile.builder(given.fileName(), given.text()).build());
    }

    @Override
    public void forEachMetric(Consumer<? super MetricInfo> action) {
        experiment.store().forEachMetric(metric -> action.accept(ExperimentViews.of(metric)));
    }

    @Override
    public Outcome<Optional<InputStream>> openTrialFile(String trialId, String name) throws IOException {
        if (experiment.trial(trialId).isEmpty()) {
            return Outcome.refused(Refusal.notFound("experiment " + experiment.id() + " has no trial " + trialId));
        }
        if (!ExperimentService.TRIAL_FILES.contains(name)) {
            return Outcome.refused(Refusal.invalid("name", "a trial's files here are "
                    + String.join(", ", ExperimentService.TRIAL_FILES) + "; no " + name));
        }
        return Outcome.done(TrialFiles.open(experiment, trialId, name));
    }

    @Override
    public void close() {
        if (copy) {
            experiment.stop(Duration.ZERO);
        }
    }

    @Override
    public String toString() {
        return (copy ? "a stored copy of " : "") + experiment;
    }
}
