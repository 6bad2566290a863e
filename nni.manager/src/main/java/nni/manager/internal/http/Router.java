package nni.manager.internal.http;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import jakarta.servlet.http.HttpServletRequest;

/**
 * Maps a method and a path below a servlet's pattern to a handler. Patterns are literal segments
 * and {@code {name}} segments, which match one segment and are handed to the handler.
 */
public final class Router {

    /** Handles one matched request and returns the value to send as JSON ({@code null}: empty 200). */
    @FunctionalInterface
    public interface Handler {
        Object handle(HttpServletRequest request, Map<String, String> pathParameters) throws IOException;
    }

    /** What a path resolved to. */
    public record Match(Handler handler, Map<String, String> parameters) {
    }

    private record Route(String method, String[] segments, Handler handler) {
    }

    private final List<Route> routes = new ArrayList<>();

    public Router add(String method, String pattern, Handler handler) {
        routes.add(new Route(method, split(pattern), handler));
        return this;
    }

    public Router get(String pattern, Handler handler) {
        return add("GET", pattern, handler);
    }

    /**
     * @throws HttpError 404 when no route has the path, 405 when none has it for this method
     */
    public Match resolve(String method, String path) {
        String[] actual = split(path);
        boolean pathKnown = false;
        for (Route route : routes) {
            Map<String, String> parameters = matchSegments(route.segments, actual);
            if (parameters != null) {
                pathKnown = true;
                if (route.method.equals(method)) {
                    return new Match(route.handler, parameters);
                }
            }
        }
        throw pathKnown ? new HttpError(405, method + " is not supported on " + path)
                : HttpError.notFound("no such resource: " + path);
    }

    private static Map<String, String> matchSegments(String[] pattern, String[] actual) {
        if (pattern.length != actual.length) {
            return null;
        }
        Map<String, String> parameters = new HashMap<>();
        for (int i = 0; i < pattern.length; i++) {
            String p = pattern[i];
            if (p.startsWith("{") && p.endsWith("}")) {
                parameters.put(p.substring(1, p.length() - 1), actual[i]);
            } else if (!p.equals(actual[i])) {
                return null;
            }
        }
        return parameters;
    }

    private static String[] split(String path) {
        String trimmed = path == null ? "" : path.replaceAll("^/+|/+$", "");
        return trimmed.isEmpty() ? new String[0] : trimmed.split("/+");
    }
}
