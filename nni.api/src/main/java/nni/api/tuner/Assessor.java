package nni.api.tuner;

import java.util.List;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * One experiment's assessor: NNI's {@code Assessor}. Called from one thread at a time.
 */
@ConsumerType
public interface Assessor {

    /** An assessor's verdict on a running trial. */
    enum Verdict { GOOD, BAD }

    /**
     * Judges a running trial after each intermediate result.
     *
     * @param trialId      the trial
     * @param history      its intermediate results so far, in sequence order
     * @return {@link Verdict#BAD} to stop it early (it ends EARLY_STOPPED)
     */
    Verdict assessTrial(String trialId, List<Double> history);

    /** A trial ended; {@code succeeded} is false for FAILED and cancelled trials. */
    default void trialEnd(String trialId, boolean succeeded) {
    }
}
