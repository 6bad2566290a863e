package nni.itest.cloud.emulator;

import java.time.Duration;
import java.time.Instant;

/**
 * Failures an emulator injects before it answers: a status (503, 500) for the next N requests or
 * for a while, and slow answers. Thread-safe.
 */
public final class Faults {

    private int failCount;
    private int failStatus;
    private Instant failUntil = Instant.MIN;
    private Duration failPeriod;
    private Duration delay = Duration.ZERO;
    private int delayCount;

    /** The next {@code count} requests are answered {@code status} without being handled. */
    public synchronized void failNext(int count, int status) {
        failCount = count;
        failStatus = status;
    }

    /**
     * Every request during {@code period}, counted from the next request, is answered {@code status}
     * without being handled (from the next request, not from now: a runtime still starting under
     * load must meet the outage, not miss it).
     */
    public synchronized void failFor(Duration period, int status) {
        failPeriod = period;
        failStatus = status;
    }

    /** The next {@code count} requests are answered only after {@code delay}. */
    public synchronized void slowNext(int count, Duration delay) {
        this.delayCount = count;
        this.delay = delay;
    }

    /** Ends every injected failure. */
    public synchronized void clear() {
        failCount = 0;
        failUntil = Instant.MIN;
        failPeriod = null;
        delayCount = 0;
    }

    /** @return the status to answer with instead of handling the request, or null */
    synchronized Integer failure() {
        if (failCount > 0) {
            failCount--;
            return failStatus;
        }
        if (failPeriod != null) {
            failUntil = Instant.now().plus(failPeriod);
            failPeriod = null;
        }
        return Instant.now().isBefore(failUntil) ? failStatus : null;
    }

    /** @return how long to hold this answer back */
    synchronized Duration delay() {
        if (delayCount > 0) {
            delayCount--;
            return delay;
        }
        return Duration.ZERO;
    }
}
