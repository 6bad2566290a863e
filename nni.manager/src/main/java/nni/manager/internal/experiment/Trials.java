package nni.manager.internal.experiment;

import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntFunction;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import nni.api.model.HyperParameters;
import nni.api.model.TrialJob;
import nni.api.model.TrialStatus;
import nni.store.ExperimentStore;
import nni.store.TrialPlatformRecord;
import nni.store.TrialRecord;

/**
 * An experiment's trials in memory and the read model built from them: what the REST API, the
 * commands and the web UI read ({@link #views}, {@link #summaries}, {@link #counts}), from any
 * thread, while the experiment's thread changes them. Loaded from the store when an experiment is
 * reopened.
 */
final class Trials {

    private static final Logger LOG = LoggerFactory.getLogger(Trials.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Map<String, Trial> byId = new ConcurrentHashMap<>();
    /** The platform name of each member, by its position in {@code trainingService}. */
    private final IntFunction<String> platformOf;

    Trials(IntFunction<String> platformOf) {
        this.platformOf = platformOf;
    }

    void add(Trial trial) {
        byId.put(trial.id, trial);
    }

    Trial get(String trialId) {
        return byId.get(trialId);
    }

    boolean contains(String trialId) {
        return byId.containsKey(trialId);
    }

    int size() {
        return byId.size();
    }

    /** @return the trials in sequence order */
    List<Trial> ordered() {
        return byId.values().stream().sorted(Comparator.comparingLong((Trial t) -> t.sequenceId)).toList();
    }

    /** @return the trials that have not ended */
    List<Trial> live() {
        List<Trial> live = new ArrayList<>();
        for (Trial trial : byId.values()) {
            if (trial.live()) {
                live.add(trial);
            }
        }
        return live;
    }

    /** @return how many trials have not ended on member {@code member} */
    int liveOn(int member) {
        int count = 0;
        for (Trial trial : byId.values()) {
            if (trial.member == member && trial.live()) {
                count++;
            }
        }
        return count;
    }

    // ------------------------------------------------------------------ the read model

    /** @return the trials in sequence order, as the experiment sees them now */
    List<TrialView> views() {
        return ordered().stream().map(this::view).toList();
    }

    Optional<TrialView> view(String trialId) {
        Trial trial = byId.get(trialId);
        return trial == null ? Optional.empty() : Optional.of(view(trial));
    }

    private TrialView view(Trial t) {
        return new TrialView(t.job, t.sequenceId, t.packed, t.finalValue, t.intermediate.toList(), platformOf.apply(t.member));
    }

    /** @return the trials in sequence order, their intermediate results counted and not copied */
    List<TrialSummary> summaries() {
        List<Trial> ordered = ordered();
        List<TrialSummary> summaries = new ArrayList<>(ordered.size());
        for (Trial t : ordered) {
            Double latest;
            int count;
            synchronized (t.intermediate) {
                count = t.intermediate.size();
                latest = t.intermediate.latest();
            }
            summaries.add(new TrialSummary(t.job, t.sequenceId, Collections.unmodifiableMap(t.parameters), t.finalValue,
                    latest, count, platformOf.apply(t.member)));
        }
        return summaries;
    }

    /** @return counts of trials by status, every status present */
    Map<TrialStatus, Integer> counts() {
        Map<TrialStatus, Integer> counts = new LinkedHashMap<>();
        for (TrialStatus s : TrialStatus.values()) {
            counts.put(s, 0);
        }
        for (Trial trial : byId.values()) {
            counts.merge(trial.job.status(), 1, Integer::sum);
        }
        return counts;
    }

    // ------------------------------------------------------------------ history

    /**
     * Loads the trials and their results of a reopened experiment, each on the member it was
     * placed on ({@link ExperimentStore#trialMembers}; member 0 when the store does not say, or names
     * a member the definition no longer has).
     *
     * @param members how many members the experiment has
     * @return the highest sequence id stored, or -1
     */
    long load(ExperimentStore store, String experimentId, Path directory, int members) {
        long maxSequence = -1;
        Map<String, TrialPlatformRecord> platformFacts = store.trialPlatforms();
        Map<String, Integer> placed = store.trialMembers();
        Set<String> launched = store.launchedTrials();
        for (TrialRecord record : store.trials()) {
            Trial trial = trialOf(record, platformFacts.get(record.id()), experimentId, directory);
            // a trial stored RUNNING was launched, even by a version that did not record launches
            trial.launched = launched.contains(record.id()) || !"WAITING".equals(record.status());
            int member = placed.getOrDefault(record.id(), 0);
            trial.member = member < members ? member : 0;
            add(trial);
            maxSequence = Math.max(maxSequence, trial.sequenceId);
        }
        store.forEachMetric(metric -> {
            Trial trial = byId.get(metric.trialJobId());
            Double value = trial == null ? null : MetricIntake.storedNumber(metric.data());
            if (value != null) {
                if ("FINAL".equals(metric.type())) {
                    trial.finalValue = value;
                } else if ("PERIODICAL".equals(metric.type())) {
                    trial.intermediate.add(value);
                }
            }
        });
        return maxSequence;
    }

    /** A trial's packed parameters read: the algorithm's id for them and the parameters a trial sees. */
    record Unpacked(Object parameterId, Map<String, Object> parameters) {
    }

    static Unpacked unpack(String experimentId, String trialId, String packed) {
        try {
            JsonNode node = JSON.readTree(packed);
            Object parameterId = JSON.treeToValue(node.get("parameter_id"), Object.class);
            Map<String, Object> parameters = node.get("parameters") != null && node.get("parameters").isObject()
                    ? JSON.convertValue(node.get("parameters"), new TypeReference<Map<String, Object>>() { }) : Map.of();
            return new Unpacked(parameterId, parameters);
        } catch (JsonProcessingException | RuntimeException e) {
            LOG.warn("experiment {}: trial {} has unreadable parameters: {}", experimentId, trialId, e.getMessage());
            return new Unpacked(null, Map.of());
        }
    }

    private static Trial trialOf(TrialRecord record, TrialPlatformRecord facts, String experimentId, Path directory) {
        String packed = record.parameters() == null ? "{}" : record.parameters();
        Unpacked unpacked = unpack(experimentId, record.id(), packed);
        Trial trial = new Trial(record.id(), record.sequenceId() == null ? -1 : record.sequenceId(), unpacked.parameterId(),
                unpacked.parameters(), packed);
        TrialStatus trialStatus = TrialStatus.valueOf(record.status());
        Instant submit = Instant.ofEpochMilli(record.submitTime() == null ? 0 : record.submitTime());
        TrialJob.Builder job = TrialJob.builder(record.id()).sequenceId(trial.sequenceId).status(trialStatus).submitTime(submit)
                .startTime(record.startTime() == null ? null : Instant.ofEpochMilli(record.startTime()))
                .endTime(record.endTime() == null ? null : Instant.ofEpochMilli(record.endTime()))
                .workingDirectory(directory.resolve("trials").resolve(record.id()).toString()).url(record.logPath())
                .hyperParameters(HyperParameters.of(packed, 0)).earlyStopped(trialStatus == TrialStatus.EARLY_STOPPED)
                .message(record.message());
        if (facts != null) {
            job.handle(facts.handle()).host(facts.host()).attributes(facts.attributes());
        }
        trial.job = job.build();
        return trial;
    }
}
