package nni.manager.internal.experiment;

import java.util.Map;
import java.util.concurrent.ScheduledFuture;

import nni.api.model.TrialJob;

/**
 * One trial as its experiment tracks it. The fields are written on the experiment's thread only;
 * {@link #job}, {@link #finalValue} and {@link #intermediate} are read from any thread.
 */
final class Trial {
    final String id;
    final long sequenceId;
    final Object parameterId;
    final Map<String, Object> parameters;
    final String packed;
    volatile TrialJob job;
    // appended for every PERIODICAL metric, copied by readers: a copy-on-write list would copy on every append
    final NumberSeries intermediate = new NumberSeries();
    volatile Double finalValue;
    /** The experiment member the trial was placed on; its platform runs it. */
    volatile int member;
    ScheduledFuture<?> durationLimit;
    /** Transient submit failures in a row; the next wait doubles with each. */
    int failedSubmits;
    /** The pending submit retry, or null. */
    ScheduledFuture<?> retry;
    /** True while the trial waits to be submitted when its member's platform is back. */
    boolean submitWhenBack;
    /**
     * True once the trial was handed to its platform to be started (stored before the hand-over):
     * its process may have run, so a resume asks the platform for it before submitting it again.
     */
    volatile boolean launched;
    /** True once the user cancelled the trial (stored as {@code USER_TO_CANCEL}): it ends USER_CANCELED. */
    boolean cancelRequested;

    Trial(String id, long sequenceId, Object parameterId, Map<String, Object> parameters, String packed) {
        this.id = id;
        this.sequenceId = sequenceId;
        this.parameterId = parameterId;
        this.parameters = parameters;
        this.packed = packed;
    }

    /** @return whether the trial is not on a platform but waits to be submitted (again) */
    boolean waitsForSubmit() {
        return retry != null || submitWhenBack;
    }

    /** Forgets a pending resubmission. */
    void cancelRetry() {
        if (retry != null) {
            retry.cancel(false);
            retry = null;
        }
        submitWhenBack = false;
    }

    boolean live() {
        return !job.status().isTerminal();
    }
}
