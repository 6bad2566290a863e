package nni.manager.internal.experiment;

import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.function.Consumer;
import java.util.function.Supplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import nni.api.model.TrialJob;
import nni.config.ExperimentConfig;
import nni.manager.internal.ids.Ids;
import nni.store.ExperimentStore;
import nni.store.TrialEvent;

/**
 * Draws an experiment's trials from its algorithm and submits them, within its concurrency, its
 * limits ({@code maxTrialNumber}, {@code maxExperimentDuration} once reached) and its members'
 * room, as NNI's nnimanager does, driven by events instead of its 5 s loop: the algorithm is asked
 * for as many trials as slots are free and not promised already (NNI's {@code GE}); what it
 * answers ({@link Algorithm.Host}) is handled on the experiment's thread, at once when it answers
 * on that thread (a Java tuner, inside the request), else queued there, followed by a fill.
 * Everything here runs on the experiment's thread.
 */
final class TrialDrawing implements Algorithm.Host {

    private static final Logger LOG = LoggerFactory.getLogger(TrialDrawing.class);
    /** Trials submitted in one task of the experiment's thread before it turns to other work. */
    private static final int SUBMITS_PER_TURN = 16;

    /** What drawing needs of its experiment's state, which changes as it runs. */
    interface Run {
        ExperimentStatus status();

        /** The experiment's status changes (experiment time counts in RUNNING, NO_MORE_TRIAL, TUNER_NO_MORE_TRIAL). */
        void become(ExperimentStatus next);

        /** Nothing more is drawn and no trial is live: the experiment is DONE. */
        void done();

        /** The algorithm failed: the experiment fails with its message (unless it stops or settled). */
        void algorithmFailed(String message, Throwable cause);

        /** @return whether the user stops the experiment (nothing more is submitted) */
        boolean stopping();

        Algorithm algorithm();

        ExperimentConfig config();
    }

    private final String experimentId;
    private final Path directory;
    private final ExperimentStore store;
    private final Trials trials;
    private final TrialScheduler scheduler;
    private final ExperimentThread thread;
    /** Tells the experiment's listeners that a trial changed. */
    private final Consumer<String> changed;
    private final Run run;

    /** Trials the algorithm gave, packed, waiting for a free slot (NNI's waitingTrials). */
    private final ArrayDeque<String> offered = new ArrayDeque<>();
    /** Trials asked of the algorithm and not given yet. */
    private int requested;
    /**
     * The algorithm said it has nothing for now (NNI's {@code NO}): it is asked again only when
     * something changes (a trial ends, a limit or the search space changes), as NNI asks.
     */
    private boolean algorithmWaits;
    private boolean tunerExhausted;
    private boolean durationReached;
    private long nextSequenceId;
    private int submitted;
    /** How many fills began, nested ones included: a submit during which none began left the others' trials alone. */
    private long fillsBegun;

    TrialDrawing(String experimentId, Path directory, ExperimentStore store, Trials trials, TrialScheduler scheduler,
            ExperimentThread thread, Consumer<String> changed, Run run) {
        this.experimentId = experimentId;
        this.directory = directory;
        this.store = store;
        this.trials = trials;
        this.scheduler = scheduler;
        this.thread = thread;
        this.changed = changed;
        this.run = run;
    }

    /** The trials an opened experiment had: new ones count on from there. */
    void history(long lastSequenceId, int trialCount) {
        nextSequenceId = lastSequenceId + 1;
        submitted = trialCount;
    }

    /** @return the sequence id the next trial gets (stored in the profile, as NNI does) */
    long nextSequenceId() {
        return nextSequenceId;
    }

    /** Something changed (a trial ended, a limit or the search space): the algorithm is asked again. */
    void askAgain() {
        algorithmWaits = false;
    }

    /** The duration limit was reached, or (false) raised again. */
    void durationReached(boolean reached) {
        durationReached = reached;
    }

    /** @return whether the tuner said it has no more parameters for good */
    boolean tunerExhausted() {
        return tunerExhausted;
    }

    boolean limitsReached() {
        Integer maxTrials = run.config().maxTrialNumber();
        return durationReached || (maxTrials != null && submitted >= maxTrials);
    }

