package nni.api.tuner;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.osgi.annotation.versioning.ProviderType;

/**
 * What a {@link Dispatcher} is given (the experiment) and how it answers (NNI's dispatcher-to-manager
 * commands). The manager implements it, one per experiment run.
 *
 * <p>The answering methods may be called from any thread, at any time until the dispatcher is
 * closed; each returns at once, and the experiment handles them on its own thread in call order.
 *
 * @since 1.1
 */
@ProviderType
public interface DispatcherContext {

    String experimentId();

    /** @return the experiment's folder: {@code log/} and {@code checkpoint/} are in it */
    Path experimentDirectory();

    /** @return true when the experiment is resumed (NNI's {@code NNI_MODE=resume}), false when it is new */
    boolean resuming();

    /**
     * @return the experiment's definition in NNI's canonical form, as NNI gives its dispatcher
     *         ({@code --exp_params}): without {@code searchSpace}, secrets masked
     */
    Map<String, Object> experimentConfig();

    /** @return the search space, as written (NNI's {@code IN}) */
    Map<String, Object> searchSpace();

    AlgorithmSection tuner();

    Optional<AlgorithmSection> assessor();

    /**
     * @return on resume, what the algorithm is told it has seen (NNI's {@code FD} after {@code ID}):
     *         the finished trials' {@code {"parameter", "value", "id"}} and every result imported
     *         before, as one JSON list; {@code "[]"} for a new experiment
     */
    String resumeData();

    /**
     * @return on resume, the packed parameters of the trials that were still waiting or running
     *         when the experiment stopped and continue now (NNI v3's {@code AD}: each
     *         {@code {"parameter_id", "parameter_source": "resumed", "parameters", "parameter_index"}}),
     *         so that the algorithm's parameter ids continue after theirs and it knows their results
     *         come from an earlier run; empty when there are none and for a new experiment
     */
    List<String> resumedParameters();

    /** NNI's {@code TR}: a new trial, its packed parameters verbatim (they become its {@code parameter.cfg}). */
    void newTrial(String parameters);

    /**
     * NNI's {@code SP}: more parameters for a running trial (multi-phase); the packed parameters
     * carry {@code trial_job_id} and {@code parameter_index} k, and reach the trial as
     * {@code parameter_<k>.cfg}.
     */
    void sendParameters(String parameters);

    /** NNI's {@code NO}: nothing more for now; the experiment waits ({@code TUNER_NO_MORE_TRIAL}) until a new trial comes. */
    void noMoreTrials();

    /** NNI's {@code KI}: stop a trial early (it ends {@code EARLY_STOPPED}). */
    void killTrial(String trialId);

    /**
     * The algorithm failed (NNI's {@code ER}, or its process died or stopped answering): the
     * experiment ends in ERROR with {@code message}, which says what happened and shows what the
     * algorithm logged last.
     */
    void failed(String message);
}
