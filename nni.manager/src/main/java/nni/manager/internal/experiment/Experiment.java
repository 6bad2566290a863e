package nni.manager.internal.experiment;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ScheduledExecutorService;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;

import nni.config.GivenConfig;
import nni.api.experiment.ExperimentUpdate;
import nni.api.model.TrialStatus;
import nni.api.platform.PlatformException;
import nni.api.platform.TrainingSession;
import nni.config.ExperimentConfig;
import nni.store.ExperimentStore;
import nni.store.MetricRecord;
import nni.store.Profile;

/**
 * One experiment run: NNI's nnimanager for one experiment, driven by events instead of its 5 s
 * loops. Every decision (ask the algorithm for trials, submit, react to a status, feed a metric
 * to the tuner or assessor, enforce a limit) runs on the {@link ExperimentThread}, so the tuner
 * and assessor are called from one thread at a time and the state needs no locks. The tuner and
 * assessor are behind one {@link Algorithm}, spoken to as NNI speaks to its dispatcher: requests
 * for trials, metrics and ends go out; trials, kills and more parameters come back.
 *
 * <p>The experiment holds its identity and definition, runs its lifecycle and wires its parts,
 * which do the rest: {@link RunStatus} keeps its status and what a change of it sets off,
 * {@link UserActions} carries out the user's changes, {@link ExperimentStop} the stop and detach,
 * {@link TrialDrawing} asks the algorithm for trials and submits them within the limits,
 * {@link TrialScheduler} places them on the members (one {@link MemberContext} and platform session
 * per training service) and talks to their platforms,
 * {@link TrialReports} keeps what the platforms report of trials, {@link MetricIntake} checks,
 * stores and feeds the metric lines, {@link ExperimentClock} keeps its time and duration limit,
 * {@link Trials} holds the trials and the read model, {@link ExperimentFiles} its folder.
 * Platforms report through their member's context, from their threads, straight to the part that
 * handles it; statuses are handed to the experiment's thread in call order, so a trial's metrics
 * reach the tuner before its end.
 *
 * <p>The platform sessions are ended by {@link TrainingSession#close()} when the user stops the
 * experiment ({@link #stop}) and by {@link TrainingSession#detach()} when the runtime stops
 * ({@link #detach()}) or a platform service goes away ({@link #platformLost}); see
 * {@link TrainingSession} for the contract.
 */
public final class Experiment {

    private static final Logger LOG = LoggerFactory.getLogger(Experiment.class);
    static final ObjectMapper JSON = new ObjectMapper();

    private final String id;
    private final Path directory;
    private final ExperimentStore store;
    private final boolean readOnly;
    /** The experiment's single thread; null in view mode. */
    private final ExperimentThread thread;
    private final Trials trials = new Trials(this::platformOf);
    private final ExperimentClock clock;
    private final TrialScheduler scheduler;
    private final MetricIntake intake;
    private final TrialReports reports;
    private final TrialDrawing drawing;
    private final ExperimentStop stop;
    private final UserActions actions;
    private final RunStatus run;

    private volatile ExperimentConfig config;
    /** The tuner and assessor; null in view mode. */
    private volatile Algorithm algorithm;
    private volatile int trialsWhenOpened;
    /**
     * Told of each change (status, trials, metrics, limits), on the thread that made it: the
     * manager's listeners (NNI's experiment registry, the web UI's live stream).
     */
    private volatile ExperimentManager.Listener listener = ExperimentListeners.NONE;
    private final List<String> definitionProblems;

