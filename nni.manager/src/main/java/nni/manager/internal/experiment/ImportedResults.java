package nni.manager.internal.experiment;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * Trial results from elsewhere, as {@code nnictl experiment import} sends them
 * ({@code POST /experiment/import-data}): a JSON list of {@code {"parameter": {...}, "value": ...}},
 * where the value is a number, a dict with a {@code default} entry, or such a value as JSON text
 * (what {@code nnictl experiment export} and NNI's {@code export-data} give).
 */
public final class ImportedResults {

    /** One result: the trial's parameters and its number. */
    public record Result(Map<String, Object> parameters, double value) {
    }

    private static final ObjectMapper JSON = new ObjectMapper();

    private ImportedResults() {
    }

    /**
     * @throws IllegalArgumentException naming the first entry that is not a result
     */
    public static List<Result> parse(String json) {
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
        List<Result> results = new ArrayList<>();
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
            results.add(new Result(JSON.convertValue(parameter, new TypeReference<Map<String, Object>>() { }), number));
        }
        return results;
    }
}
