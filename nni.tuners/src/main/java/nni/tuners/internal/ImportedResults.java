package nni.tuners.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;

/**
 * Results of trials run elsewhere as a Java tuner takes them ({@link nni.api.tuner.Tuner#importResult}),
 * read from NNI's import format ({@code nnictl experiment import}): a JSON list of
 * {@code {"parameter": {...}, "value": ...}}, the value as {@link ResultNumbers#value} reads it.
 * The manager refused data that is not such a list before it reached an algorithm.
 */
final class ImportedResults {

    /** One result: the trial's parameters and its number. */
    record Result(Map<String, Object> parameters, double value) {
    }

    private static final TypeReference<Map<String, Object>> PARAMETERS = new TypeReference<>() { };

    private ImportedResults() {
    }

    /** @throws IllegalArgumentException naming the first entry that is not a result */
    static List<Result> parse(String json) {
        JsonNode list;
        try {
            list = ResultNumbers.JSON.readTree(json);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("imported data is not JSON: " + e.getOriginalMessage());
        }
        if (list == null || !list.isArray()) {
            throw new IllegalArgumentException("imported data is not a JSON list");
        }
        List<Result> results = new ArrayList<>();
        for (int i = 0; i < list.size(); i++) {
            JsonNode parameter = list.get(i).get("parameter");
            Double value = ResultNumbers.value(list.get(i).get("value"));
            if (parameter == null || !parameter.isObject() || value == null) {
                throw new IllegalArgumentException("imported result [" + i + "] has no parameters or no number");
            }
            results.add(new Result(ResultNumbers.JSON.convertValue(parameter, PARAMETERS), value));
        }
        return results;
    }
}