    private Experiment(String id, ExperimentFiles.Opened opened, boolean readOnly, ExperimentClock clock) {
        this.id = id;
        this.directory = opened.directory();
        this.config = opened.config();
        this.definitionProblems = opened.definitionProblems();
        this.store = opened.store();
        this.readOnly = readOnly;
        this.clock = clock;
        this.run = new RunStatus(id, clock, new RunStatus.Effects() {
            @Override
            public void changed() {
                listener.changed(Experiment.this);
            }

            @Override
            public void counting() {
                armDurationLimit();
            }

            @Override
            public void saveProfile() {
                Experiment.this.saveProfile();
            }

            @Override
            public void closeAlgorithm() {
                Experiment.this.closeAlgorithm();
            }
        });
        this.thread = readOnly ? null : new ExperimentThread(id, e -> {
            if (run.get() != ExperimentStatus.ERROR) {
                run.fail(e.getMessage(), e);
            }
        }, run::get);
        ScheduledExecutorService executor = thread == null ? null : thread.executor();
        this.intake = new MetricIntake(id, store, trials, thread, new MetricIntake.Experimenting() {
            @Override
            public String refusal() {
                return scheduler.detaching() ? "detached" : run.get() == ExperimentStatus.STOPPED ? "stopped" : null;
            }

            @Override
            public Algorithm algorithm() {
                return run.get() == ExperimentStatus.ERROR ? null : algorithm;
            }

            @Override
            public void metricsStored(String trialId) {
                listener.metricsStored(Experiment.this, trialId);
            }
        });
        this.reports = new TrialReports(id, store, trials, thread, () -> config.maxTrialDuration(),
                trial -> Experiment.this.scheduler.cancel(trial, true), trialId -> listener.trialChanged(this, trialId),
                this::trialEnded);
        List<MemberContext> members = new ArrayList<>();
        for (int index = 0; index < config.trainingServices().size(); index++) {
            members.add(new MemberContext(this, reports, intake, index));
        }
        this.scheduler = new TrialScheduler(id, members, trials, executor, () -> config.trialGpuNumber(),
                () -> run.get().counting(), reports);
        this.drawing = new TrialDrawing(id, directory, store, trials, scheduler, thread,
                trialId -> listener.trialChanged(this, trialId), new TrialDrawing.Run() {
                    @Override
                    public ExperimentStatus status() {
                        return run.get();
                    }

                    @Override
                    public void become(ExperimentStatus next) {
                        if (next.counting()) {
                            run.becomeCounting(next);
                        } else {
                            run.becomeStatic(next);
                        }
                    }

                    @Override
                    public void done() {
                        run.ended(ExperimentStatus.DONE);
                        LOG.info("experiment {}: done, {} trials", id, trials.size());
                        run.settled().complete(ExperimentStatus.DONE);
                    }

                    @Override
                    public void algorithmFailed(String message, Throwable cause) {
                        ExperimentStatus status = run.get();
                        // as NNI's manager: an algorithm failing on the last results fails the experiment that
                        // ended by itself, also while that end is closed; a stop asked while trials ran does not
                        if (status == ExperimentStatus.DONE || stop.closingAfterItsEnd()
                                || !status.settled() && status != ExperimentStatus.STOPPING) {
                            run.fail(message, cause);
                        }
                    }

                    @Override
                    public boolean stopping() {
                        return stop.stopping();
                    }

                    @Override
                    public Algorithm algorithm() {
                        return algorithm;
                    }

                    @Override
                    public ExperimentConfig config() {
                        return config;
                    }
                });
        RunningParts parts = new RunningParts(this, run, store, thread, trials, scheduler);
        this.stop = new ExperimentStop(parts);
        this.actions = new UserActions(parts, drawing, clock);
    }

    /** Creates a new experiment's directory and store; {@link #start} runs it. */
    static Experiment create(String id, ExperimentConfig config) throws IOException {
        return create(id, config, null);
    }

    /** Creates a new experiment's directory and store, keeping the config file as given (null: none); {@link #start} runs it. */
    static Experiment create(String id, ExperimentConfig config, GivenConfig given) throws IOException {
        return new Experiment(id, ExperimentFiles.create(id, config, given), false, ExperimentClock.startingNow());
    }

