package nni.manager.internal.experiment;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import nni.store.StoreException;

/**
 * An experiment's status and how it moves, on the experiment's thread: the clock counts while the
 * status counts (RUNNING, NO_MORE_TRIAL) and stops otherwise, the experiment's listener hears of
 * each change, and an end (DONE, STOPPED, ERROR) stops the clock for good and is stored; a failure
 * keeps its message and lets go of the algorithm. {@link #settled} completes when the experiment
 * settles.
 */
final class RunStatus {

    private static final Logger LOG = LoggerFactory.getLogger(RunStatus.class);

    /** What a change of status sets off in the experiment. */
    interface Effects {
        /** The status changed: the listener hears of it. */
        void changed();

        /** The clock started counting: the duration limit is armed for the time left. */
        void counting();

        /** The experiment's profile (its time, its end) is stored. */
        void saveProfile();

        /** The experiment failed: its algorithm is closed. */
        void closeAlgorithm();
    }

    private final String id;
    private final ExperimentClock clock;
    private final Effects effects;
    private final List<String> errors = new CopyOnWriteArrayList<>();
    private final CompletableFuture<ExperimentStatus> settled = new CompletableFuture<>();
    private volatile ExperimentStatus status = ExperimentStatus.INITIALIZED;

    RunStatus(String id, ExperimentClock clock, Effects effects) {
        this.id = id;
        this.clock = clock;
        this.effects = effects;
    }

    ExperimentStatus get() {
        return status;
    }

    /** Moves to a status during which the experiment's time counts (RUNNING, NO_MORE_TRIAL). */
    void becomeCounting(ExperimentStatus next) {
        if (clock.startCounting()) {
            effects.counting();
        }
        set(next);
    }

    /** Moves to a status during which the experiment's time stands still. */
    void becomeStatic(ExperimentStatus next) {
        clock.stopCounting();
        set(next);
    }

    /** The experiment ends for good (DONE, STOPPED): its time stops and its end is stored. */
    void ended(ExperimentStatus end) {
        clock.ended();
        becomeStatic(end);
        effects.saveProfile();
    }

    /** Opened read-only: the status is VIEWED and the experiment settled at once. */
    void viewed() {
        status = ExperimentStatus.VIEWED;
        settled.complete(ExperimentStatus.VIEWED);
    }

    /** The experiment failed: ERROR, its end stored if the store still takes it, its algorithm closed. */
    void fail(String message, Throwable cause) {
        LOG.error("experiment {}: {}", id, message, cause);
        errors.add(message);
        clock.ended();
        becomeStatic(ExperimentStatus.ERROR);
        try {
            effects.saveProfile();
        } catch (StoreException e) {
            LOG.warn("experiment {}: its end could not be stored: {}", id, e.getMessage());
        }
        effects.closeAlgorithm();
        settled.complete(ExperimentStatus.ERROR);
    }

    private void set(ExperimentStatus next) {
        ExperimentStatus previous = status;
        status = next;
        if (previous != next) {
            effects.changed();
        }
    }

    List<String> errors() {
        return List.copyOf(errors);
    }

    /** @return completes with DONE, ERROR, STOPPED or VIEWED once the experiment settles */
    CompletableFuture<ExperimentStatus> settled() {
        return settled;
    }
}
