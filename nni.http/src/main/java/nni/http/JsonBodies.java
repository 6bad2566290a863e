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
 * A key seen twice is found by the map it goes into (its size does not grow), so the keepers'
 * report route, which takes thousands of bodies a second, allocates nothing beyond its values.
 */
public final class JsonBodies {

    private static final JsonFactory FACTORY = new JsonFactory();
    private static final int BOM_1 = 0xEF;
    private static final int BOM_2 = 0xBB;
    private static final int BOM_3 = 0xBF;

    private JsonBodies() {
    }

    /**
     * @param what what the body is, for the message ("the body")
     * @return the body's value (null for JSON's {@code null})
     * @throws HttpError 400 naming the problem
     */
    public static Object read(byte[] body, String what) {
        if (body.length >= 3 && (body[0] & 0xFF) == BOM_1 && (body[1] & 0xFF) == BOM_2 && (body[2] & 0xFF) == BOM_3) {
            throw HttpError.badRequest(what + " starts with a byte order mark (EF BB BF); send UTF-8 JSON without one");
        }
        for (int i = 0; i < body.length; i++) {
            if (body[i] == 0) {
                throw HttpError.badRequest(what + " holds a NUL byte at offset " + i + "; JSON has none");
            }
        }
        try (JsonParser parser = FACTORY.createParser(body)) {
            JsonToken first = parser.nextToken();
            if (first == null) {
                throw HttpError.badRequest(what + " is empty; expected JSON");
            }
            Object value = value(parser, first, what);
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

    private static Object value(JsonParser parser, JsonToken token, String what) throws IOException {
        switch (token) {
            case START_OBJECT: {
                Map<String, Object> map = new LinkedHashMap<>();
                for (String key = parser.nextFieldName(); key != null; key = parser.nextFieldName()) {
                    int before = map.size();
                    map.put(key, value(parser, parser.nextToken(), what));
                    if (map.size() == before) { // where is asked only then: a location is an object of its own
                        throw HttpError.badRequest(what + " has the key \"" + key + "\" twice in one object (the second"
                                + " value ends at " + where(parser.currentLocation()) + ")");
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

    private static String where(JsonLocation location) {
        return location == null ? "an unknown place" : "line " + location.getLineNr() + ", column " + location.getColumnNr();
    }
}