    /** Opens an existing experiment to continue it, its secrets read back; {@link #resume} runs it. */
    static Experiment reopen(String id, Path directory) throws IOException {
        ExperimentFiles.Opened opened = ExperimentFiles.reopen(id, directory);
        Experiment experiment = new Experiment(id, opened, false, ExperimentClock.of(opened.store().latestProfile().orElse(null)));
        experiment.loadHistory();
        return experiment;
    }

    /** Opens an existing experiment read-only (NNI's view mode). */
    static Experiment view(String id, Path directory) throws IOException {
        ExperimentFiles.Opened opened = ExperimentFiles.view(id, directory);
        Experiment experiment = new Experiment(id, opened, true, ExperimentClock.of(opened.store().latestProfile().orElse(null)));
        experiment.loadHistory();
        experiment.run.viewed();
        return experiment;
    }

    private void loadHistory() {
        drawing.history(trials.load(store, id, directory, config.trainingServices().size()), trials.size());
        trialsWhenOpened = trials.size();
    }

    /**
     * @return each run-time value of the stored definition that had the wrong type, as
     *         {@code field: reason} (a resume refuses to run on with the value put in its place)
     */
    List<String> definitionProblems() {
        return definitionProblems;
    }

    /** @return how many trials the experiment had when it was opened, before a resume added any (issue 25) */
    public int trialsWhenOpened() {
        return trialsWhenOpened;
    }

    // ------------------------------------------------------------------ lifecycle

    /** Starts the algorithm, opens the members' platform sessions and starts submitting trials. */
    void start(Algorithm newAlgorithm, TrialScheduler.SessionOpener opener) throws PlatformException {
        run(newAlgorithm, false, opener);
    }

    /**
     * Continues a reopened experiment: gives the algorithm the history (finished results, imported
     * data, the trials it already has), re-attaches trials the platforms still run (submits again
     * those that never started; the others are FAILED, as NNI does), then submits as usual.
     */
    void resume(Algorithm newAlgorithm, TrialScheduler.SessionOpener opener) throws PlatformException {
        run(newAlgorithm, true, opener);
    }

    private void run(Algorithm newAlgorithm, boolean resuming, TrialScheduler.SessionOpener opener) throws PlatformException {
        algorithm = newAlgorithm;
        if (resuming) {
            newAlgorithm.start(drawing, true, trials.ordered(), importedData());
        } else {
            newAlgorithm.start(drawing, false, List.of(), List.of());
        }
        scheduler.open(opener);
        thread.call(() -> {
            if (run.get() == ExperimentStatus.ERROR) {
                return null; // the algorithm failed already
            }
            if (resuming) {
                scheduler.takeBackAfterRestart();
                clock.reopened();
            }
            run.becomeCounting(ExperimentStatus.RUNNING);
            saveProfile();
            drawing.fill();
            return null;
        });
    }

    /**
     * Stops the experiment as NNI does: no new trials, every live trial cancelled (its processes
     * killed), then the sessions closed. Waits until the trials ended or {@code patience} passed.
     * While a member's platform is away, its live trials end SYS_CANCELED at once: nobody can kill
     * them now.
     */
    public void stop(Duration patience) {
        stop.stop(patience);
    }

    /**
     * Leaves the trials running and releases everything else, as after a crash: used when the
     * runtime itself shuts down, so that {@code resume} re-attaches the trials. The sessions are
     * detached first (so they report nothing more), then the events already queued are stored,
     * without submitting anything new.
     */
    public void detach() {
        stop.detach();
    }

    // ------------------------------------------------------------------ platform callbacks (through MemberContext; metrics go to MetricIntake)

    /** A member's capacity changed: it may take more trials now. */
    void capacityChanged() {
        thread.execute(drawing::fill, () -> "a capacity change");
    }

    /** A trial's end is stored ({@link TrialReports#ended}): the algorithm hears of it, then the experiment submits or settles. */
    private void trialEnded(Trial trial, TrialStatus ended) {
        if (algorithm != null && run.get() != ExperimentStatus.ERROR) {
            drawing.askAgain();
            algorithm.trialEnded(trial, ended);
        }
        if (run.get() == ExperimentStatus.STOPPING) {
            stop.trialEnded();
        } else {
            drawing.fill();
        }
    }

