package nni.api.platform;

import java.time.Duration;

import nni.api.platform.TransientPlatformException;

/**
 * How long to wait before asking a platform again after a {@link TransientPlatformException}: the
 * platform's {@code retryAfter} when it gave one, else 1 s doubling with each failure in a row up to
 * 60 s; and how the wait is shown to users. The engine waits so before submitting a trial again, and
 * keeper sessions before starting an environment again; a platform that retries on its own may
 * use it to wait the same way.
 *
 * @since 1.2
 */
public final class Backoff {

    static final Duration FIRST = Duration.ofSeconds(1);
    static final Duration CAP = Duration.ofSeconds(60);

    private Backoff() {
    }

    /** @param failures transient failures in a row, this one included (&ge; 1) */
    public static Duration delay(int failures, TransientPlatformException failure) {
        return failure.retryAfter().orElseGet(() -> delay(failures));
    }

    /** @return the backoff alone: 1 s, 2 s, 4 s, ... 60 s for the 1st, 2nd, 3rd, ... failure */
    public static Duration delay(int failures) {
        long seconds = FIRST.toSeconds() << Math.min(Math.max(failures, 1) - 1, 16);
        return Duration.ofSeconds(Math.min(seconds, CAP.toSeconds()));
    }

    /** @return the waiting reason shown to users: {@code retrying in 4 s: <reason>} */
    public static String message(Duration wait, String reason) {
        return "retrying in " + Math.max(1, (wait.toMillis() + 999) / 1000) + " s: " + reason;
    }
}
