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
 * The fields of a metric line that the experiment uses, as its node gives them: {@code type} and
 * {@code trial_job_id} as text (null: absent, or {@code trial_job_id} null), whether the line has
 * a {@code value}, the value as text (a string's text, else its JSON) and as a number when it is
 * one, {@code sequence} as a long (0 when absent), {@code parameter_id} as text (null: absent or
 * null).
 *
 * <p>Every metric a trial reports passes here, a hundred thousand a second at the benchmark's rate.
 * A line as NNI's SDK prints it, a flat object of strings, whole numbers and literals, is read by
 * hand without allocating more than the texts it keeps; any other line (escapes, nested values,
 * a number as value, non-ASCII text, anything broken) is read by Jackson as before, so that an
 * unusual line means what Jackson makes of it and a broken one gets Jackson's error. A Jackson
 * parser per line allocated about 1.4 KB, a third of all the route allocated per metric.
 */
record MetricFields(boolean object, String type, String trialJobId, boolean hasValue, String valueText, Double valueNumber,
        long sequence, String parameterId) {

    private static final Set<String> USED = Set.of("type", "trial_job_id", "value", "sequence", "parameter_id");
    private static final MetricFields NOT_AN_OBJECT = new MetricFields(false, null, null, false, null, null, 0, null);
    /** Longer lines go to Jackson, whose limits (a name's length, 50,000 by default) then apply as before. */
    private static final int LONGEST_SCANNED = 16_384;

    /**
     * @param trialId the reporting trial: a {@code trial_job_id} equal to it is given as this
     *                instance (the line's copy is not made)
     * @return the line's used fields ({@link #object()} false when the line is JSON but not an object)
     * @throws IOException when the line is not JSON
     */
    static MetricFields of(ObjectMapper json, String line, String trialId) throws IOException {
        MetricFields scanned = scan(line, trialId);
        return scanned != null ? scanned : of(read(json, line));
    }

    /** @return the used fields of a line as NNI's SDK prints it, or null when the line is for Jackson to read */
    static MetricFields scan(String line, String trialId) {
        return line.length() <= LONGEST_SCANNED ? new FlatLine(line, trialId).scan() : null;
    }

    /** @return the used fields as the node gives them */
    static MetricFields of(JsonNode metric) {
        if (!metric.isObject()) {
            return NOT_AN_OBJECT;
        }
        JsonNode type = metric.get("type");
        JsonNode reportedId = metric.get("trial_job_id");
        JsonNode value = metric.get("value");
        JsonNode parameterId = metric.get("parameter_id");
        return new MetricFields(true, type == null ? null : type.asText(),
                reportedId == null || reportedId.isNull() ? null : reportedId.asText(), value != null,
                value == null ? null : value.isNull() ? "null" : value.isTextual() ? value.asText() : value.toString(),
                value != null && value.isNumber() ? Double.valueOf(value.asDouble()) : null,
                metric.path("sequence").asLong(0), parameterId == null || parameterId.isNull() ? null : parameterId.asText());
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
        return numberEnd(text, 0) == text.length();
    }

    /** @return the end of the number in JSON's grammar that starts at {@code from}, or -1 when none does */
    static int numberEnd(String text, int from) {
        int at = from < text.length() && text.charAt(from) == '-' ? from + 1 : from;
        int digits = digits(text, at);
        if (digits == 0 || digits > 1 && text.charAt(at) == '0') {
            return -1;
        }
        at += digits;
        if (at < text.length() && text.charAt(at) == '.') {
            digits = digits(text, at + 1);
            if (digits == 0) {
                return -1;
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
                return -1;
            }
            at += digits;
        }
        return at;
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

    /**
     * Reads a line that is one flat JSON object whose used fields hold what the SDK sends: text,
     * a whole number as {@code sequence} or {@code parameter_id}, null. Returns null at the first
     * thing outside that shape, where Jackson takes over; what lies after the object's end is not
     * read, as Jackson's reading of the used fields does not read it.
     */
    private static final class FlatLine {
        private static final int LONGEST_WHOLE = 18; // digits: always a long, whose text is the number's text
        private static final int LONGEST_NUMBER = 100; // an unused field's: far below Jackson's limit
        private static final String[] USED_NAMES = USED.toArray(String[]::new);
        private static final String[] TYPES = {"PERIODICAL", "FINAL", "REQUEST_PARAMETER", "CUSTOM"};
        /** The texts of the first parameter ids, given rather than made per metric (a trial's metrics all name one) */
        private static final String[] SMALL_IDS = java.util.stream.IntStream.range(0, 1024).mapToObj(Integer::toString)
                .toArray(String[]::new);

        private final String line;
        private final String trialId;
        private int at;
        private String type;
        private String trialJobId;
        private boolean hasValue;
        private String valueText;
        private long sequence;
        private String parameterId;

        FlatLine(String line, String trialId) {
            this.line = line;
            this.trialId = trialId;
        }

        MetricFields scan() {
            skipSpace();
            if (!take('{')) {
                return null;
            }
            skipSpace();
            if (!take('}')) {
                do {
                    skipSpace();
                    int nameStart = at + 1;
                    int nameEnd = string();
                    skipSpace();
                    if (nameEnd < 0 || !take(':')) {
                        return null;
                    }
                    skipSpace();
                    if (!field(nameStart, nameEnd)) {
                        return null;
                    }
                    skipSpace();
                } while (take(','));
                if (!take('}')) {
                    return null;
                }
            }
            return new MetricFields(true, type, trialJobId, hasValue, valueText, null, sequence, parameterId);
        }

        /** Reads the value of the field named by the line's text from {@code nameStart} to {@code nameEnd}; false: Jackson's. */
        private boolean field(int nameStart, int nameEnd) {
            int start = at;
            if (at >= line.length()) {
                return false;
            }
            char first = line.charAt(at);
            if (first == '"') {
                int end = string();
                if (end < 0) {
                    return false;
                }
                if (named(nameStart, nameEnd, "type")) {
                    type = text(start + 1, end, TYPES);
                } else if (named(nameStart, nameEnd, "trial_job_id")) {
                    trialJobId = end - start - 1 == trialId.length() && line.startsWith(trialId, start + 1) ? trialId
                            : line.substring(start + 1, end);
                } else if (named(nameStart, nameEnd, "value")) {
                    hasValue = true;
                    valueText = line.substring(start + 1, end);
                } else if (named(nameStart, nameEnd, "parameter_id")) {
                    parameterId = line.substring(start + 1, end);
                } else {
                    return !named(nameStart, nameEnd, "sequence"); // a sequence as text: Jackson's asLong reads it
                }
                return true;
            }
            if (first == '-' || first >= '0' && first <= '9') {
                int end = number();
                if (end < 0) {
                    return false;
                }
                boolean sequenceField = named(nameStart, nameEnd, "sequence");
                if (sequenceField || named(nameStart, nameEnd, "parameter_id")) {
                    if (!whole(start, end)) {
                        return false;
                    }
                    long number = Long.parseLong(line, start, end, 10);
                    if (sequenceField) {
                        sequence = number;
                    } else {
                        parameterId = number >= 0 && number < SMALL_IDS.length ? SMALL_IDS[(int) number] : Long.toString(number);
                    }
                    return true;
                }
                // a number as type, trial_job_id or value: Jackson's text of it
                return end - start <= LONGEST_NUMBER && !named(nameStart, nameEnd, "type")
                        && !named(nameStart, nameEnd, "trial_job_id") && !named(nameStart, nameEnd, "value");
            }
            boolean isNull = literal("null");
            if (isNull || literal("true") || literal("false")) {
                if (isNull && named(nameStart, nameEnd, "trial_job_id")) {
                    trialJobId = null;
                } else if (isNull && named(nameStart, nameEnd, "parameter_id")) {
                    parameterId = null;
                } else if (isNull && named(nameStart, nameEnd, "value")) {
                    hasValue = true;
                    valueText = "null";
                } else {
                    return !usedName(nameStart, nameEnd); // a literal's text or number: Jackson's
                }
                return true;
            }
            return false; // an object, an array, or not JSON
        }

        private boolean usedName(int nameStart, int nameEnd) {
            for (String name : USED_NAMES) {
                if (named(nameStart, nameEnd, name)) {
                    return true;
                }
            }
            return false;
        }

        private boolean named(int nameStart, int nameEnd, String name) {
            return nameEnd - nameStart == name.length() && line.startsWith(name, nameStart);
        }

        /** @return the text from start to end, one of the known texts when it is one (then not copied) */
        private String text(int start, int end, String[] known) {
            for (String text : known) {
                if (end - start == text.length() && line.startsWith(text, start)) {
                    return text;
                }
            }
            return line.substring(start, end);
        }

        /** @return whether the number from start to end is whole and short enough to be a long as Jackson reads it */
        private boolean whole(int start, int end) {
            for (int i = start; i < end; i++) {
                char c = line.charAt(i);
                if (c == '.' || c == 'e' || c == 'E') {
                    return false;
                }
            }
            return end - start - (line.charAt(start) == '-' ? 1 : 0) <= LONGEST_WHOLE;
        }

        /** Reads a string of printable ASCII without escapes from the quote at {@code at}; @return its closing quote's index, or -1 */
        private int string() {
            if (at >= line.length() || line.charAt(at) != '"') {
                return -1;
            }
            for (int i = at + 1; i < line.length(); i++) {
                char c = line.charAt(i);
                if (c == '"') {
                    at = i + 1;
                    return i;
                }
                if (c < 0x20 || c >= 0x7F || c == '\\') {
                    return -1;
                }
            }
            return -1;
        }

        /** Reads a number in JSON's grammar from {@code at}; @return its end, or -1 */
        private int number() {
            int end = numberEnd(line, at);
            if (end >= 0) {
                at = end;
            }
            return end;
        }

        private boolean literal(String literal) {
            if (line.startsWith(literal, at)) {
                at += literal.length();
                return true;
            }
            return false;
        }

        private boolean take(char c) {
            if (at < line.length() && line.charAt(at) == c) {
                at++;
                return true;
            }
            return false;
        }

        /** JSON's whitespace, as Jackson skips it; anything else below 0x20 is an error for Jackson to tell */
        private void skipSpace() {
            while (at < line.length()) {
                char c = line.charAt(at);
                if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
                    return;
                }
                at++;
            }
        }
    }
}