    /** @return a stored metric's value ({@link MetricRecord#data()}) as a number: a plain number or a dict's {@code default}; else null */
    public static Double storedNumber(String data) {
        return MetricIntake.storedNumber(data);
    }

    // ------------------------------------------------------------------ user actions

    /** Cancels a trial on the user's behalf ({@code DELETE /trial-jobs/{id}}, {@code nni:cancel}). */
    public void cancelTrial(String trialId) {
        requireWritable("cancel a trial");
        actions.cancelTrial(trialId);
    }

    /**
     * Feeds results of trials run elsewhere to the tuner ({@code nnictl experiment import}) and
     * keeps them (NNI's {@code IMPORT_DATA} event) for a resume to feed again.
     *
     * @param json NNI's import format, see {@link ImportedResults}
     * @return how many results the tuner took
     * @throws IllegalArgumentException when the data is not results, or the tuner does not use imported results
     */
    public int importData(String json) {
        requireWritable("import data");
        return actions.importData(json);
    }

    /** @return the imported data, each as it was sent (NNI's {@code GET /experiment/imported-data}) */
    public List<String> importedData() {
        return actions.importedData();
    }

    /**
     * Changes a limit or the search space at run time; the value was checked where the request
     * entered ({@link ExperimentUpdate}'s parses). Raising a limit of a DONE experiment makes it run
     * again, as in NNI.
     *
     * @throws IllegalStateException when the experiment is read-only, stopping or stopped, or busy
     * @throws IllegalArgumentException naming {@code searchSpace} when the tuner refuses the space
     */
    public void update(ExperimentUpdate update) {
        requireWritable("update the experiment");
        actions.update(update);
    }

    private void requireWritable(String what) {
        if (readOnly) {
            throw new IllegalStateException("cannot " + what + ": experiment " + id + " is open read-only (view)");
        }
        ExperimentStatus status = run.get();
        if (status == ExperimentStatus.STOPPED || status == ExperimentStatus.STOPPING) {
            throw new IllegalStateException("cannot " + what + ": experiment " + id + " is " + status);
        }
    }

    // ------------------------------------------------------------------ for the parts: algorithm, definition, limits

    /** @return the tuner and assessor (null before the start and in view mode) */
    Algorithm algorithm() {
        return algorithm;
    }

    /** Takes an updated definition (on the experiment's thread); @return it */
    ExperimentConfig changeConfig(ExperimentConfig updated) {
        config = updated;
        return updated;
    }

    /** Tells the listener that the definition changed. */
    void configChanged() {
        listener.configChanged(this);
    }

    /** Sets who hears of this experiment's changes; the manager does this before the experiment starts. */
    void listen(ExperimentManager.Listener newListener) {
        listener = newListener;
    }

    void armDurationLimit() {
        Duration max = config.maxExperimentDuration();
        clock.armLimit(max, thread.executor(), () -> {
            if (run.get().counting()) {
                LOG.info("experiment {}: maxExperimentDuration {} reached", id, max);
                drawing.durationReached(true);
                drawing.fill();
            }
        });
    }

    /** @return milliseconds of experiment time (NNI's execDuration), counted while running */
    public long execMillis() {
        return clock.execMillis();
    }

    /** @return completes once the algorithm has ended ({@link Algorithm#ended()}) */
    CompletionStage<Void> closeAlgorithm() {
        Algorithm open = algorithm;
        if (open == null) {
            return CompletableFuture.completedFuture(null);
        }
        try {
            open.close();
            return open.ended();
        } catch (RuntimeException e) {
            LOG.warn("experiment {}: closing its algorithm failed", id, e);
            return CompletableFuture.completedFuture(null);
        }
    }

