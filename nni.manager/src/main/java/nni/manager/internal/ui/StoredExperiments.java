package nni.manager.internal.ui;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import com.fasterxml.jackson.databind.JsonNode;

import nni.api.model.TrialStatus;
import nni.manager.internal.experiment.Experiment;
import nni.manager.internal.experiment.TrialCounts;
import nni.manager.internal.store.ExperimentStore;
import nni.manager.internal.store.MetricRecord;
import nni.manager.internal.store.Profile;
import nni.manager.internal.store.TrialRecord;

/**
 * The experiments list's rows of experiments stored under the root but not open, read from their
 * databases (read-only) and kept until a database changes, so the list does not read every store on
 * every refresh.
 */
final class StoredExperiments {

    private record Cached(String stamp, Map<String, Object> row) {
    }

    private final Map<String, Cached> rows = new ConcurrentHashMap<>();

    /**
     * @param status the status it ended with
     * @return the row, or empty when the experiment's database cannot be read
     */
    Optional<Map<String, Object>> row(String id, Path directory, String status) {
        String stamp = stamp(directory) + status;
        Cached cached = rows.get(id);
        if (cached != null && cached.stamp().equals(stamp)) {
            return Optional.of(cached.row());
        }
        try (ExperimentStore store = ExperimentStore.openReadOnly(directory)) {
            Map<String, Object> row = read(id, store, status);
            rows.put(id, new Cached(stamp, row));
            return Optional.of(row);
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    private static Map<String, Object> read(String id, ExperimentStore store, String status) {
        Optional<Profile> profile = store.latestProfile();
        JsonNode params = profile.map(p -> parse(p.params())).orElse(Json.MAPPER.createObjectNode());
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
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("id", id);
        row.put("name", params.path("experimentName").asText(null));
        row.put("status", status);
        row.put("open", false);
        row.put("platform", platform);
        row.put("trials", TrialCounts.of(byStatus, maxTrials).json());
        row.put("best", best);
        row.put("optimizeMode", maximizing ? "maximize" : "minimize");
        row.put("startTime", profile.map(Profile::startTime).orElse(null));
        row.put("endTime", profile.map(Profile::endTime).orElse(null));
        row.put("durationMillis", profile.map(p -> p.execDurationSeconds() * 1000).orElse(null));
        return row;
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
            return Json.MAPPER.readTree(json);
        } catch (IOException e) {
            return Json.MAPPER.createObjectNode();
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
