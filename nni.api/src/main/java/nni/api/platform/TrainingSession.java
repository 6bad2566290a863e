package nni.api.platform;

import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.Optional;

import org.osgi.annotation.versioning.ConsumerType;

import nni.api.model.HyperParameters;
import nni.api.model.TrialApplication;
import nni.api.model.TrialJob;

/**
 * One experiment's use of a platform, from {@link TrainingPlatform#open} to {@link #close}: NNI's
 * {@code TrainingService} without its polling.
 *
 * <h2>Call order</h2>
 * {@code open} &rarr; {@link #submit} / {@link #cancel} / {@link #sendParameters} / queries, any number
 * of times, from any manager thread &rarr; {@link #close} once. Nothing is called after {@code close}.
 *
 * <h2>Reporting</h2>
 * The session pushes every change to the manager through its {@link SessionContext}: each status
 * change with {@link SessionContext#trialChanged} and every metric line with
 * {@link SessionContext#metricReported}. The manager never polls. For each trial, every metric is
 * reported <em>before</em> the terminal status, and exactly one terminal status is reported.
 *
 * <h2>Threading and errors</h2>
 * Methods are thread-safe and return promptly: {@code submit} queues, {@code cancel} starts the kill.
 * Long work happens on the session's own threads, which {@code close} ends. An exception from a
 * method fails only that call; the manager logs it, shows its message and carries on.
 */
@ConsumerType
public interface TrainingSession extends AutoCloseable {

    /**
     * Accepts a trial. Returns at once with the trial WAITING (queueing is the session's job) or,
     * if it could be started immediately, RUNNING.
     *
     * @throws PlatformException if the trial can never run here (for example it needs more GPUs than
     *                           the platform has); the manager marks it FAILED with the message
     */
    TrialJob submit(TrialApplication application) throws PlatformException;

    /**
     * Cancels a trial. A waiting trial ends at once; a running one is killed (whole process tree:
     * terminate, grace period, kill). Its terminal status, {@code EARLY_STOPPED} when
     * {@code earlyStopped} else {@code USER_CANCELED}, is reported through the context once every
     * metric it wrote is reported. Cancelling an unknown or ended trial does nothing.
     */
    void cancel(String trialId, boolean earlyStopped);

    /**
     * Delivers another parameter set (multi-phase) to a running trial: written as
     * {@link HyperParameters#fileName()} in its directory.
     *
     * @throws PlatformException if the trial is not running or the platform cannot deliver it
     */
    default void sendParameters(String trialId, HyperParameters parameters) throws PlatformException {
        throw new PlatformException("this platform does not support multi-phase parameters");
    }

    /**
     * Takes back a trial that this platform started for the same experiment before the runtime
     * stopped (killed or shut down), when the experiment is resumed. Called once per trial that the
     * experiment's store shows WAITING or RUNNING, before any {@link #submit}. When the platform
     * still has the trial (its process runs, or it ended and left its result behind), the session
     * tracks it again exactly as if it had submitted it: it reports every metric the trial wrote
     * (the manager ignores those already stored) and then its terminal status.
     *
     * @param trial the trial as the experiment last stored it
     * @return the trial as the platform sees it now, or empty when the platform has lost it (the
     *         manager then marks it FAILED, as NNI does on resume)
     */
    default Optional<TrialJob> reattach(TrialJob trial) {
        return Optional.empty();
    }

    /** @return the trial as the session sees it now, or empty if it never had it */
    Optional<TrialJob> trial(String trialId);

    /** @return every trial the session was given and has not forgotten, in submission order */
    List<TrialJob> trials();

    /**
     * Opens one of a trial's files for reading: {@code stdout}, {@code stderr}, {@code trial.log}.
     *
     * @return empty when the trial or the file does not exist (yet)
     * @throws IOException when it exists but cannot be read
     */
    Optional<InputStream> openTrialFile(String trialId, String name) throws IOException;

    /**
     * Ends the session: cancels the trials it still runs (as {@code USER_CANCELED}, reported as
     * usual), stops its threads, releases connections. Idempotent; never throws.
     */
    @Override
    void close();
}