    /**
     * A member's platform service went away under the experiment (its bundle was stopped, updated
     * or reconfigured); the registry detaches the session right after this. The experiment keeps
     * the member's live trials as they are, with the reason as their message, keeps its status,
     * submits nothing there and waits for a platform of that name to be registered again
     * ({@link #platformArrived}). Its duration limit keeps counting.
     */
    void platformLost(int member, String reason) {
        thread.execute(() -> scheduler.lost(member, reason), () -> "the loss of its platform (" + reason + ")");
    }

    /**
     * A platform was registered; every member that lost a platform of that name opens a new
     * session, takes its live trials back into it ({@link TrainingSession#reattach}) and the
     * experiment continues.
     */
    void platformArrived(String platform) {
        if (!scheduler.waitsFor(platform)) {
            return;
        }
        thread.execute(() -> {
            if (run.get() != ExperimentStatus.STOPPED) {
                scheduler.arrived(platform);
                drawing.fill();
            }
        }, () -> "the return of platform '" + platform + "'");
    }

    /** @return why a trial's member submits nothing now (its platform is away or could not be opened); or empty */
    public Optional<String> waitingForPlatform(String trialId) {
        Trial trial = trials.get(trialId);
        return trial == null || readOnly ? Optional.empty() : scheduler.awayReason(trial);
    }

    /** @return the platform name of a member (its {@code trainingService} entry's; 0 is the only one of a plain experiment) */
    private String platformOf(int member) {
        return String.valueOf(config.trainingServices().get(member).get("platform"));
    }

    /**
     * @return why the experiment submits nothing now on some of its members: each away member's
     *         reason (its platform went away, or could not be opened), joined; or empty
     */
    public Optional<String> waitingForPlatform() {
        return scheduler.awayReason();
    }

    void saveProfile() {
        store.saveProfile(new Profile(json(config.masked().canonical()), id, clock.execMillis() / 1000, clock.startTime(),
                clock.endTime(), directory.toString(), drawing.nextSequenceId(), 0));
    }

    // ------------------------------------------------------------------ reading

    /** @return each member (training service) as it is now: its open session, or why its platform is away */
    public List<MemberState> members() {
        return scheduler.memberStates();
    }

    public String id() {
        return id;
    }

    public ExperimentStatus status() {
        return run.get();
    }

    public List<String> errors() {
        return run.errors();
    }

    /** @return the definition with its real secrets, for the platforms; show others {@link ExperimentConfig#masked()} */
    public ExperimentConfig config() {
        return config;
    }

    public Path directory() {
        return directory;
    }

    public boolean readOnly() {
        return readOnly;
    }

    public ExperimentStore store() {
        return store;
    }

    public long startTime() {
        return clock.startTime();
    }

    public Long endTime() {
        return clock.endTime();
    }

    /** @return completes with DONE, ERROR, STOPPED or VIEWED once the experiment settles */
    public CompletableFuture<ExperimentStatus> settled() {
        return run.settled();
    }

    /** @return the trials in sequence order, as this experiment sees them now */
    public List<TrialView> trials() {
        return trials.views();
    }

    /** @return the trials in sequence order, their intermediate results counted and not copied */
    public List<TrialSummary> summaries() {
        return trials.summaries();
    }

    public Optional<TrialView> trial(String trialId) {
        return trials.view(trialId);
    }

    /** Counts of trials by status, for {@code nni:top} and the run mode's progress line. */
    public Map<TrialStatus, Integer> counts() {
        return trials.counts();
    }

    /** @return the live session running a trial, or empty (view mode, unknown trial, or its platform away) */
    public Optional<TrainingSession> sessionOf(String trialId) {
        Trial trial = trials.get(trialId);
        return readOnly || trial == null ? Optional.empty() : scheduler.sessionOf(trial);
    }

    /** @return the experiment's own optimisation direction: true when the tuner maximizes */
    public boolean maximizing() {
        Object mode = config.tuner() == null ? null : config.tuner().classArgs().get("optimize_mode");
        return !"minimize".equals(mode);
    }

    static String json(Object value) {
        try {
            return JSON.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("cannot write JSON: " + e.getMessage(), e);
        }
    }
}
