package nni.manager.internal.service;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import nni.api.experiment.ExperimentInfo;
import nni.api.experiment.ExperimentMember;
import nni.api.experiment.ExperimentProfile;
import nni.api.experiment.ExperimentSummary;
import nni.api.experiment.MetricInfo;
import nni.api.experiment.TrialDetail;
import nni.api.experiment.TrialInfo;
import nni.api.model.TrialJob;
import nni.api.model.TrialStatus;
import nni.api.platform.TrainingSession;
import nni.config.ExperimentConfig;
import nni.manager.internal.experiment.Experiment;
import nni.manager.internal.experiment.MemberState;
import nni.manager.internal.experiment.Progress;
import nni.manager.internal.experiment.TrialCounts;
import nni.manager.internal.experiment.TrialSummary;
import nni.manager.internal.experiment.TrialView;
import nni.store.ExperimentStore;
import nni.store.MetricRecord;
import nni.store.Profile;
import nni.store.TrialEvent;
import nni.store.TrialRecord;

/** The engine's objects as the exported read-only views: copies taken at one moment. */
final class ExperimentViews {

    private static final ObjectMapper JSON = new ObjectMapper();

    private ExperimentViews() {
    }

    /** Reads only fields the experiment publishes as they change: safe on its own thread and any other. */
    static ExperimentInfo of(Experiment experiment) {
        ExperimentConfig config = experiment.config();
        Map<TrialStatus, Integer> counts = experiment.counts();
        return ExperimentInfo.builder(experiment.id())
                .status(experiment.status().name())
                .settled(experiment.status().settled())
                .directory(experiment.directory())
                .readOnly(experiment.readOnly())
                .startTime(Instant.ofEpochMilli(experiment.startTime()))
                .endTime(Optional.ofNullable(experiment.endTime()).map(Instant::ofEpochMilli).orElse(null))
                .trialConcurrency(config.trialConcurrency())
                .maxTrialNumber(config.maxTrialNumber())
                .maxExperimentDuration(config.maxExperimentDuration())
                .trialCount(counts.values().stream().mapToInt(Integer::intValue).sum())
                .belowStarted(TrialCounts.of(counts, config.maxTrialNumber()).belowStarted().orElse(null))
                .errors(experiment.errors())
                .name(config.experimentName())
                .platform(config.trainingServices().size() > 1 ? "hybrid" : config.platform())
                .maximizing(experiment.maximizing())
                .execDuration(Duration.ofMillis(experiment.execMillis()))
                .waitingForPlatform(experiment.waitingForPlatform().orElse(null))
                .trialsWhenOpened(experiment.trialsWhenOpened())
                .build();
    }

    /** The overview's summary: {@link Progress} as the console's {@code nni:top} computes it, and the configuration as written. */
    static ExperimentSummary summary(Experiment experiment) {
        Progress progress = Progress.of(experiment);
        ExperimentConfig config = experiment.config();
        TrialCounts counts = progress.counts();
        Map<String, Integer> byStatus = new LinkedHashMap<>();
        experiment.counts().forEach((status, count) -> byStatus.put(status.name(), count));
        Object written = config.canonical() == null ? null : config.canonical().get("maxExperimentDuration");
        return ExperimentSummary.builder()
                .configuredPlatform(config.platform())
                .maxExperimentDurationText(config.maxExperimentDuration() != null && written instanceof String text ? text : null)
                .tuner(config.tuner() == null ? null : config.tuner().name())
                .assessor(config.assessor() == null ? null : config.assessor().name())
                .counts(counts.succeeded(), counts.failed(), counts.stoppedEarly(), counts.cancelled(), counts.running(),
                        counts.waiting(), counts.started(), counts.text())
                .maxTrials(counts.maxTrials())
                .belowStarted(counts.belowStarted().orElse(null))
                .byStatus(byStatus)
                .best(progress.best())
                .timeLeft(progress.estimatedLeft())
                .progressLine(progress.line())
                .build();
    }

    /**
     * A member as it is now, its open session's view asked once: a platform's view that throws is
     * kept as its failure, for the member's row alone.
     */
    static ExperimentMember member(MemberState member) {
        ExperimentMember.Builder built = ExperimentMember.builder(member.index(), member.platform());
        Optional<TrainingSession> session = member.session();
        if (session.isEmpty()) {
            return built.state(member.away().isPresent() ? ExperimentMember.State.AWAY : ExperimentMember.State.OPENING)
                    .away(member.away().orElse(null)).build();
        }
        built.state(ExperimentMember.State.OPEN);
        try {
            session.get().view().ifPresent(built::view);
        } catch (RuntimeException e) {
            built.viewFailure(e.toString());
        }
        return built.build();
    }

    static TrialInfo of(Experiment experiment, TrialView trial) {
        return TrialInfo.builder(experiment.id(), trial.job())
                .sequenceId(trial.sequenceId())
                .packedParameters(trial.packed())
                .finalValue(trial.finalValue())
                .intermediate(trial.intermediate())
                .platform(trial.platform())
                .waitingFor(waitingFor(experiment, trial.job()))
                .build();
    }

