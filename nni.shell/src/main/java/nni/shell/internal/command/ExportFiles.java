package nni.shell.internal.command;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The files of {@code nnictl experiment export --type json|csv [--intermediate]}, written from the
 * rows {@link nni.api.experiment.ExperimentService#exportData(String, boolean)} answers.
 */
final class ExportFiles {

    private static final ObjectMapper JSON = new ObjectMapper();

    private ExportFiles() {
    }

    /** {@code --type json}: the rows as they are. */
    static String json(List<Map<String, Object>> rows) {
        try {
            return JSON.writeValueAsString(rows);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * {@code --type csv}: a column per parameter, per entry of a dict result (a plain number is
     * {@code reward}), and {@code trialJobId}; {@code intermediate} first when the rows have it.
     */
    static String csv(List<Map<String, Object>> rows) {
        List<Map<String, Object>> records = new ArrayList<>();
        Set<String> columns = new LinkedHashSet<>();
        for (Map<String, Object> row : rows) {
            Map<String, Object> record = new LinkedHashMap<>();
            if (row.get("intermediate") instanceof List<?> intermediate) {
                record.put("intermediate", "[" + String.join(",", intermediate.stream().map(String::valueOf).toList()) + "]");
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
        csv.append(String.join(",", columns.stream().map(ExportFiles::cell).toList())).append("\r\n");
        for (Map<String, Object> record : records) {
            csv.append(String.join(",", columns.stream().map(c -> cell(record.get(c))).toList())).append("\r\n");
        }
        return csv.toString();
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
