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
 * One experiment member's use of a platform, from {@link TrainingPlatform#open} to {@link #close}
 * or {@link #detach}: NNI's {@code TrainingService} without its polling.
 *
 * <h2>Call order</h2>
 * {@code open} &rarr; {@link #reattach} for each trial the experiment had live (on resume, and when
 * the platform came back) &rarr; {@link #submit} / {@link #cancel} / {@link #sendParameters} /
 * queries, any number of times, from any manager thread &rarr; exactly one of {@link #close} or
 * {@link #detach}, which the manager may call more than once. Nothing else is called after either.
 *
 * <h2>Close or detach: what the manager calls when</h2>
 * <ul>
 * <li>{@link #close()}: the <em>user</em> stops the experiment ({@code nni:halt}, REST
 *     {@code DELETE /experiment}, or a {@code run} ending). The session cancels the trials it still
 *     has, then releases everything.</li>
 * <li>{@link #detach()}: the <em>runtime</em> lets go of the session while the experiment goes on
 *     elsewhere or later. The session releases its threads, watches and connections and leaves every
 *     trial as it is. The manager detaches when
 *     <ul>
 *     <li>the runtime stops: framework shutdown (SIGTERM, Ctrl-C, {@code felix:stop 0}), or the
 *         manager component is deactivated or updated; {@code resume} later re-attaches;</li>
 *     <li>the platform service is unregistered: its bundle is stopped, updated or uninstalled, or
 *         its component is re-created for a new configuration. The experiment keeps its live
 *         trials as they are (message {@code platform 'x' is away: ...}) and submits nothing; when
 *         a platform of that name is registered again it opens a new session and calls
 *         {@link #reattach} for every live trial. If the user stops the experiment meanwhile, its
 *         live trials end {@code SYS_CANCELED} with a message saying their processes may still
 *         run.</li>
 *     </ul></li>
 * </ul>
 * A platform therefore never cancels trials from its component's {@code @Deactivate}: the manager
 * has detached its sessions by then.
 *
 * <h2>Reporting</h2>
 * The session pushes every change to the manager through its {@link SessionContext}: each status
 * change with {@link SessionContext#trialChanged} and every metric line with
 * {@link SessionContext#metricReported}. The manager never polls. For each trial, every metric is
 * reported <em>before</em> the terminal status, and exactly one terminal status is reported.
 *
 * <h2>Threading and errors</h2>
 * Methods are thread-safe and return promptly: {@code submit} queues (and starts without waiting
 * for the start), {@code cancel} starts the kill.
 * Long work happens on the session's own threads, which {@code close} and {@code detach} end. An
 * exception from a method fails only that call; the manager logs it, shows its message and carries
 * on. A {@link TransientPlatformException} from {@code submit} makes the manager keep the trial
 * WAITING and submit it again later (same id and sequence id); a plain {@link PlatformException}
 * fails the trial.
 */
@ConsumerType
public interface TrainingSession extends AutoCloseable {

    /**
     * Accepts a trial. Returns at once with the trial WAITING (queueing is the session's job) or,
     * if it could be started immediately, RUNNING.
     *
     * <p>Starts are the session's to pipeline: the manager calls {@code submit} from one thread for
     * up to {@code trialConcurrency} trials in a row, each as soon as the previous call returned, so
     * a session must not wait in {@code submit} for a trial's process, job or keeper to start (a
     * round trip to a machine, a cluster or a child process): it starts the trial on its own
     * threads, any number of starts in flight at once, and reports RUNNING (or the failure) through
     * {@link SessionContext#trialChanged} when the start is done. A trial cancelled while its start
     * is in flight ends cancelled, its process killed once it exists.
     *
     * @throws TransientPlatformException if the trial cannot be accepted now but may be later (a
     *                                    quota, HTTP 429/503); the manager keeps it WAITING with the
     *                                    message and submits it again with backoff
     * @throws PlatformException          if the trial can never run here (for example it needs more
     *                                    GPUs than the platform has); the manager marks it FAILED
     *                                    with the message
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
     * Takes back a trial that this platform started for the same experiment before an earlier
     * session of it was detached or lost (the runtime stopped or was killed, or the platform
     * service went away and came back). Called once per trial that the experiment shows WAITING,
     * RUNNING or UNKNOWN, before any {@link #submit}. The trial carries what the platform reported
     * last: {@link TrialJob#handle()}, {@link TrialJob#host()} and {@link TrialJob#attributes()}
     * as stored. When the platform still has the trial (its process runs, or it ended and left its
     * result behind), the session tracks it again exactly as if it had submitted it: it reports
     * every metric the trial wrote (the manager ignores those already stored) and then its terminal
     * status.
     *
     * @param trial the trial as the experiment last stored it
     * @return the trial as the platform sees it now, or empty when the platform has lost it (the
     *         manager then submits a trial that never started again, and marks the others FAILED,
     *         as NNI does on resume); a trial shown WAITING that may have started (the runtime
     *         stopped while it was being started) is never answered empty, or it would run twice
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
     * @return how many more trials this session could start now; {@link Capacity#unknown()} (the
     *         default) lets the manager submit as the experiment's concurrency allows. Call
     *         {@link SessionContext#capacityChanged()} when it changes. Cheap, never blocks.
     */
    default Capacity capacity() {
        return Capacity.unknown();
    }

    /**
     * What the session shows people of itself: its state and its machines' GPUs, for the web UI's
     * machines view. May be called at any time, from any thread, also while other calls run, and
     * often (each open page asks every few seconds). It must return at once: never wait for the
     * network, a process or a lock held across one. Return the last reading, with its time; a
     * session that wants fresher figures starts a reading on its own threads and shows it next time.
     *
     * @return the view, or empty (the default) when the session shows nothing of its machines
     * @since 1.1
     */
    default Optional<SessionView> view() {
        return Optional.empty();
    }

    /**
     * @return how this session's trials report to the manager, shown by {@code nni:platforms} and
     *         the web UI; empty (the default) when the platform does not say. A platform whose
     *         keepers may report through files (or choose by themselves) should say which it chose
     *         and why. Cheap, never blocks.
     * @since 1.1
     */
    default Optional<ReportChannel> reportChannel() {
        return Optional.empty();
    }

    /**
     * Ends the session because the user stops the experiment: cancels the trials it still runs (as
     * {@code USER_CANCELED}, reported as usual), stops its threads, releases connections.
     * Idempotent; never throws.
     */
    @Override
    void close();

    /**
     * Lets go of the session because the runtime or the platform service goes away while the
     * experiment goes on (see the class description for when): stops its threads, closes its
     * watches and connections, and leaves every trial exactly as it is, running, so that a later
     * session's {@link #reattach} takes it back. Reports nothing, neither now nor later.
     * Idempotent; never throws; returns promptly (it does not wait for trials).
     */
    void detach();
}
