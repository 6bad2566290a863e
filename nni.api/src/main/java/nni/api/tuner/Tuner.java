package nni.api.tuner;

import java.util.Map;
import java.util.Optional;

import org.osgi.annotation.versioning.ConsumerType;

import nni.api.searchspace.SearchSpace;

/**
 * One experiment's tuner: NNI's {@code Tuner} ({@code generate_parameters},
 * {@code receive_trial_result}, {@code trial_end}, {@code update_search_space}).
 *
 * <p>A tuner is called from one thread at a time (bundle {@code nni.tuners} runs every
 * {@link TunerProvider}'s tuners as a {@link Dispatcher}, on the experiment's thread), so
 * implementations need no locking.
 * Parameter ids are 0, 1, 2, ... in the order the manager asks. An exception from a call ends the
 * experiment in ERROR with its message.
 */
@ConsumerType
public interface Tuner {

    /**
     * @return the next parameter set (name to value, nested choices as maps with {@code _name}), or
     *         empty when the tuner has nothing more to give (GridSearch or a finite space exhausted).
     *         Empty is final: the manager stops asking this tuner for good, lets the running trials
     *         finish and the experiment then ends as NNI's {@code NO_MORE_TRIAL} does (status
     *         {@code TUNER_NO_MORE_TRIAL}, then {@code DONE})
     */
    Optional<Map<String, Object>> generateParameters(long parameterId);

    /**
     * A trial's final result. Called once per trial with a FINAL metric, before {@link #trialEnd}.
     *
     * @param value the metric's number (a dict metric's {@code default} entry)
     */
    void receiveTrialResult(long parameterId, Map<String, Object> parameters, double value);

    /** A trial ended; {@code succeeded} is false for FAILED and cancelled trials. */
    default void trialEnd(long parameterId, boolean succeeded) {
    }

    /**
     * A result of a trial this tuner did not propose: data imported with {@code nnictl experiment
     * import} (NNI's {@code import_data}), given again when the experiment resumes. A tuner that learns
     * from history takes it as one of its own results; parameters outside its search space it skips.
     * Called between the other calls, on the same thread.
     *
     * @param parameters the trial's parameters as a trial sees them (a nested choice as a mapping with
     *                   {@code _name})
     * @param value      the result's number (a dict result's {@code default} entry)
     * @return whether this tuner uses imported results at all; the default does not and returns false
     */
    default boolean importResult(Map<String, Object> parameters, double value) {
        return false;
    }

    /**
     * The search space changed at run time ({@code nnictl update searchspace}).
     *
     * @throws IllegalArgumentException if this tuner cannot take the new space
     */
    default void updateSearchSpace(SearchSpace searchSpace) {
        throw new IllegalArgumentException("this tuner cannot change its search space at run time");
    }
}
