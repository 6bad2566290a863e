package nni.ts.cloud;

import java.io.IOException;
import java.net.ConnectException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * One cluster's REST API over the JDK's HTTP client: every call with a deadline, every failure
 * turned into a {@link CloudException} of the right kind whose message names the service and what
 * was being done (never the URL: some APIs put credentials in query strings). One per session:
 * {@link #close()} ends its threads.
 */
public final class HttpCalls implements AutoCloseable {

    /** The longest part of an error body quoted in a message. */
    private static final int MAX_QUOTE = 300;
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final java.util.regex.Pattern STORAGE_ERROR = java.util.regex.Pattern.compile(
            "^\\uFEFF?(?:<\\?xml[^>]*>)?\\s*<Error>\\s*<Code>([^<]*)</Code>\\s*<Message>([^<\\r\\n]*)", java.util.regex.Pattern.DOTALL);

    private final String service;
    private final Duration timeout;
    private final ExecutorService executor;
    private final HttpClient client;

    /**
     * @param service how messages name the service ("OpenPAI at https://pai.example.com")
     * @param timeout how long one call may take, connecting included
     * @param threads prefix of the client's thread names
     */
    public HttpCalls(String service, Duration timeout, String threads) {
        this.service = service;
        this.timeout = timeout;
        AtomicInteger count = new AtomicInteger();
        this.executor = Executors.newCachedThreadPool(r -> {
            Thread thread = new Thread(r, threads + "-http-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
        // Java 17's client has no close(): its selector thread ends once the client is unreachable
        this.client = HttpClient.newBuilder().executor(executor).connectTimeout(timeout)
                .followRedirects(HttpClient.Redirect.NORMAL).build();
    }

    /** @return how messages name the service */
    public String service() {
        return service;
    }

    /**
     * Sends one request and returns the answer if it is a success (2xx).
     *
     * @param what what the call does, for messages ("submitting job nni_exp_x_trial_y")
     * @throws CloudException for no answer, a timeout or any other status, sorted by {@link CloudException.Kind}
     */
    public HttpResponse<String> send(HttpRequest.Builder request, String what) throws CloudException {
        HttpResponse<String> response;
        try {
            response = client.send(request.timeout(timeout).build(), HttpResponse.BodyHandlers.ofString());
        } catch (HttpTimeoutException e) {
            throw new CloudException(CloudException.Kind.TRANSIENT, 0,
                    service + " did not answer within " + timeout.toSeconds() + " s while " + what, null);
        } catch (ConnectException e) {
            throw new CloudException(CloudException.Kind.TRANSIENT, 0, service + " cannot be reached while " + what
                    + " (connection refused)", null);
        } catch (IOException e) {
            throw new CloudException(CloudException.Kind.TRANSIENT, 0, service + " cannot be reached while " + what
                    + (e.getMessage() == null ? "" : " (" + e.getMessage() + ")"), null);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CloudException(CloudException.Kind.TRANSIENT, 0, "interrupted while " + what, null);
        }
        int status = response.statusCode();
        if (status >= 200 && status < 300) {
            return response;
        }
        String message = service + " answered HTTP " + status + " while " + what + serverSays(response.body());
        CloudException.Kind kind = switch (status) {
            case 401, 403 -> CloudException.Kind.AUTH;
            case 404 -> CloudException.Kind.NOT_FOUND;
            case 409 -> CloudException.Kind.CONFLICT;
            case 408, 425, 429 -> CloudException.Kind.TRANSIENT;
            default -> status >= 500 ? CloudException.Kind.TRANSIENT : CloudException.Kind.REFUSED;
        };
        throw new CloudException(kind, status, message, retryAfter(response));
    }

    /** @return the body parsed as JSON */
    public static JsonNode json(HttpResponse<String> response, String what) throws CloudException {
        try {
            return JSON.readTree(response.body());
        } catch (IOException e) {
            throw new CloudException(CloudException.Kind.TRANSIENT, response.statusCode(),
                    "the answer to " + what + " is not JSON: " + e.getMessage(), null);
        }
    }

    /** @return {@code value} as a JSON request body */
    public static HttpRequest.BodyPublisher jsonBody(Object value) {
        try {
            return HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(value));
        } catch (IOException e) {
            throw new IllegalArgumentException("not serialisable as JSON: " + value.getClass().getName(), e);
        }
    }

    /**
     * @return ": <the server's message>" from a JSON error body ({@code message}, {@code error}; Azure's
     *         {@code {"error": {...}}}; OAuth's {@code error} and {@code error_description};
     *         Alibaba Cloud's {@code Code} and {@code Message}; Azure Storage's XML {@code <Code>} and
     *         {@code <Message>}), or the body's start
     */
    public static String serverSays(String body) {
        if (body == null || body.isBlank()) {
            return "";
        }
        String text = body.strip();
        java.util.regex.Matcher storage = STORAGE_ERROR.matcher(text);
        if (storage.find()) {
            // Azure Storage: <Error><Code>AuthenticationFailed</Code><Message>Server failed ...</Message></Error>
            text = storage.group(1).strip() + ": " + storage.group(2).strip();
        }
        try {
            JsonNode node = JSON.readTree(text);
            if (node != null && node.path("error").isObject()) {
                node = node.get("error"); // Azure Resource Manager: {"error": {"code", "message"}}
            }
            if (node != null && node.path("Code").isTextual() && node.path("Message").isTextual()) {
                text = node.get("Code").asText() + ": " + node.get("Message").asText(); // Alibaba Cloud's POP/ROA errors
            } else if (node != null && node.path("error").isTextual() && node.path("error_description").isTextual()) {
                text = node.get("error").asText() + ": " + node.get("error_description").asText(); // OAuth 2.0 (RFC 6749 5.2)
            } else {
                for (String field : new String[] {"message", "error", "code"}) {
                    if (node != null && node.hasNonNull(field) && node.get(field).isValueNode()) {
                        text = node.get(field).asText();
                        break;
                    }
                }
            }
        } catch (IOException notJson) {
            // quote the text as it is
        }
        text = text.replaceAll("\\s+", " ");
        return ": " + (text.length() > MAX_QUOTE ? text.substring(0, MAX_QUOTE) + "..." : text);
    }

    private static Duration retryAfter(HttpResponse<?> response) {
        return response.headers().firstValue("Retry-After").map(value -> {
            try {
                return Duration.ofSeconds(Math.max(0, Long.parseLong(value.strip())));
            } catch (NumberFormatException httpDate) {
                return null;
            }
        }).orElse(null);
    }

    /** Ends the client's threads; calls in flight fail. */
    @Override
    public void close() {
        executor.shutdownNow();
    }
}
