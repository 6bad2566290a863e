package nni.manager.internal.http;

import java.io.IOException;
import java.io.InputStream;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A servlet that answers JSON through a {@link Router}, in NNI's manner: every answer is JSON with
 * {@code Access-Control-Allow-Origin: *}; errors are {@code {"error": "..."}} with a 4xx status for
 * bad requests and 500 (logged, no stack trace sent) for faults.
 */
public abstract class JsonServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(JsonServlet.class);

    protected static final ObjectMapper JSON = new ObjectMapper().disable(SerializationFeature.FAIL_ON_EMPTY_BEANS);

    /** The most of a refused request's body that is read and dropped to keep the connection usable. */
    private static final long DISCARD_LIMIT = 8L << 20;

    private final transient Router router = new Router();

    protected JsonServlet() {
        routes(router);
    }

    /** Adds this servlet's routes, relative to its whiteboard pattern. */
    protected abstract void routes(Router router);

    @Override
    protected void service(HttpServletRequest request, HttpServletResponse response) throws IOException {
        response.setHeader("Access-Control-Allow-Origin", "*");
        response.setContentType("application/json");
        response.setCharacterEncoding("UTF-8");
        Object result;
        try {
            Router.Match match = router.resolve(request.getMethod(), request.getPathInfo());
            result = match.handler().handle(request, match.parameters());
        } catch (HttpError e) {
            discardUnreadBody(request, response, e.status());
            sendError(response, e.status(), e.getMessage());
            return;
        } catch (RuntimeException e) {
            LOG.error("{} {} failed", request.getMethod(), request.getRequestURI(), e);
            sendError(response, 500, "internal error: " + e.getClass().getSimpleName()
                    + (e.getMessage() == null ? "" : ": " + e.getMessage()));
            return;
        }
        response.setStatus(200);
        if (result != null) {
            JSON.writeValue(response.getOutputStream(), result);
        }
    }

    /**
     * Reads and drops what the client is still sending when a request is refused before its body
     * was read (a wrong token, a bad path). Jetty closes a connection whose request body is left
     * unread, and a client still writing that body then sees a broken pipe instead of our answer.
     * A body too large to be worth reading (413, or over {@value #DISCARD_LIMIT} bytes) closes the
     * connection instead, announced with {@code Connection: close}.
     */
    private static void discardUnreadBody(HttpServletRequest request, HttpServletResponse response, int status) {
        long declared = request.getContentLengthLong();
        if (declared == 0) {
            return;
        }
        if (status == 413 || declared > DISCARD_LIMIT) {
            response.setHeader("Connection", "close");
            return;
        }
        try {
            InputStream in = request.getInputStream();
            byte[] buffer = new byte[8192];
            long left = DISCARD_LIMIT;
            int read;
            while (left > 0 && (read = in.read(buffer, 0, (int) Math.min(buffer.length, left))) >= 0) {
                left -= read;
            }
            if (left <= 0) {
                response.setHeader("Connection", "close");
            }
        } catch (IOException | IllegalStateException e) {
            // the body was read already, or the client went away: nothing left to drop
            LOG.debug("request body not discarded: {}", e.toString());
        }
    }

    private static void sendError(HttpServletResponse response, int status, String message) throws IOException {
        response.setStatus(status);
        JSON.writeValue(response.getOutputStream(), java.util.Map.of("error", message));
    }
}
