package nni.http;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.concurrent.CompletionStage;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

import jakarta.servlet.AsyncContext;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A servlet that answers JSON through a {@link Router}: errors are {@code {"error": "..."}} with a
 * 4xx status for bad requests and 500 (logged, no stack trace sent) for faults. No
 * {@code Access-Control-Allow-Origin} header: the API is not readable by web pages of other origins.
 *
 * <p>Before any handler runs, the path must be plain ({@link Router#requireCanonical}) and the query
 * string must decode ({@link QueryParameters}); routes with a body admit the request from its head,
 * then get the body read by {@link RequestBodies}, which costs no thread while it arrives; a JSON
 * body is read by {@link JsonBodies}, the same strict way on every route.
 */
public abstract class JsonServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(JsonServlet.class);

    protected static final ObjectMapper JSON = new ObjectMapper().disable(SerializationFeature.FAIL_ON_EMPTY_BEANS);

    private final transient Router router = new Router();
    private final transient RequestBodies bodies;

    protected JsonServlet(RequestBodies bodies) {
        this.bodies = bodies;
        routes(router);
    }

    /** Adds this servlet's routes, relative to its whiteboard pattern. */
    protected abstract void routes(Router router);

    /** @return the largest body this servlet's routes read */
    protected long maxBodyBytes() {
        return bodies.maxBodyBytes();
    }

    @Override
    protected void service(HttpServletRequest raw, HttpServletResponse response) throws IOException {
        response.setContentType("application/json");
        response.setCharacterEncoding("UTF-8");
        HttpServletRequest request;
        Router.Match match;
        try {
            Router.requireCanonical(raw.getRequestURI());
            request = QueryParameters.wrap(raw);
            match = router.resolve(raw.getMethod(), raw.getPathInfo());
            if (match.readsBody()) {
                match.admission().admit(request, match.parameters());
            }
        } catch (HttpError e) {
            bodies.refuse(raw, response, e);
            return;
        }
        if (!match.readsBody()) {
            answer(request, response, () -> match.handler().handle(request, match.parameters()));
            return;
        }
        if (match.lentBodyHandler() != null) {
            bodies.readLent(raw, response, maxBodyBytes(), (buffer, length) -> answer(request, response,
                    () -> match.lentBodyHandler().handle(request, match.parameters(), buffer, length)));
            return;
        }
        bodies.read(raw, response, maxBodyBytes(),
                body -> answer(request, response, () -> match.bodyHandler().handle(request, match.parameters(), body)));
    }

    /** What a handler computes: the value to send. */
    @FunctionalInterface
    private interface Work {
        Object run() throws IOException;
    }

    /**
     * Sends what the handler computed. A handler that answers later (a long poll) returns a
     * {@link CompletionStage}: the request then waits asynchronously, holding no thread.
     */
    private static void answer(HttpServletRequest request, HttpServletResponse response, Work work) throws IOException {
        Object result;
        try {
            result = work.run();
        } catch (HttpError e) {
            e.send(response);
            return;
        } catch (IOException | RuntimeException e) {
            fault(request, response, e);
            return;
        }
        if (result instanceof CompletionStage<?> later) {
            AsyncContext async = request.isAsyncStarted() ? request.getAsyncContext() : request.startAsync();
            async.setTimeout(0); // the stage ends the wait
            later.whenComplete((value, error) -> {
                try {
                    if (error != null) {
                        fault(request, response, error instanceof Exception e ? e : new IllegalStateException(error));
                    } else {
                        send(response, value);
                    }
                } catch (IOException | RuntimeException e) {
                    LOG.debug("{} {}: answering failed: {}", request.getMethod(), request.getRequestURI(), e.getMessage());
                } finally {
                    async.complete();
                }
            });
            return;
        }
        send(response, result);
    }

    private static void fault(HttpServletRequest request, HttpServletResponse response, Exception e) throws IOException {
        if (e instanceof HttpError error) {
            error.send(response);
            return;
        }
        LOG.error("{} {} failed", request.getMethod(), request.getRequestURI(), e);
        new HttpError(500, "internal error, logged by the runtime" + (e.getMessage() == null ? "" : ": " + e.getMessage()))
                .send(response);
    }

    private static void send(HttpServletResponse response, Object result) throws IOException {
        response.setStatus(200);
        if (result instanceof Download download) {
            response.setContentType(download.contentType());
            response.setHeader("Content-Disposition", "attachment; filename=\"" + download.fileName() + "\"");
            download.body().writeTo(response.getOutputStream());
        } else if (result instanceof PlainText text) {
            response.setContentType("text/plain");
            try (InputStream in = text.content()) {
                in.transferTo(response.getOutputStream());
            }
        } else if (result != null) {
            JSON.writeValue(response.getOutputStream(), result);
        }
    }

    /**
     * What a handler returns to send a file as it is ({@code text/plain}) rather than JSON; the
     * servlet closes the stream.
     */
    public record PlainText(InputStream content) {
    }

    /** Writes a download's body as it is produced, never whole in memory. */
    @FunctionalInterface
    public interface Body {
        void writeTo(OutputStream out) throws IOException;
    }

    /**
     * What a handler returns to send a file to be saved ({@code Content-Disposition: attachment}),
     * written straight to the response: an export of any size.
     *
     * @param fileName a plain file name (no quotes, no path)
     */
    public record Download(String fileName, String contentType, Body body) {
    }
}
