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
 * Called on the experiment's thread (inside a {@link Dispatcher} method, as an algorithm that
 * answers at once does), an answer is handled before that method returns, so such an algorithm
 * needs no thread of its own. The other methods only read what the experiment was started with
 * and may be called from any thread.
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

    /**
     * @return on resume, every trial the experiment had, in sequence order, with its parameter id,
     *         parameters, results and status (what an algorithm that keeps its own record, a Java
     *         {@link Tuner}, replays); empty for a new experiment. Made when first asked, so read it
     *         in {@link DispatcherProvider#start}, before the continuing trials report more
     * @since 1.2
     */
    List<PastTrial> pastTrials();

    /**
     * @return on resume, every import of results made before ({@link Dispatcher#importData}), each
     *         as it was sent, oldest first; empty for a new experiment. Also part of {@link #resumeData()}
     * @since 1.2
     */
    List<String> importedData();

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

    /**
     * Nothing more, ever (a finite search space is used up; a Java {@link Tuner}'s empty
     * {@code generateParameters}): unlike {@link #noMoreTrials()} the experiment asks for no more
     * trials, lets the live ones finish and then ends DONE ({@code TUNER_NO_MORE_TRIAL} meanwhile).
     * Trials given before this call are still run.
     *
     * @since 1.2
     */
    void exhausted();

    /**
     * Refuses the change the manager is giving: called during {@link Dispatcher#updateSearchSpace}
     * (the tuner cannot take the new space) or {@link Dispatcher#importData} (it does not learn
     * from imported results), on the thread that called it. The manager then refuses the user's
     * request and keeps nothing of it: a search space is refused with {@code reason} (the old one
     * stays), an import as one the tuner does not learn from ({@code reason} is logged) and it is
     * not kept for a resume. Heard only during such a call on its
     * thread (what an algorithm that answers at once can do); at any other time it is ignored,
     * and a change not refused during the call is taken.
     *
     * @param reason what the user is shown, naming the problem
     * @since 1.2
     */
    void refuseChange(String reason);

    /** NNI's {@code KI}: stop a trial early (it ends {@code EARLY_STOPPED}). */
    void killTrial(String trialId);

    /**
     * The algorithm failed (NNI's {@code ER}, or its process died or stopped answering): the
     * experiment ends in ERROR with {@code message}, which says what happened and shows what the
     * algorithm logged last. Also after {@link Dispatcher#close()}, until {@link Dispatcher#ended()}
     * completes, for a failure met with what was given before the close (since 1.3).
     */
    void failed(String message);
}