    static nni.api.experiment.TrialSummary of(Experiment experiment, TrialSummary trial) {
        return nni.api.experiment.TrialSummary.builder(experiment.id(), trial.job())
                .sequenceId(trial.sequenceId())
                .parameters(trial.parameters())
                .finalValue(trial.finalValue())
                .latestValue(trial.latestValue())
                .intermediateCount(trial.intermediateCount())
                .platform(trial.platform())
                .waitingFor(waitingFor(experiment, trial.job()))
                .build();
    }

    /** Only a waiting trial waits for its member's platform: one that runs or ended does not, whatever the member's state. */
    private static String waitingFor(Experiment experiment, TrialJob job) {
        return job.status() == TrialStatus.WAITING ? experiment.waitingForPlatform(job.id()).orElse(null) : null;
    }

    static MetricInfo of(MetricRecord metric) {
        return MetricInfo.builder(metric.trialJobId())
                .type(metric.type())
                .sequence(metric.sequence())
                .timestamp(Instant.ofEpochMilli(metric.timestamp()))
                .data(metric.data())
                .parameterId(metric.parameterId())
                .build();
    }

    static nni.api.experiment.TrialEvent of(TrialEvent event) {
        nni.api.experiment.TrialEvent.Builder view = nni.api.experiment.TrialEvent
                .builder(Instant.ofEpochMilli(event.timestamp()), event.trialId(), event.event())
                .message(event.message());
        if (event.sequenceId() != null) {
            view.sequenceId(event.sequenceId());
        }
        return view.build();
    }

    /** NNI's experiment profile: the configuration masked, the clock, the sequence and the stored revision. */
    static ExperimentProfile profile(Experiment experiment) {
        return ExperimentProfile.builder(experiment.id())
                .params(experiment.config().masked().canonical())
                // whole seconds, as NNI counts them
                .execDuration(Duration.ofSeconds(experiment.execMillis() / 1000))
                .logDir(experiment.directory())
                .startTime(Instant.ofEpochMilli(experiment.startTime()))
                .endTime(Optional.ofNullable(experiment.endTime()).map(Instant::ofEpochMilli).orElse(null))
                .nextSequenceId(experiment.trials().size())
                .revision(experiment.store().latestProfile().map(Profile::revision).orElse(0L))
                .build();
    }

    /** Every stored trial in full, in the order first stored: the store read once for all of them. */
    static List<TrialDetail> details(Experiment experiment) {
        ExperimentStore store = experiment.store();
        Map<String, List<MetricRecord>> finals = new HashMap<>();
        for (MetricRecord metric : store.metrics(null, "FINAL")) {
            finals.computeIfAbsent(metric.trialJobId(), id -> new ArrayList<>()).add(metric);
        }
        Map<String, List<String>> added = store.addedHyperParameters();
        return store.trials().stream().map(trial -> detail(experiment, trial, finals.getOrDefault(trial.id(), List.of()),
                added.getOrDefault(trial.id(), List.of()))).toList();
    }

    /**
     * One stored trial in full, with the platform's current message while it is live (why one
     * waits changes without a status change, so it is not a stored event).
     *
     * @param finals its FINAL metrics
     * @param added  the parameter sets it got while it ran
     */
    static TrialDetail detail(Experiment experiment, TrialRecord trial, List<MetricRecord> finals, List<String> added) {
        Optional<TrialView> view = experiment.trial(trial.id());
        String message = view.map(TrialView::job).filter(job -> !job.status().isTerminal()).map(TrialJob::message)
                .orElse(trial.message());
        String logPath = trial.logPath() != null ? trial.logPath()
                : "file://localhost" + experiment.directory().resolve("trials").resolve(trial.id());
        return TrialDetail.builder(trial.id())
                .sequenceId(trial.sequenceId())
                .status(trial.status())
                .message(message)
                .startTime(Optional.ofNullable(trial.startTime()).map(Instant::ofEpochMilli).orElse(null))
                .endTime(Optional.ofNullable(trial.endTime()).map(Instant::ofEpochMilli).orElse(null))
                .hyperParameters(hyperParameters(trial.parameters(), added))
                .logPath(logPath)
                .finalMetrics(finals.stream().map(ExperimentViews::of).toList())
                .current(view.map(live -> of(experiment, live)).orElse(null))
                .build();
    }

    /**
     * NNI's {@code hyperParameters}: every parameter set the trial got, the first one and those
     * added while it ran (multi-phase), one per {@code parameter_index} (the first given wins), each
     * as compact JSON text as NNI's data store re-serializes them.
     */
    static List<String> hyperParameters(String first, List<String> added) {
        List<String> sets = new ArrayList<>();
        Set<Integer> indices = new HashSet<>();
        for (String packed : first == null ? added : Stream.concat(Stream.of(first), added.stream()).toList()) {
            JsonNode node;
            try {
                node = JSON.readTree(packed);
            } catch (JsonProcessingException e) {
                sets.add(packed); // not JSON (a platform's own record): shown as it is
                continue;
            }
            if (node != null && node.isObject() && indices.add(node.path("parameter_index").asInt(0))) {
                sets.add(node.toString());
            }
        }
        return sets;
    }
}
