package nni.api.platform;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * A platform could not do what it was asked <em>now</em>, but may later: a quota is exhausted, the
 * cluster answered HTTP 429 or 503, a machine is being provisioned. Unlike a plain
 * {@link PlatformException} (permanent: the trial fails), the manager keeps the trial WAITING with
 * the message {@code "retrying in N s: <message>"} and asks again: after {@link #retryAfter()} when
 * given, else with exponential backoff (1 s, doubling up to 60 s). The message follows the rules of
 * {@link PlatformException}.
 */
public class TransientPlatformException extends PlatformException {
    private static final long serialVersionUID = 1L;

    private final Duration retryAfter;

    public TransientPlatformException(String message) {
        this(message, (Duration) null, null);
    }

    public TransientPlatformException(String message, Throwable cause) {
        this(message, null, cause);
    }

    /**
     * @param retryAfter how long to wait before asking again (an HTTP {@code Retry-After}), or null
     *                   to let the manager back off
     * @throws IllegalArgumentException if {@code retryAfter} is negative
     */
    public TransientPlatformException(String message, Duration retryAfter) {
        this(message, retryAfter, null);
    }

    /** As {@link #TransientPlatformException(String, Duration)}, with the cause. */
    public TransientPlatformException(String message, Duration retryAfter, Throwable cause) {
        super(message, cause);
        if (retryAfter != null && retryAfter.isNegative()) {
            throw new IllegalArgumentException("retryAfter must not be negative, got " + retryAfter);
        }
        this.retryAfter = retryAfter;
    }

    /** @return how long the platform asks the manager to wait, or empty to let it back off */
    public Optional<Duration> retryAfter() {
        return Optional.ofNullable(retryAfter);
    }

    @Override
    public String toString() {
        return "TransientPlatformException: " + getMessage() + (retryAfter == null ? "" : " (retry after " + retryAfter + ")")
                + (getCause() == null ? "" : ", cause " + Objects.toString(getCause()));
    }
}
