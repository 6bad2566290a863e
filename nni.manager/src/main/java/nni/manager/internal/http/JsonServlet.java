package nni.manager.internal.http;

import java.io.IOException;

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

    private static void sendError(HttpServletResponse response, int status, String message) throws IOException {
        response.setStatus(status);
        JSON.writeValue(response.getOutputStream(), java.util.Map.of("error", message));
    }
}
