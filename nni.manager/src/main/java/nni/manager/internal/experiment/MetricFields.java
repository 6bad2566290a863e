package nni.manager.internal.experiment;

import java.io.IOException;
import java.util.Set;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Reads the fields of a metric line that the experiment uses, with Jackson's streaming parser.
 * Every metric a trial reports passes here; {@code ObjectMapper.readTree}, which gives the same
 * nodes, sets up a deserialization context per call, which cost more than the line itself.
 */
final class MetricFields {

    private static final Set<String> USED = Set.of("type", "trial_job_id", "value", "sequence", "parameter_id");

    private MetricFields() {
    }

    /**
     * @return the line's node as {@code readTree} would give it, an object reduced to the used
     *         fields when the line is a JSON object
     * @throws IOException when the line is not JSON
     */
    static JsonNode read(ObjectMapper json, String line) throws IOException {
        JsonNodeFactory nodes = json.getNodeFactory();
        try (JsonParser parser = json.getFactory().createParser(line)) {
            if (parser.nextToken() != JsonToken.START_OBJECT) {
                return json.readTree(line); // not an object: the caller refuses it; readTree says how
            }
            ObjectNode fields = nodes.objectNode();
            while (parser.nextToken() == JsonToken.FIELD_NAME) {
                String name = parser.currentName();
                JsonToken token = parser.nextToken();
                if (USED.contains(name)) {
                    fields.set(name, value(json, nodes, parser, token));
                } else {
                    parser.skipChildren();
                }
            }
            return fields;
        }
    }

    private static JsonNode value(ObjectMapper json, JsonNodeFactory nodes, JsonParser parser, JsonToken token) throws IOException {
        return switch (token) {
            case VALUE_STRING -> nodes.textNode(parser.getText());
            case VALUE_NUMBER_INT -> switch (parser.getNumberType()) {
                case INT -> nodes.numberNode(parser.getIntValue());
                case LONG -> nodes.numberNode(parser.getLongValue());
                default -> nodes.numberNode(parser.getBigIntegerValue());
            };
            case VALUE_NUMBER_FLOAT -> nodes.numberNode(parser.getDoubleValue());
            case VALUE_TRUE -> nodes.booleanNode(true);
            case VALUE_FALSE -> nodes.booleanNode(false);
            case VALUE_NULL -> nodes.nullNode();
            default -> json.readTree(parser); // an object or array value
        };
    }

    /** @return the value of a plain JSON number text, or null when the text is anything else */
    static Double plainNumber(String text) {
        return text.length() <= 40 && isJsonNumber(text) ? Double.valueOf(text) : null;
    }

    /**
     * JSON's number grammar, {@code -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?}, checked by hand:
     * every metric's value passes here, and a regular expression's matcher cost more than the parse.
     */
    static boolean isJsonNumber(String text) {
        int at = text.startsWith("-") ? 1 : 0;
        int digits = digits(text, at);
        if (digits == 0 || digits > 1 && text.charAt(at) == '0') {
            return false;
        }
        at += digits;
        if (at < text.length() && text.charAt(at) == '.') {
            digits = digits(text, at + 1);
            if (digits == 0) {
                return false;
            }
            at += 1 + digits;
        }
        if (at < text.length() && (text.charAt(at) == 'e' || text.charAt(at) == 'E')) {
            at++;
            if (at < text.length() && (text.charAt(at) == '+' || text.charAt(at) == '-')) {
                at++;
            }
            digits = digits(text, at);
            if (digits == 0) {
                return false;
            }
            at += digits;
        }
        return at == text.length();
    }

    /** @return how many ASCII digits start at {@code from} */
    private static int digits(String text, int from) {
        int at = from;
        while (at < text.length() && text.charAt(at) >= '0' && text.charAt(at) <= '9') {
            at++;
        }
        return at - from;
    }

    /** @return the text as a JSON string literal, or null when it has characters JSON escapes */
    static String plainStringLiteral(String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < 0x20 || c == '"' || c == '\\') {
                return null;
            }
        }
        return '"' + text + '"';
    }
}
