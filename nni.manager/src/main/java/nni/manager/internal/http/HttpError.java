package nni.manager.internal.http;

/** A request that cannot be answered as asked; becomes {@code {"error": message}} with the status. */
public final class HttpError extends RuntimeException {
    private static final long serialVersionUID = 1L;
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
}
