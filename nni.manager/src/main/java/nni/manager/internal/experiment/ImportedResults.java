package nni.manager.internal.experiment;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * Trial results from elsewhere, as {@code nnictl experiment import} sends them
 * ({@code POST /experiment/import-data}): a JSON list of {@code {"parameter": {...}, "value": ...}},
 * where the value is a number, a dict with a {@code default} entry, or such a value as JSON text
 * (what {@code nnictl experiment export} and NNI's {@code export-data} give). Checked here, once,
 * for every algorithm; the algorithm reads the results it learns from itself.
 */
public final class ImportedResults {

    private static final ObjectMapper JSON = new ObjectMapper();

    private ImportedResults() {
    }

    /**
     * @return how many results the data holds
     * @throws IllegalArgumentException naming the first entry that is not a result
     */
    public static int count(String json) {
        JsonNode list;
        try {
            list = JSON.readTree(json);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("expected a JSON list of {\"parameter\": {...}, \"value\": ...}: "
                    + e.getOriginalMessage());
        }
        if (list == null || !list.isArray()) {
            throw new IllegalArgumentException("expected a JSON list of {\"parameter\": {...}, \"value\": ...}");
        }
        for (int i = 0; i < list.size(); i++) {
            JsonNode entry = list.get(i);
            JsonNode parameter = entry.get("parameter");
            if (parameter == null || !parameter.isObject()) {
                throw new IllegalArgumentException("[" + i + "].parameter: expected the trial's parameters as an object");
            }
            JsonNode value = entry.get("value");
            Double number = value == null ? null : value.isNumber() ? Double.valueOf(value.asDouble())
                    : MetricIntake.number(value.isTextual() ? value.asText() : value.toString());
            if (number == null) {
                throw new IllegalArgumentException("[" + i + "].value: expected a number or a dict with a \"default\" "
                        + "number, got " + value);
            }
        }
        return list.size();
    }
}
