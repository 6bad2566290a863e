package nni.manager.internal.service;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import nni.store.ExperimentStore;
import nni.store.MetricRecord;
import nni.store.TrialRecord;

/**
 * An experiment's results as NNI exports them: {@code GET /export-data} (rows of
 * {@code {parameter, value, trialJobId}} for the succeeded trials with a final result, the value
 * being the result's JSON text, which NNI's client parses with {@code json.loads}), and with the
 * trials' intermediate results what {@code nnictl experiment export --intermediate} writes.
 */
final class ExportRows {

    private static final ObjectMapper JSON = new ObjectMapper();

    private ExportRows() {
    }

    /** @return NNI's export-data rows, in trial order, each with its trial's intermediate results if asked */
    static List<Map<String, Object>> of(ExperimentStore store, boolean intermediate) {
        Map<String, TrialRecord> trials = new LinkedHashMap<>();
        store.trials().forEach(t -> trials.put(t.id(), t));
        Map<String, List<String>> periodical = intermediate ? periodical(store) : Map.of();
        List<Map<String, Object>> rows = new ArrayList<>();
        for (MetricRecord metric : store.metrics(null, "FINAL")) {
            TrialRecord trial = trials.get(metric.trialJobId());
            if (trial == null || !"SUCCEEDED".equals(trial.status()) || trial.parameters() == null) {
                continue;
            }
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("parameter", read(trial.parameters()).get("parameters"));
            row.put("value", text(metric.data()));
            row.put("trialJobId", trial.id());
            if (intermediate) {
                row.put("intermediate", periodical.getOrDefault(trial.id(), List.of()));
            }
            rows.add(row);
        }
        return rows;
    }

    /** @return the metric as the trial reported it: the stored column holds it as a JSON string, as NNI's does */
    private static String text(String stored) {
        JsonNode node = read(stored);
        return node.isTextual() ? node.asText() : node.toString();
    }

    private static Map<String, List<String>> periodical(ExperimentStore store) {
        Map<String, List<String>> values = new LinkedHashMap<>();
        for (MetricRecord metric : store.metrics(null, "PERIODICAL")) {
            values.computeIfAbsent(metric.trialJobId(), id -> new ArrayList<>()).add(text(metric.data()));
        }
        return values;
    }

    private static JsonNode read(String json) {
        try {
            return JSON.readTree(json);
        } catch (JsonProcessingException e) {
            return JSON.getNodeFactory().textNode(json);
        }
    }
}
