package nni.manager.internal.nnictl;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import nni.manager.internal.store.ExperimentStore;
import nni.manager.internal.store.MetricRecord;
import nni.manager.internal.store.TrialRecord;

/**
 * An experiment's results as NNI exports them: {@code GET /export-data} (rows of
 * {@code {parameter, value, trialJobId}} for the succeeded trials with a final result, the value
 * being the result's JSON text, which NNI's client parses with {@code json.loads}), and the files
 * of {@code nnictl experiment export --type json|csv [--intermediate]}.
 */
public final class TrialExport {

    private static final ObjectMapper JSON = new ObjectMapper();

    private TrialExport() {
    }

    /** @return NNI's export-data rows, in trial order */
    public static List<Map<String, Object>> rows(ExperimentStore store) {
        Map<String, TrialRecord> trials = new LinkedHashMap<>();
        store.trials().forEach(t -> trials.put(t.id(), t));
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
            rows.add(row);
        }
        return rows;
    }

    /** @return the metric as the trial reported it: the stored column holds it as a JSON string, as NNI's does */
    static String text(String stored) {
        JsonNode node = read(stored);
        return node.isTextual() ? node.asText() : node.toString();
    }

    /** {@code nnictl experiment export --type json}: the rows, with each trial's intermediate results if asked. */
    public static String json(ExperimentStore store, boolean intermediate) {
        List<Map<String, Object>> rows = rows(store);
        if (intermediate) {
            Map<String, List<String>> periodical = periodical(store);
            rows.forEach(row -> row.put("intermediate", periodical.getOrDefault((String) row.get("trialJobId"), List.of())));
        }
        try {
            return JSON.writeValueAsString(rows);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * {@code nnictl experiment export --type csv}: a column per parameter, per entry of a dict result
     * (a plain number is {@code reward}), and {@code trialJobId}; {@code intermediate} first if asked.
     */
    public static String csv(ExperimentStore store, boolean intermediate) {
        Map<String, List<String>> periodical = intermediate ? periodical(store) : Map.of();
        List<Map<String, Object>> records = new ArrayList<>();
        Set<String> columns = new LinkedHashSet<>();
        for (Map<String, Object> row : rows(store)) {
            Map<String, Object> record = new LinkedHashMap<>();
            if (intermediate) {
                record.put("intermediate", "[" + String.join(",", periodical.getOrDefault((String) row.get("trialJobId"), List.of())) + "]");
            }
            JsonNode parameters = JSON.valueToTree(row.get("parameter"));
            parameters.fields().forEachRemaining(e -> record.put(e.getKey(), e.getValue()));
            JsonNode value = read((String) row.get("value"));
            if (value.isObject()) {
                value.fields().forEachRemaining(e -> record.put(e.getKey(), e.getValue()));
            } else {
                record.put("reward", value);
            }
            record.put("trialJobId", row.get("trialJobId"));
            columns.addAll(record.keySet());
            records.add(record);
        }
        StringBuilder csv = new StringBuilder();
        csv.append(String.join(",", columns.stream().map(TrialExport::cell).toList())).append("\r\n");
        for (Map<String, Object> record : records) {
            csv.append(String.join(",", columns.stream().map(c -> cell(record.get(c))).toList())).append("\r\n");
        }
        return csv.toString();
    }

    private static Map<String, List<String>> periodical(ExperimentStore store) {
        Map<String, List<String>> values = new LinkedHashMap<>();
        for (MetricRecord metric : store.metrics(null, "PERIODICAL")) {
            values.computeIfAbsent(metric.trialJobId(), id -> new ArrayList<>()).add(text(metric.data()));
        }
        return values;
    }

    /** @return a CSV cell as Python's csv module writes it: quoted when it has a comma, quote or line break */
    private static String cell(Object value) {
        String text = value == null ? "" : value instanceof JsonNode node && node.isTextual() ? node.asText()
                : value instanceof JsonNode node ? node.toString() : value.toString();
        if (text.contains(",") || text.contains("\"") || text.contains("\n") || text.contains("\r")) {
            return "\"" + text.replace("\"", "\"\"") + "\"";
        }
        return text;
    }

    private static JsonNode read(String json) {
        try {
            return JSON.readTree(json);
        } catch (JsonProcessingException e) {
            return JSON.getNodeFactory().textNode(json);
        }
    }
}
