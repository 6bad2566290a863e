package nni.ts.cloud;

import java.time.Duration;
import java.util.Optional;

/**
 * A cluster's REST API did not do what was asked, sorted by what the caller should do about it. The
 * message names the service and what was being done, never a URL (some APIs carry credentials in
 * query strings) nor a token.
 */
public final class CloudException extends Exception {
    private static final long serialVersionUID = 1L;

    /** What kind of failure, and so what to do. */
    public enum Kind {
        /** 401 or 403: the credentials are wrong, expired or not allowed; asking again will not help */
        AUTH,
        /** no answer, a timeout, 429 or 5xx: may work later */
        TRANSIENT,
        /** 409: the object exists already */
        CONFLICT,
        /** 404: no such object */
        NOT_FOUND,
        /** any other refusal (400, 422, ...): the request itself is wrong */
        REFUSED
    }

    private final Kind kind;
    private final int status;
    private final transient Duration retryAfter;

    /**
     * @param status     the HTTP status, or 0 when there was no answer
     * @param retryAfter the server's {@code Retry-After}, or null
     */
    public CloudException(Kind kind, int status, String message, Duration retryAfter) {
        super(message);
        this.kind = kind;
        this.status = status;
        this.retryAfter = retryAfter;
    }

    public Kind kind() {
        return kind;
    }

    /** @return the HTTP status, or 0 when there was no answer */
    public int status() {
        return status;
    }

    /** @return how long the server asked to wait, if it did */
    public Optional<Duration> retryAfter() {
        return Optional.ofNullable(retryAfter);
    }
}
