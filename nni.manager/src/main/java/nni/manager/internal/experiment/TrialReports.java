package nni.manager.internal.experiment;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import nni.api.model.TrialJob;
import nni.api.model.TrialStatus;
import nni.store.ExperimentStore;
import nni.store.TrialEvent;
import nni.store.TrialPlatformRecord;

/**
 * Keeps what the platforms report of an experiment's trials: each reported state is merged with
 * what was known (a report that leaves the handle, host or attributes empty keeps them), stored as
 * the trial's event and told to the experiment's listeners; a trial that starts running gets its
 * {@code maxTrialDuration} timer; an end is stored before the experiment acts on it
 * ({@link Ends}). The scheduler's answers (a trial accepted, refused, launching) come here too.
 * Runs on the experiment's thread.
 */
final class TrialReports implements TrialScheduler.Outcomes {

    private static final Logger LOG = LoggerFactory.getLogger(TrialReports.class);

    /** What the experiment does once a trial's end is stored: tell the algorithm, submit or settle. */
    @FunctionalInterface
    interface Ends {
        void ended(Trial trial, TrialStatus status);
    }

    private final String experimentId;
    private final ExperimentStore store;
    private final Trials trials;
    private final ExperimentThread thread;
    /** The experiment's limit on one trial's run time, as it is now (it may be updated); null: none. */
    private final Supplier<Duration> maxTrialDuration;
    /** Stops a trial early (its run time is up). */
    private final Consumer<Trial> stopEarly;
    /** Tells the experiment's listeners that a trial changed. */
    private final Consumer<String> changed;
    private final Ends ends;

    TrialReports(String experimentId, ExperimentStore store, Trials trials, ExperimentThread thread,
            Supplier<Duration> maxTrialDuration, Consumer<Trial> stopEarly, Consumer<String> changed, Ends ends) {
        this.experimentId = experimentId;
        this.store = store;
        this.trials = trials;
        this.thread = thread;
        this.maxTrialDuration = maxTrialDuration;
        this.stopEarly = stopEarly;
        this.changed = changed;
        this.ends = ends;
    }

    /** A member's platform reported a trial's new state, from the platform's thread; handled on the experiment's. */
    void reportedBy(int member, TrialJob trial) {
        thread.execute(() -> {
            Trial known = trials.get(trial.id());
            if (known != null && known.member != member) {
                LOG.warn("experiment {}: member {} reported trial {} of member {}, ignored", experimentId, member, trial.id(),
                        known.member);
                return;
            }
            reported(trial);
        }, () -> "status " + trial.status() + " of trial " + trial.id());
    }

    /** A trial's state as its platform reports it; on the experiment's thread. */
    @Override
    public void reported(TrialJob reported) {
        Trial trial = trials.get(reported.id());
        if (trial == null) {
            LOG.warn("experiment {}: status {} of unknown trial {} ignored", experimentId, reported.status(), reported.id());
            return;
        }
        TrialJob known = trial.job;
        if (known.status().isTerminal()) {
            return;
        }
        TrialJob job = withPlatformFacts(reported, known);
        if (job.status() == TrialStatus.FAILED && trial.cancelRequested) {
            // killed by the cancel before its platform took the cancel in (or by a platform that cannot tell)
            job = job.toBuilder().status(TrialStatus.USER_CANCELED).earlyStopped(false)
                    .message(job.message().isEmpty() ? "cancelled" : "cancelled (" + job.message() + ")").build();
        }
        if (job.status().isTerminal()) {
            ended(trial, job);
            return;
        }
        trial.job = job;
        if (known.status() != job.status() || !known.message().equals(job.message())) {
            long at = job.status() == TrialStatus.RUNNING && job.startTime() != null ? job.startTime().toEpochMilli()
                    : System.currentTimeMillis();
            if (known.status() != job.status()) {
                store.addEvent(new TrialEvent(at, job.id(), job.status().name(), null, job.url(), trial.sequenceId,
                        job.message().isEmpty() ? null : job.message()));
            }
            changed.accept(job.id());
        }
        Duration max = maxTrialDuration.get();
        if (job.status() == TrialStatus.RUNNING && known.status() != TrialStatus.RUNNING && max != null) {
            trial.durationLimit = thread.executor().schedule(() -> {
                if (trial.live()) {
                    LOG.info("experiment {}: trial {} exceeded maxTrialDuration {}", experimentId, trial.id, max);
                    stopEarly.accept(trial);
                }
            }, max.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    /**
     * @return the reported state, keeping the handle, host and attributes known before where the
     *         report leaves them empty; stores them when they changed
     */
    private TrialJob withPlatformFacts(TrialJob reported, TrialJob known) {
        TrialJob.Builder merged = reported.toBuilder();
        boolean kept = false;
        if (reported.handle().isEmpty() && !known.handle().isEmpty()) {
            merged.handle(known.handle());
            kept = true;
        }
        if (reported.host().isEmpty() && !known.host().isEmpty()) {
            merged.host(known.host());
            kept = true;
        }
        if (reported.attributes().isEmpty() && !known.attributes().isEmpty()) {
            merged.attributes(known.attributes());
            kept = true;
        }
        TrialJob job = kept ? merged.build() : reported;
        if (!job.handle().equals(known.handle()) || !job.host().equals(known.host()) || !job.attributes().equals(known.attributes())) {
            store.saveTrialPlatform(new TrialPlatformRecord(job.id(), job.handle(), job.host(), job.attributes()));
        }
        return job;
    }

    /** A trial ended (reported, refused, cancelled before it started): stored, told, then the experiment acts. */
    @Override
    public void ended(Trial trial, TrialJob ended) {
        trial.job = ended;
        trial.cancelRetry();
        if (trial.durationLimit != null) {
            trial.durationLimit.cancel(false);
        }
        long at = ended.endTime() == null ? System.currentTimeMillis() : ended.endTime().toEpochMilli();
        store.addEvent(new TrialEvent(at, trial.id, ended.status().name(), null, ended.url(), trial.sequenceId,
                ended.message().isEmpty() ? null : ended.message()));
        changed.accept(trial.id);
        ends.ended(trial, ended.status());
    }

    @Override
    public void messageChanged(Trial trial) {
        changed.accept(trial.id);
    }

    @Override
    public void launching(Trial trial, boolean launching) {
        if (launching && !trial.launched) {
            store.saveTrialLaunch(trial.id, System.currentTimeMillis());
        } else if (!launching && trial.launched) {
            store.forgetTrialLaunch(trial.id);
        }
        trial.launched = launching;
    }

    @Override
    public void parametersSent(String trialId, String packed) {
        store.addEvent(new TrialEvent(System.currentTimeMillis(), trialId, "ADD_HYPERPARAMETER", packed, null, null, null));
    }

    /**
     * Stores the user's cancel of a trial (NNI's {@code USER_TO_CANCEL} event) before its platform
     * is asked: from then on the trial counts as USER_CANCELED, also for a resume after the runtime
     * died before the platform reported its end, and an end the platform reports as FAILED (the
     * signal's exit code) is stored as USER_CANCELED.
     */
    @Override
    public void cancelRequested(Trial trial) {
        store.addEvent(new TrialEvent(System.currentTimeMillis(), trial.id, "USER_TO_CANCEL", null, trial.job.url(),
                trial.sequenceId, null));
        trial.cancelRequested = true;
    }
}
