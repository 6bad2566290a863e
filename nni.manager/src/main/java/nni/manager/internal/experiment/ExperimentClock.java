package nni.manager.internal.experiment;

import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import nni.store.Profile;

/**
 * An experiment's clocks and its duration limit: when it started and ended, and its experiment
 * time (NNI's {@code execDuration}), which counts only while the experiment runs; the limit
 * ({@code maxExperimentDuration}) fires on the experiment's thread once that time is used up.
 * Changed on the experiment's thread; read from any.
 */
final class ExperimentClock {

    private volatile long startTime;
    private volatile Long endTime;
    private volatile long previousExecMillis;
    private volatile long countingSince;
    private volatile boolean counting;
    private ScheduledFuture<?> limit;

    /** A new experiment's clock: started now. */
    static ExperimentClock startingNow() {
        ExperimentClock clock = new ExperimentClock();
        clock.startTime = System.currentTimeMillis();
        return clock;
    }

    /** A reopened experiment's clock, from its last stored profile (none: starts now). */
    static ExperimentClock of(Profile profile) {
        ExperimentClock clock = new ExperimentClock();
        clock.startTime = profile == null ? System.currentTimeMillis() : profile.startTime();
        clock.endTime = profile == null ? null : profile.endTime();
        clock.previousExecMillis = profile == null ? 0 : profile.execDurationSeconds() * 1000;
        return clock;
    }

    long startTime() {
        return startTime;
    }

    Long endTime() {
        return endTime;
    }

    void ended() {
        endTime = System.currentTimeMillis();
    }

    void reopened() {
        endTime = null;
    }

    /** @return milliseconds of experiment time, counted while running */
    long execMillis() {
        long counted = previousExecMillis;
        return counting ? counted + System.currentTimeMillis() - countingSince : counted;
    }

    /** Experiment time counts from now (the experiment runs). @return whether it did not count before */
    boolean startCounting() {
        if (counting) {
            return false;
        }
        countingSince = System.currentTimeMillis();
        counting = true;
        return true;
    }

    /** Experiment time stops counting (the experiment stopped, ended or failed); the limit is off. */
    void stopCounting() {
        if (counting) {
            previousExecMillis += System.currentTimeMillis() - countingSince;
            counting = false;
        }
        cancelLimit();
    }

    /**
     * (Re)arms the duration limit for what is left of {@code max}; {@code reached} runs on
     * {@code thread} when it is used up. A null {@code max} means no limit.
     */
    void armLimit(Duration max, ScheduledExecutorService thread, Runnable reached) {
        cancelLimit();
        if (max == null) {
            return;
        }
        long left = max.toMillis() - execMillis();
        limit = thread.schedule(reached, Math.max(0, left), TimeUnit.MILLISECONDS);
    }

    private void cancelLimit() {
        if (limit != null) {
            limit.cancel(false);
            limit = null;
        }
    }
}
