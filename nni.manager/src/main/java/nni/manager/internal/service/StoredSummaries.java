package nni.manager.internal.service;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import nni.api.experiment.ExperimentSummary;
import nni.api.model.TrialStatus;
import nni.manager.internal.experiment.Experiment;
import nni.manager.internal.experiment.TrialCounts;
import nni.store.ExperimentStore;
import nni.store.MetricRecord;
import nni.store.Profile;
import nni.store.TrialRecord;

/**
 * Stored experiments summed up from their databases (read-only), each kept until its database
 * changes, so that a list of experiments refreshed often does not read every store each time.
 * Thread-safe.
 */
final class StoredSummaries {

    /**
     * A stored experiment as its database has it: what an experiment's list entry takes from it
     * (the status it ended with comes from NNI's registry). Every field but the summary may be null.
     */
    record StoredSummary(String name, boolean maximizing, Instant startTime, Instant endTime, Duration execDuration,
                         ExperimentSummary summary) {
    }

    private static final ObjectMapper JSON = new ObjectMapper();

    private record Cached(String stamp, StoredSummary summary) {
    }

    private final Map<String, Cached> summaries = new ConcurrentHashMap<>();

    /** @throws IOException when the database cannot be read */
    StoredSummary of(String id, Path directory) throws IOException {
        String stamp = stamp(directory);
        Cached cached = summaries.get(id);
        if (cached != null && cached.stamp().equals(stamp)) {
            return cached.summary();
        }
        try (ExperimentStore store = ExperimentStore.openReadOnly(directory)) {
            StoredSummary summary = read(store);
            summaries.put(id, new Cached(stamp, summary));
            return summary;
        } catch (RuntimeException e) {
            throw new IOException("experiment " + id + ": cannot read its database: " + e, e);
        }
    }

    /** Forgets an experiment deleted. */
    void forget(String id) {
        summaries.remove(id);
    }

    private static StoredSummary read(ExperimentStore store) {
        Optional<Profile> profile = store.latestProfile();
        JsonNode params = profile.map(p -> parse(p.params())).orElse(JSON.createObjectNode());
        JsonNode service = params.path("trainingService");
        String platform = (service.isArray() ? service.path(0) : service).path("platform").asText(null);
        boolean maximizing = !"minimize".equals(params.path("tuner").path("classArgs").path("optimize_mode").asText(null));
        Map<TrialStatus, Integer> byStatus = new EnumMap<>(TrialStatus.class);
        Map<String, Boolean> succeeded = new LinkedHashMap<>();
        for (TrialRecord trial : store.trials()) {
            byStatus.merge(statusOf(trial), 1, Integer::sum);
            succeeded.put(trial.id(), "SUCCEEDED".equals(trial.status()));
        }
        Integer maxTrials = params.path("maxTrialNumber").isNumber() ? params.path("maxTrialNumber").asInt() : null;
        Double best = null;
        for (MetricRecord metric : store.metrics(null, "FINAL")) {
            Double value = Experiment.storedNumber(metric.data());
            if (value != null && !value.isNaN() && succeeded.getOrDefault(metric.trialJobId(), false)
                    && (best == null || (maximizing ? value > best : value < best))) {
                best = value;
            }
        }
        TrialCounts counts = TrialCounts.of(byStatus, maxTrials);
        Map<String, Integer> everyStatus = new LinkedHashMap<>();
        for (TrialStatus status : TrialStatus.values()) {
            everyStatus.put(status.name(), byStatus.getOrDefault(status, 0));
        }
        ExperimentSummary summary = ExperimentSummary.builder()
                .configuredPlatform(platform)
                .counts(counts.succeeded(), counts.failed(), counts.stoppedEarly(), counts.cancelled(), counts.running(),
                        counts.waiting(), counts.started(), counts.text())
                .maxTrials(maxTrials)
                .belowStarted(counts.belowStarted().orElse(null))
                .byStatus(everyStatus)
                .best(best)
                .build();
        return new StoredSummary(params.path("experimentName").asText(null), maximizing,
                profile.map(p -> Instant.ofEpochMilli(p.startTime())).orElse(null),
                profile.map(Profile::endTime).map(Instant::ofEpochMilli).orElse(null),
                profile.map(p -> Duration.ofSeconds(p.execDurationSeconds())).orElse(null),
                summary);
    }

    /** @return a stored trial's status; one this runtime does not know (a newer NNI's) counts as UNKNOWN */
    private static TrialStatus statusOf(TrialRecord trial) {
        try {
            return TrialStatus.valueOf(String.valueOf(trial.status()));
        } catch (IllegalArgumentException e) {
            return TrialStatus.UNKNOWN;
        }
    }

    private static JsonNode parse(String json) {
        try {
            return JSON.readTree(json);
        } catch (IOException e) {
            return JSON.createObjectNode();
        }
    }

    /** @return what changes when the database does: its files' sizes and times */
    private static String stamp(Path directory) {
        StringBuilder stamp = new StringBuilder();
        for (String name : new String[] {"nni.sqlite", "nni.sqlite-wal"}) {
            Path file = directory.resolve("db").resolve(name);
            try {
                stamp.append(Files.size(file)).append('/').append(Files.getLastModifiedTime(file).toMillis()).append(';');
            } catch (IOException e) {
                stamp.append("-;");
            }
        }
        return stamp.toString();
    }
}
