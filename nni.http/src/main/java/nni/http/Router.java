package nni.http;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import jakarta.servlet.http.HttpServletRequest;

/**
 * Maps a method and a path below a servlet's pattern to a handler. Patterns are literal segments
 * and {@code {name}} segments, which match one segment and are handed to the handler.
 *
 * <p>Only plain paths are routed ({@link #requireCanonical}): a variant of a path (an empty
 * segment, a dot segment, a {@code ;} parameter, an encoded slash or dot) is refused rather than
 * normalised, so no spelling of a path reaches a route that its plain spelling does not.
 */
public final class Router {

    /** Handles one matched request and returns the value to send as JSON ({@code null}: empty 200). */
    @FunctionalInterface
    public interface Handler {
        Object handle(HttpServletRequest request, Map<String, String> pathParameters) throws IOException;
    }

    /**
     * Decides from a request's head alone whether its body is wanted, before any of the body is
     * read: throwing {@link HttpError} refuses the request at once.
     */
    @FunctionalInterface
    public interface Admission {
        void admit(HttpServletRequest request, Map<String, String> pathParameters);
    }

    /** Handles a request admitted and read in full; returns the value to send as JSON. */
    @FunctionalInterface
    public interface BodyHandler {
        Object handle(HttpServletRequest request, Map<String, String> pathParameters, byte[] body) throws IOException;
    }

    /**
     * Handles a request admitted and read in full, with its body lent for the call: the first
     * {@code length} bytes of {@code buffer}, which is reused for other requests once the handler
     * returns. For a route whose handler is done with the bytes when it returns (it keeps none of
     * them and answers no later), so that its bodies allocate no array of their own.
     */
    @FunctionalInterface
    public interface LentBodyHandler {
        Object handle(HttpServletRequest request, Map<String, String> pathParameters, byte[] buffer, int length) throws IOException;
    }

    /** What a path resolved to: a handler, or an admission and a body handler (of one kind). */
    public record Match(Handler handler, Admission admission, BodyHandler bodyHandler, LentBodyHandler lentBodyHandler,
                        Map<String, String> parameters) {
        public boolean readsBody() {
            return bodyHandler != null || lentBodyHandler != null;
        }
    }

    private record Route(String method, String[] segments, Handler handler, Admission admission, BodyHandler bodyHandler,
                         LentBodyHandler lentBodyHandler) {
    }

    private final List<Route> routes = new ArrayList<>();

    /** A route that reads no body (a body sent anyway is not read). */
    public Router add(String method, String pattern, Handler handler) {
        routes.add(new Route(method, split(pattern), handler, null, null, null));
        return this;
    }

    public Router get(String pattern, Handler handler) {
        return add("GET", pattern, handler);
    }

    /** A route with a body: {@code admission} sees the head first, {@code handler} the whole body. */
    public Router withBody(String method, String pattern, Admission admission, BodyHandler handler) {
        routes.add(new Route(method, split(pattern), null, admission, handler, null));
        return this;
    }

    /** A route with a body lent to its handler for the call ({@link LentBodyHandler}); otherwise as {@link #withBody}. */
    public Router withLentBody(String method, String pattern, Admission admission, LentBodyHandler handler) {
        routes.add(new Route(method, split(pattern), null, admission, null, handler));
        return this;
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
                    return new Match(route.handler, route.admission, route.bodyHandler, route.lentBodyHandler, parameters);
                }
            }
        }
        throw pathKnown ? new HttpError(405, method + " is not supported on " + path)
                : HttpError.notFound("no such resource: " + path);
    }

    /**
     * Refuses a request path (as sent, still percent-encoded) that is not in its plain form.
     *
     * @throws HttpError 400 naming what is wrong
     */
    public static void requireCanonical(String rawPath) {
        String problem = canonicalProblem(rawPath == null ? "" : rawPath);
        if (problem != null) {
            throw HttpError.badRequest("not a plain path (" + problem + "): " + abbreviate(rawPath));
        }
    }

    private static String canonicalProblem(String path) {
        if (path.indexOf(';') >= 0) {
            return "';' parameters are not accepted";
        }
        if (path.indexOf('\\') >= 0) {
            return "a backslash";
        }
        String lower = path.toLowerCase(Locale.ROOT);
        for (String encoded : new String[] {"%2f", "%5c", "%2e", "%00", "%3b"}) {
            if (lower.contains(encoded)) {
                return "an encoded '/', '\\', '.', ';' or NUL";
            }
        }
        String inner = path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
        if (inner.contains("//")) {
            return "an empty segment";
        }
        for (String segment : inner.split("/")) {
            if (segment.equals(".") || segment.equals("..")) {
                return "a '.' or '..' segment";
            }
        }
        return null;
    }

    private static String abbreviate(String path) {
        return path.length() > 200 ? path.substring(0, 200) + "..." : path;
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

    /** The segments of a path; one trailing slash is allowed ({@code /experiment/} is {@code /experiment}). */
    private static String[] split(String path) {
        String trimmed = path == null ? "" : path.startsWith("/") ? path.substring(1) : path;
        if (trimmed.endsWith("/")) {
            trimmed = trimmed.substring(0, trimmed.length() - 1);
        }
        return trimmed.isEmpty() ? new String[0] : trimmed.split("/", -1);
    }
}
