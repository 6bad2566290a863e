package nni.itest.cloud.emulator;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

import com.fasterxml.jackson.databind.ObjectMapper;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

/**
 * A cloud platform's REST API emulated on a loopback Jetty server with a free port: a servlet that
 * records every request ({@link #requests()}), applies the injected {@link Faults} first, then lets
 * the platform's emulator answer ({@link #handle}). Each platform's emulator (OpenPAI, DLTS, and
 * later AML, DLC) extends it and keeps its state and the local processes that play its jobs.
 */
public abstract class CloudEmulator implements AutoCloseable {

    protected static final ObjectMapper JSON = new ObjectMapper();

    /** One request as the emulator received it; {@code bytes} is the body as sent (blobs), {@code body} as UTF-8 text. */
    public record Request(String method, String path, String query, String body, byte[] bytes) {
        @Override
        public String toString() {
            return method + " " + path + (query == null ? "" : "?" + query);
        }
    }

    /** One answer: status, content type, body and the headers beyond the content type. */
    public record Answer(int status, String contentType, byte[] bytes, Map<String, String> headers) {
        public Answer(int status, String contentType, String body) {
            this(status, contentType, body.getBytes(StandardCharsets.UTF_8), Map.of());
        }

        public static Answer json(int status, Object value) {
            try {
                return new Answer(status, "application/json", JSON.writeValueAsString(value));
            } catch (IOException e) {
                throw new IllegalArgumentException(e);
            }
        }

        /** @return this answer with one more header */
        public Answer with(String header, String value) {
            Map<String, String> more = new LinkedHashMap<>(headers);
            more.put(header, value);
            return new Answer(status, contentType, bytes, more);
        }
    }

    private final Faults faults = new Faults();
    private final List<Request> requests = new ArrayList<>();
    private final Server server;
    private final ServerConnector connector;

    protected CloudEmulator() {
        server = new Server();
        connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        server.addConnector(connector);
        ServletContextHandler context = new ServletContextHandler();
        context.addServlet(new ServletHolder(new Dispatch()), "/*");
        server.setHandler(context);
    }

    /** Starts listening; call once. */
    protected final void listen() throws Exception {
        server.start();
    }

    /** @return {@code http://127.0.0.1:<port>} */
    public final String address() {
        return "http://127.0.0.1:" + connector.getLocalPort();
    }

    /** @return the failures to inject */
    public final Faults faults() {
        return faults;
    }

    /** @return every request received so far, in order */
    public final List<Request> requests() {
        synchronized (requests) {
            return List.copyOf(requests);
        }
    }

    /** Answers one request that passed the injected faults. */
    protected abstract Answer handle(Request request, Map<String, String> headers) throws Exception;

    /** @return the answer to a request failed on purpose ({@link Faults}), in the service's error format */
    protected Answer injected(int status) {
        return Answer.json(status, map("code", "UnknownError", "message", "injected failure"));
    }

    /** Ends the platform's jobs (their processes); called by {@link #close()} before the server stops. */
    protected abstract void endJobs();

    @Override
    public void close() throws Exception {
        try {
            endJobs();
        } finally {
            server.stop();
        }
    }

    protected static String decode(String text) {
        return java.net.URLDecoder.decode(text, StandardCharsets.UTF_8);
    }

    /** @return the value of query parameter {@code name}, decoded, or null */
    protected static String query(String query, String name) {
        if (query == null) {
            return null;
        }
        for (String pair : query.split("&")) {
            int equals = pair.indexOf('=');
            if (equals > 0 && decode(pair.substring(0, equals)).equals(name)) {
                return decode(pair.substring(equals + 1));
            }
        }
        return null;
    }

    protected static Map<String, Object> map(Object... pairs) {
        Map<String, Object> map = new LinkedHashMap<>();
        for (int i = 0; i < pairs.length; i += 2) {
            map.put((String) pairs[i], pairs[i + 1]);
        }
        return map;
    }

    private final class Dispatch extends HttpServlet {
        private static final long serialVersionUID = 1L;

        @Override
        protected void service(HttpServletRequest http, HttpServletResponse response) throws IOException {
            byte[] bytes = http.getInputStream().readAllBytes();
            Request request = new Request(http.getMethod(), http.getRequestURI(), http.getQueryString(),
                    new String(bytes, StandardCharsets.UTF_8), bytes);
            synchronized (requests) {
                requests.add(request);
            }
            Map<String, String> headers = new LinkedHashMap<>();
            for (String name : java.util.Collections.list(http.getHeaderNames())) {
                headers.put(name.toLowerCase(java.util.Locale.ROOT), http.getHeader(name));
            }
            Answer answer;
            try {
                Duration delay = faults.delay();
                if (!delay.isZero()) {
                    Thread.sleep(delay.toMillis()); // an answer that is slow on purpose
                }
                Integer failure = faults.failure();
                answer = failure != null ? injected(failure) : handle(request, headers);
            } catch (Exception e) {
                answer = Answer.json(500, map("code", "UnknownError", "message", String.valueOf(e)));
            }
            response.setStatus(answer.status());
            if (answer.contentType() != null) {
                response.setContentType(answer.contentType());
            }
            answer.headers().forEach(response::setHeader);
            response.setContentLength(answer.bytes().length);
            response.getOutputStream().write(answer.bytes());
        }
    }
}
