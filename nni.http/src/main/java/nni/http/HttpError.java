package nni.http;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;

import com.fasterxml.jackson.databind.ObjectMapper;

import jakarta.servlet.http.HttpServletResponse;

import nni.api.experiment.Outcome;

/**
 * A request that cannot be answered as asked; becomes {@code {"error": message}} with the status,
 * and with the fields a client may act on besides the message, if the refusal has any.
 */
public final class HttpError extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private static final ObjectMapper JSON = new ObjectMapper();

    private final int status;
    private final Map<String, Object> fields;

    public HttpError(int status, String message) {
        this(status, message, Map.of());
    }

    /** @param fields written after {@code error} in the answer's body; never one named {@code error} */
    public HttpError(int status, String message, Map<String, ?> fields) {
        super(message, null, false, false);
        if (fields.containsKey("error")) {
            throw new IllegalArgumentException("the field 'error' is the refusal's message");
        }
        this.status = status;
        this.fields = Map.copyOf(fields);
    }

    public int status() {
        return status;
    }

    /** @return the answer's body: {@code error} and the refusal's other fields */
    public Map<String, Object> body() {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("error", getMessage());
        body.putAll(fields);
        return body;
    }

    public static HttpError badRequest(String message) {
        return new HttpError(400, message);
    }

    public static HttpError notFound(String message) {
        return new HttpError(404, message);
    }

    /**
     * The one mapping of the experiment service's refusals to NNI's answers: 404, 409, 400.
     *
     * @param invalidPrefix put before an INVALID refusal's message: where its field is in the request ({@code params.})
     * @return the value of a done outcome
     * @throws HttpError for a refusal
     */
    public static <T> T answer(Outcome<T> outcome, String invalidPrefix) {
        return outcome.orElseThrow(refusal -> switch (refusal.kind()) {
            case NOT_FOUND -> notFound(refusal.message());
            case CONFLICT -> new HttpError(409, refusal.message());
            case INVALID -> badRequest(invalidPrefix + refusal.message());
        });
    }

    /** Writes this error as the answer: its status and {@link #body()}. */
    public void send(HttpServletResponse response) throws IOException {
        response.setStatus(status);
        response.setContentType("application/json");
        response.setCharacterEncoding("UTF-8");
        JSON.writeValue(response.getOutputStream(), body());
    }
}
