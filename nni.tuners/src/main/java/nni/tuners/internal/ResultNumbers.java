package nni.tuners.internal;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The numbers in NNI's JSON as the manager reads them: a result's {@code value} (a number, a dict
 * with a {@code default} number, or either as JSON text, once or twice quoted, as NNI's SDK and
 * {@code nnictl experiment export} write it) and an integer parameter id.
 */
final class ResultNumbers {

    static final ObjectMapper JSON = new ObjectMapper();

    private ResultNumbers() {
    }

    /** @return the value's number, or null when it has none (it is then no result a tuner learns from) */
    static Double value(JsonNode value) {
        JsonNode node = value;
        try {
            for (int unquote = 0; unquote < 2 && node != null && node.isTextual(); unquote++) {
                node = JSON.readTree(node.asText());
            }
        } catch (JsonProcessingException e) {
            return null;
        }
        if (node != null && node.isObject()) {
            node = node.get("default");
        }
        return node != null && node.isNumber() ? node.asDouble() : null;
    }

    /** @return an integer parameter id (a number, or a string of one, as NNI's SDK may report it); null for any other */
    static Long parameterId(JsonNode id) {
        if (id == null) {
            return null;
        }
        if (id.isIntegralNumber()) {
            return id.asLong();
        }
        if (id.isTextual() && id.asText().matches("-?\\d{1,18}")) {
            return Long.valueOf(id.asText());
        }
        return null;
    }
}
