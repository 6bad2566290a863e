package nni.http;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.Enumeration;
import java.util.LinkedHashMap;
import java.util.Map;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;


/**
 * The query string of a request, decoded strictly (UTF-8, every {@code %} followed by two hex
 * digits): a parameter that does not decode is the client's mistake, a 400 naming it, instead of the
 * container's exception. The routes see the request through {@link #wrap}, whose parameters come
 * from the query string only: asking for a parameter never reads a form body, which a slow client
 * could otherwise make a thread wait for.
 */
public final class QueryParameters {

    private QueryParameters() {
    }

    /**
     * @throws HttpError 400 when the query string does not decode
     */
    static HttpServletRequest wrap(HttpServletRequest request) {
        Map<String, String[]> parameters = Collections.unmodifiableMap(parse(request.getQueryString()));
        return new HttpServletRequestWrapper(request) {
            @Override
            public String getParameter(String name) {
                String[] values = parameters.get(name);
                return values == null ? null : values[0];
            }

            @Override
            public Map<String, String[]> getParameterMap() {
                return parameters;
            }

            @Override
            public Enumeration<String> getParameterNames() {
                return Collections.enumeration(parameters.keySet());
            }

            @Override
            public String[] getParameterValues(String name) {
                String[] values = parameters.get(name);
                return values == null ? null : values.clone();
            }
        };
    }

    /**
     * Decodes a query string, or a form body ({@code application/x-www-form-urlencoded}), which is written alike.
     *
     * @throws HttpError 400 naming the parameter that does not decode
     */
    public static Map<String, String[]> parse(String query) {
        Map<String, String[]> parameters = new LinkedHashMap<>();
        if (query == null || query.isEmpty()) {
            return parameters;
        }
        for (String pair : query.split("&")) {
            if (pair.isEmpty()) {
                continue;
            }
            int equals = pair.indexOf('=');
            String rawName = equals < 0 ? pair : pair.substring(0, equals);
            String name = decode(rawName, rawName);
            String value = equals < 0 ? "" : decode(pair.substring(equals + 1), name);
            String[] before = parameters.get(name);
            if (before == null) {
                parameters.put(name, new String[] {value});
            } else {
                String[] more = java.util.Arrays.copyOf(before, before.length + 1);
                more[before.length] = value;
                parameters.put(name, more);
            }
        }
        return parameters;
    }

    private static String decode(String text, String parameter) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(text.length());
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '+') {
                bytes.write(' ');
            } else if (c == '%') {
                if (i + 2 >= text.length() || Character.digit(text.charAt(i + 1), 16) < 0
                        || Character.digit(text.charAt(i + 2), 16) < 0) {
                    throw problem(parameter, "'%' not followed by two hex digits");
                }
                bytes.write(Character.digit(text.charAt(i + 1), 16) * 16 + Character.digit(text.charAt(i + 2), 16));
                i += 2;
            } else if (c < 0x80) {
                bytes.write(c);
            } else {
                byte[] raw = String.valueOf(c).getBytes(StandardCharsets.UTF_8);
                bytes.write(raw, 0, raw.length);
            }
        }
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes.toByteArray())).toString();
        } catch (CharacterCodingException e) {
            throw problem(parameter, "not UTF-8 once decoded");
        }
    }

    private static HttpError problem(String parameter, String why) {
        String shown = parameter.length() > 40 ? parameter.substring(0, 40) + "..." : parameter;
        return HttpError.badRequest("query parameter '" + shown + "' is not valid percent-encoding: " + why);
    }
}
