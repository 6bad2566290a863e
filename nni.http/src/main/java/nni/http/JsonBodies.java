package nni.http;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;

/**
 * Reads a request body as JSON the same strict way on every route: one value and nothing after it,
 * no key twice in one object, no byte order mark, no NUL byte; anything else is 400 naming the
 * problem and where it is. Jackson's data binding would take the first value and ignore what
 * follows, keep the last of two equal keys, and skip a BOM.
 *
 * <p>Values are plain: objects as {@link LinkedHashMap} (keys in their order), arrays as
 * {@link ArrayList}, strings, Boolean, null, and numbers as written: Integer, Long or BigInteger,
 * decimals as BigDecimal ({@code 1e400} stays 1E+400 for the route's rule to refuse, not Infinity).
 * A key seen twice is found by the map it goes into (its size does not grow).
 *
 * <p>A route that takes thousands of bodies a second (the keepers' reports) reads its body with its
 * own {@link ValueReader} instead, token by token under the same rules, and builds only what it uses;
 * {@link #value} and {@link #twice} give it the plain values and the refusal of a key seen twice.
 */
public final class JsonBodies {

    private static final JsonFactory FACTORY = new JsonFactory();
    private static final int BOM_1 = 0xEF;
    private static final int BOM_2 = 0xBB;
    private static final int BOM_3 = 0xBF;

    private JsonBodies() {
    }

    /**
     * Reads a body's one JSON value from its first token, as {@link JsonBodies#read(byte[], String, ValueReader)}
     * hands it over: it reads the whole value and no further (what follows is checked after it), reads
     * every value it meets (a string's text too: the parser's place, which messages name, depends on
     * it), and refuses a key seen twice in one object with {@link JsonBodies#twice}. Parse errors are
     * left to propagate: they become the same 400 as for {@link JsonBodies#read(byte[], String)}.
     */
    @FunctionalInterface
    public interface ValueReader<T> {
        T read(JsonParser parser, JsonToken first) throws IOException;
    }

    /**
     * @param what what the body is, for the message ("the body")
     * @return the body's value (null for JSON's {@code null})
     * @throws HttpError 400 naming the problem
     */
    public static Object read(byte[] body, String what) {
        return read(body, what, (parser, first) -> value(parser, first, what));
    }

    /**
     * Reads a body under the same rules as {@link #read(byte[], String)}, its value by {@code reader}.
     *
     * @return what the reader made of the body's value
     * @throws HttpError 400 naming the problem, exactly as {@link #read(byte[], String)} would
     */
    public static <T> T read(byte[] body, String what, ValueReader<T> reader) {
        return read(body, body.length, what, reader);
    }

    /**
     * Reads the first {@code length} bytes of {@code body} as {@link #read(byte[], String, ValueReader)}
     * reads an array of that length: the same answers, the same places in them. The array is not
     * kept: only what the reader makes of it outlives the call.
     */
    public static <T> T read(byte[] body, int length, String what, ValueReader<T> reader) {
        if (length >= 3 && (body[0] & 0xFF) == BOM_1 && (body[1] & 0xFF) == BOM_2 && (body[2] & 0xFF) == BOM_3) {
            throw HttpError.badRequest(what + " starts with a byte order mark (EF BB BF); send UTF-8 JSON without one");
        }
        for (int i = 0; i < length; i++) {
            if (body[i] == 0) {
                throw HttpError.badRequest(what + " holds a NUL byte at offset " + i + "; JSON has none");
            }
        }
        try (JsonParser parser = FACTORY.createParser(body, 0, length)) {
            JsonToken first = parser.nextToken();
            if (first == null) {
                throw HttpError.badRequest(what + " is empty; expected JSON");
            }
            T value;
            try {
                value = reader.read(parser, first);
            } catch (NumberFormatException outOfRange) {
                // a number JSON's grammar allows but no Java number holds (an exponent past an int, say
                // 1E2147483648): a fault in the body, never the server's
                throw HttpError.badRequest(what + " holds a number no value can hold at "
                        + where(parser.currentTokenLocation()) + ": " + outOfRange.getMessage());
            }
            JsonLocation end = parser.currentLocation();
            JsonToken after;
            try {
                after = parser.nextToken();
            } catch (JsonProcessingException garbage) {
                after = JsonToken.NOT_AVAILABLE;
            }
            if (after != null) {
                throw HttpError.badRequest(what + " has more after its JSON value, from " + where(end)
                        + "; send one value");
            }
            return value;
        } catch (JsonProcessingException e) {
            throw HttpError.badRequest(what + " is not JSON: " + e.getOriginalMessage() + " (" + where(e.getLocation()) + ")");
        } catch (IOException e) {
            throw HttpError.badRequest(what + " cannot be read: " + e.getMessage());
        }
    }

    /**
     * @return the body's object
     * @throws HttpError 400 when it is not JSON or not an object
     */
    @SuppressWarnings("unchecked")
    public static Map<String, Object> object(byte[] body, String what) {
        Object value = read(body, what);
        if (!(value instanceof Map<?, ?>)) {
            throw HttpError.badRequest(what + " must be a JSON object");
        }
        return (Map<String, Object>) value;
    }

    /**
     * Reads one value from its first token, as {@link #read(byte[], String)} gives values.
     *
     * @param what what the body is, for messages
     * @throws HttpError 400 for a key twice in one object
     */
    public static Object value(JsonParser parser, JsonToken token, String what) throws IOException {
        switch (token) {
            case START_OBJECT: {
                Map<String, Object> map = new LinkedHashMap<>();
                for (String key = parser.nextFieldName(); key != null; key = parser.nextFieldName()) {
                    int before = map.size();
                    map.put(key, value(parser, parser.nextToken(), what));
                    if (map.size() == before) { // where is asked only then: a location is an object of its own
                        throw twice(parser, key, what);
                    }
                }
                return map;
            }
            case START_ARRAY: {
                List<Object> list = new ArrayList<>();
                for (JsonToken next = parser.nextToken(); next != JsonToken.END_ARRAY; next = parser.nextToken()) {
                    list.add(value(parser, next, what));
                }
                return list;
            }
            case VALUE_STRING:
                return parser.getText();
            case VALUE_NUMBER_INT:
                return parser.getNumberValue();
            case VALUE_NUMBER_FLOAT:
                return parser.getDecimalValue();
            case VALUE_TRUE:
                return Boolean.TRUE;
            case VALUE_FALSE:
                return Boolean.FALSE;
            case VALUE_NULL:
                return null;
            default:
                throw HttpError.badRequest(what + " is not JSON: unexpected " + token + " (" + where(parser.currentTokenLocation()) + ")");
        }
    }

    /**
     * @return the refusal of {@code key} seen twice in one object, made once its second value was read
     *         (the message names where that value ends)
     */
    public static HttpError twice(JsonParser parser, String key, String what) {
        return HttpError.badRequest(what + " has the key \"" + key + "\" twice in one object (the second"
                + " value ends at " + where(parser.currentLocation()) + ")");
    }

    private static String where(JsonLocation location) {
        return location == null ? "an unknown place" : "line " + location.getLineNr() + ", column " + location.getColumnNr();
    }
}
