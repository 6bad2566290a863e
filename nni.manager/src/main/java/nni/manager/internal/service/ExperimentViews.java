package nni.manager.internal.service;

import java.time.Instant;
import java.util.Optional;

import nni.api.experiment.ExperimentInfo;
import nni.api.experiment.MetricInfo;
import nni.api.experiment.TrialInfo;
import nni.manager.internal.config.ExperimentConfig;
import nni.manager.internal.experiment.Experiment;
import nni.manager.internal.experiment.TrialView;
import nni.manager.internal.store.MetricRecord;

/** The engine's objects as the exported read-only views: copies taken at one moment. */
final class ExperimentViews {

    private ExperimentViews() {
    }

    /** Reads only fields the experiment publishes as they change: safe on its own thread and any other. */
    static ExperimentInfo of(Experiment experiment) {
        ExperimentConfig config = experiment.config();
        return ExperimentInfo.builder(experiment.id())
                .status(experiment.status().name())
                .directory(experiment.directory())
                .readOnly(experiment.readOnly())
                .startTime(Instant.ofEpochMilli(experiment.startTime()))
                .endTime(Optional.ofNullable(experiment.endTime()).map(Instant::ofEpochMilli).orElse(null))
                .trialConcurrency(config.trialConcurrency())
                .maxTrialNumber(config.maxTrialNumber())
                .maxExperimentDuration(config.maxExperimentDuration())
                .trialCount(experiment.counts().values().stream().mapToInt(Integer::intValue).sum())
                .errors(experiment.errors())
                .name(config.experimentName())
                .platform(config.trainingServices().size() > 1 ? "hybrid" : config.platform())
                .build();
    }

    static TrialInfo of(String experimentId, TrialView trial) {
        return TrialInfo.builder(experimentId, trial.job())
                .finalValue(trial.finalValue())
                .intermediate(trial.intermediate())
                .platform(trial.platform())
                .build();
    }

    static MetricInfo of(MetricRecord metric) {
        return MetricInfo.builder(metric.trialJobId())
                .type(metric.type())
                .sequence(metric.sequence())
                .timestamp(Instant.ofEpochMilli(metric.timestamp()))
                .data(metric.data())
                .build();
    }
}
