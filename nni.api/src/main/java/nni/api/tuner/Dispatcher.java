package nni.api.tuner;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import org.osgi.annotation.versioning.ConsumerType;

import nni.api.model.TrialStatus;

/**
 * One experiment run's tuner and assessor as a conversation rather than calls: NNI's dispatcher
 * protocol (nni-core §2.5). Where {@link Tuner} answers each request at once, a dispatcher answers
 * whenever it is ready, through its {@link DispatcherContext}: a request for {@code n} trials may
 * be answered by fewer, later, or by {@link DispatcherContext#noMoreTrials()} for now (an advisor
 * such as Hyperband gives the next round's trials once the round's results are in).
 *
 * <p>Made by {@link DispatcherProvider#start}. The manager calls these methods from the
 * experiment's one thread, in the order things happen; they hand the command on and return at once
 * (they never wait for the algorithm). Commands given before the algorithm is ready are kept and
 * given once it is. After {@link #close()} nothing else is called but {@link #ended()}.
 *
 * @since 1.1
 */
@ConsumerType
public interface Dispatcher {

    /** NNI's {@code GE}: trial slots were freed; the algorithm owes this many more trials. */
    void requestTrials(int count);

    /**
     * NNI's {@code ME}: a trial reported a metric; {@code metric} is its JSON line unchanged
     * ({@code {"parameter_id", "trial_job_id", "type", "sequence", "value"}}). Final results and
     * requests for more parameters ({@code REQUEST_PARAMETER}, multi-phase) always come;
     * intermediate ({@code PERIODICAL}) ones only when {@link #wantsIntermediateResults()}.
     */
    void reportMetric(String metric);

    /** @return whether the algorithm reads intermediate results (it has an assessor, or is an advisor) */
    boolean wantsIntermediateResults();

    /**
     * NNI's {@code EN}: a trial ended.
     *
     * @param hyperParameters the packed parameters the trial was started with, verbatim
     */
    void trialEnded(String trialId, TrialStatus status, String hyperParameters);

    /**
     * NNI's {@code SS}: the user changed the search space (already checked by the provider's
     * {@link DispatcherProvider#checkSearchSpace}). An algorithm that cannot take it answers
     * {@link DispatcherContext#refuseChange} before returning (since 1.2); the change is then refused.
     */
    void updateSearchSpace(Map<String, Object> searchSpace);

    /**
     * NNI's {@code FD}: results of trials run elsewhere, NNI's JSON list {@code [{"parameter", "value"}]}
     * (checked by the manager). An algorithm that does not learn from them answers
     * {@link DispatcherContext#refuseChange} before returning (since 1.2); the import is then refused.
     */
    void importData(String results);

    /**
     * NNI's {@code TE}: the experiment stops (or the runtime lets go of it). The algorithm gets a
     * bounded time to end, then is ended. Idempotent; reports nothing afterwards but what
     * {@link #ended()} says.
     */
    void close();

    /**
     * When the algorithm has ended after {@link #close()}. Until then it may still report through
     * {@link DispatcherContext#failed} a failure it met with what it was given before the close,
     * and nothing else: NNI's dispatcher hears that its algorithm raised on the last results only
     * at the next command, which may be the close itself. The manager waits for this stage (a
     * bounded while) when it closes an experiment that ended by itself, and such a failure makes
     * that experiment end in ERROR; after a stop asked for while trials ran it is only logged.
     *
     * @return completes once the algorithm has ended (its process exited or was ended); the default,
     *         for an algorithm that ends within {@link #close()}, is complete already
     * @since 1.3
     */
    default CompletionStage<Void> ended() {
        return CompletableFuture.completedFuture(null);
    }
}