    /**
     * Draws and submits trials while the concurrency, the limits and the members' room allow;
     * settles the experiment when done. At most {@value #SUBMITS_PER_TURN} per turn: the rest in a
     * later task, so that whatever waits on the experiment's thread (a stop above all) is not
     * queued behind a thousand submissions.
     */
    void fill() {
        fillsBegun++;
        if (!run.status().counting() || !scheduler.attached() || run.stopping()) {
            return;
        }
        int concurrency = run.config().trialConcurrency();
        int live = trials.live().size();
        // the members' free slots, when they know them: the concurrency is a ceiling, not a promise
        TrialScheduler.Turn room = scheduler.new Turn();
        int turn = 0;
        while (live < concurrency && room.any() && !limitsReached() && (!tunerExhausted || !offered.isEmpty())) {
            if (run.stopping() || scheduler.detaching() || !run.status().counting()) {
                return;
            }
            if (turn == SUBMITS_PER_TURN) {
                thread.execute(this::fill, () -> "the rest of a fill");
                return;
            }
            if (offered.isEmpty() && !requestTrials(Math.min(concurrency - live, room.free()), turn)) {
                break;
            }
            turn++;
            long fillsBefore = fillsBegun;
            Trial trial = submit(offered.poll(), room.place().index());
            // a platform may end the trial inside its submit (a process that exited before submit
            // returned); that end fills at once, inside this fill, and the nested fill may submit
            // more trials or settle the experiment: then the live trials are counted again (a walk
            // over all trials, so only then)
            live = fillsBegun != fillsBefore ? trials.live().size() : trial.live() ? live + 1 : live;
        }
        if (!run.status().counting()) {
            return; // settled inside the submit: DONE is not to be turned back into NO_MORE_TRIAL
        }
        if (limitsReached() && run.status() != ExperimentStatus.NO_MORE_TRIAL) {
            run.become(ExperimentStatus.NO_MORE_TRIAL);
        }
        // parameters kept (issue 25): what an exhausted tuner gave before it said so still becomes trials
        if ((limitsReached() || (tunerExhausted && offered.isEmpty())) && live == 0) {
            run.done();
        }
    }

    /**
     * Asks the algorithm for as many trials as slots are free and not promised already: a Java
     * tuner answers at once, a dispatcher later (its trials then wait in {@link #offered}).
     *
     * @return whether a trial is there to submit now
     */
    private boolean requestTrials(int slots, int turn) {
        int wanted = Math.min(slots, SUBMITS_PER_TURN - turn) - requested;
        Integer maxTrials = run.config().maxTrialNumber();
        if (maxTrials != null) {
            wanted = Math.min(wanted, maxTrials - submitted - requested);
        }
        if (wanted > 0 && !algorithmWaits) {
            requested += wanted;
            run.algorithm().request(wanted);
        }
        return !offered.isEmpty() && run.status().counting();
    }

    private Trial submit(String packedJson, int member) {
        long sequenceId = nextSequenceId++;
        submitted++;
        String trialId = Ids.trialId(trials::contains);
        Trials.Unpacked unpacked = Trials.unpack(experimentId, trialId, packedJson);
        Trial trial = new Trial(trialId, sequenceId, unpacked.parameterId(), unpacked.parameters(), packedJson);
        trial.member = member;
        trial.job = TrialJob.waiting(scheduler.application(trial), directory.resolve("trials").resolve(trialId).toString(), "");
        if (member != 0) {
            store.saveTrialMember(trialId, member); // before the trial exists: a row without a trial is harmless
        }
        // stored first: a trial the database did not take does not exist (the failure fails the experiment)
        store.addEvent(new TrialEvent(trial.job.submitTime().toEpochMilli(), trialId, "WAITING", packedJson,
                trial.job.url(), sequenceId, null));
        trials.add(trial);
        changed.accept(trialId);
        scheduler.send(trial);
        return trial;
    }

    // ------------------------------------------------------------------ the algorithm's answers

    @Override
    public void offer(String packedParameters) {
        onThread(() -> {
            requested = Math.max(0, requested - 1);
            algorithmWaits = false;
            offered.add(packedParameters);
            if (run.status() == ExperimentStatus.TUNER_NO_MORE_TRIAL && !tunerExhausted) {
                run.become(ExperimentStatus.RUNNING);
            }
        }, "a new trial from the algorithm");
    }

    @Override
    public void noMoreTrials(boolean forGood) {
        onThread(() -> {
            requested = 0;
            algorithmWaits = true;
            tunerExhausted |= forGood;
            if (run.status() == ExperimentStatus.RUNNING) {
                run.become(ExperimentStatus.TUNER_NO_MORE_TRIAL);
                LOG.info("experiment {}: the tuner has no more parameters{}", experimentId, forGood ? "" : " for now");
            }
        }, "no more trials from the algorithm");
    }

    @Override
    public void kill(String trialId) {
        onThread(() -> {
            Trial trial = trials.get(trialId);
            if (trial != null && trial.live()) {
                LOG.info("experiment {}: the assessor stops trial {} early", experimentId, trialId);
                scheduler.cancel(trial, true);
            }
        }, "an early stop of trial " + trialId);
    }

    @Override
    public void sendParameters(String packedParameters) {
        onThread(() -> scheduler.deliverParameters(packedParameters), "more parameters for a trial");
    }

    @Override
    public void fail(String message, Throwable cause) {
        onThread(() -> run.algorithmFailed(message, cause), "a failure of the algorithm");
    }

    private void onThread(Runnable work, String what) {
        if (thread.isCurrent()) {
            work.run();
        } else {
            thread.execute(() -> {
                work.run();
                fill();
            }, () -> what);
        }
    }
}
