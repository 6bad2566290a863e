package nni.http;

import java.io.IOException;
import java.util.Map;

import com.fasterxml.jackson.databind.ObjectMapper;

import jakarta.servlet.http.HttpServletResponse;

import nni.api.experiment.Outcome;

/** A request that cannot be answered as asked; becomes {@code {"error": message}} with the status. */
public final class HttpError extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private static final ObjectMapper JSON = new ObjectMapper();

    private final int status;

    public HttpError(int status, String message) {
        super(message, null, false, false);
        this.status = status;
    }

    public int status() {
        return status;
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

    /** Writes this error as the answer: its status and {@code {"error": message}}. */
    public void send(HttpServletResponse response) throws IOException {
        response.setStatus(status);
        response.setContentType("application/json");
        response.setCharacterEncoding("UTF-8");
        JSON.writeValue(response.getOutputStream(), Map.of("error", getMessage()));
    }
}
