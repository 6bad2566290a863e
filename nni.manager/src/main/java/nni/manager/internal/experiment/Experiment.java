package nni.manager.internal.experiment;

import java.io.IOException;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import nni.api.model.HyperParameters;
import nni.api.model.Placement;
import nni.api.model.TrialApplication;
import nni.api.model.TrialJob;
import nni.api.model.TrialStatus;
import nni.api.platform.PlatformException;
import nni.api.platform.TrainingSession;
import nni.api.platform.TransientPlatformException;
import nni.api.tuner.Assessor;
import nni.api.tuner.Tuner;
import nni.manager.internal.config.ExperimentConfig;
import nni.manager.internal.config.UpdatableFields;
import nni.manager.internal.retry.Backoff;
import nni.manager.internal.store.ExperimentStore;
import nni.manager.internal.store.MetricRecord;
import nni.manager.internal.store.Profile;
import nni.manager.internal.store.TrialEvent;
import nni.manager.internal.store.TrialPlatformRecord;
import nni.manager.internal.store.TrialRecord;

/**
 * One experiment run: NNI's nnimanager for one experiment, driven by events instead of its 5 s
 * loops. Every decision (ask the algorithm for trials, submit, react to a status, feed a metric
 * to the tuner or assessor, enforce a limit) runs on the experiment's single executor thread, so
 * the tuner and assessor are called from one thread at a time and the state needs no locks. The
 * tuner and assessor are behind one {@link Algorithm}, spoken to as NNI speaks to its dispatcher:
 * requests for trials, metrics and ends go out; trials, kills and more parameters come back.
 * Platforms report through the experiment's {@link MemberContext}, which calls
 * {@link #trialChanged} and {@link #metricReported} from their threads; both hand the work to that
 * executor in call order, so a trial's metrics reach the tuner before its end.
 *
 * <p>The platform session is ended by {@link TrainingSession#close()} when the user stops the
 * experiment ({@link #stop}) and by {@link TrainingSession#detach()} when the runtime stops
 * ({@link #detach()}) or the platform service goes away ({@link #platformLost}); see
 * {@link TrainingSession} for the contract.
 */
public final class Experiment {

    private static final Logger LOG = LoggerFactory.getLogger(Experiment.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final String LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
    private static final String ALPHANUMERIC = LETTERS + "0123456789";
    /** Trials submitted in one task of the experiment's thread before it turns to other work. */
    private static final int SUBMITS_PER_TURN = 16;
    /** How long a stop waits for the experiment's thread before it stops without it. */
    private static final Duration STOP_TURN_WAIT = Duration.ofSeconds(10);

    /** Opens the platform session for a member of an experiment; the manager's link to the platform registry. */
    @FunctionalInterface
    interface SessionOpener {
        TrainingSession open(MemberContext member) throws PlatformException;
    }

    /** One trial as the experiment tracks it. Fields are written on the executor thread only. */
    static final class Trial {
        final String id;
        final long sequenceId;
        final Object parameterId;
        final Map<String, Object> parameters;
        final String packed;
        volatile TrialJob job;
        // appended for every PERIODICAL metric, copied by readers: a copy-on-write list would copy on every append
        final List<Double> intermediate = Collections.synchronizedList(new ArrayList<>());
        volatile Double finalValue;
        ScheduledFuture<?> durationLimit;
        /** Transient submit failures in a row; the next wait doubles with each. */
        int failedSubmits;
        /** The pending submit retry, or null. */
        ScheduledFuture<?> retry;
        /** True while the trial waits to be submitted when the platform is back. */
        boolean submitWhenBack;

        Trial(String id, long sequenceId, Object parameterId, Map<String, Object> parameters, String packed) {
            this.id = id;
            this.sequenceId = sequenceId;
            this.parameterId = parameterId;
            this.parameters = parameters;
            this.packed = packed;
        }
    }

    private final String id;
    private final Path directory;
    private final ExperimentStore store;
    private final boolean readOnly;
    private final ScheduledExecutorService executor;
    private final Map<String, Trial> trials = new ConcurrentHashMap<>();
    private final List<String> errors = new CopyOnWriteArrayList<>();
    private final CompletableFuture<ExperimentStatus> settled = new CompletableFuture<>();
    private final java.util.concurrent.atomic.AtomicBoolean stopping = new java.util.concurrent.atomic.AtomicBoolean();

    private volatile ExperimentConfig config;
    private volatile ExperimentStatus status = ExperimentStatus.INITIALIZED;
    /** The tuner and assessor; null in view mode. */
    private volatile Algorithm algorithm;
    /** Trials the algorithm gave, packed, waiting for a free slot (NNI's waitingTrials). */
    private final ArrayDeque<String> offered = new ArrayDeque<>();
    /** Trials asked of the algorithm and not given yet. */
    private int requested;
    /**
     * The algorithm said it has nothing for now (NNI's {@code NO}): it is asked again only when
     * something changes (a trial ends, a limit or the search space changes), as NNI asks.
     */
    private boolean algorithmWaits;
    /** The platform session; null while the platform is away (see {@link #platformLost}). */
    private volatile TrainingSession session;
    private volatile SessionOpener opener;
    /** The experiment's one member; its platform is {@link ExperimentConfig#platform()}. */
    private final MemberContext member;
    /** Why the platform is away (no session while the experiment runs), or null. */
    private volatile String platformAway;
    /** Set once the runtime lets go of the experiment: nothing is submitted any more. */
    private volatile boolean detaching;
    private volatile long startTime;
    private volatile Long endTime;
    private volatile long previousExecMillis;
    private volatile long countingSince;
    private long nextSequenceId;
    private int submitted;
    private boolean tunerExhausted;
    private boolean durationReached;
    private ScheduledFuture<?> durationLimit;
    private CompletableFuture<Void> allEnded;
    /**
     * Told of each change (status, trials, metrics, limits), on the thread that made it: the
     * manager's listeners (NNI's experiment registry, the web UI's live stream).
     */
    private volatile ExperimentManager.Listener listener = ExperimentListeners.NONE;

    private Experiment(String id, Path directory, ExperimentConfig config, ExperimentStore store, boolean readOnly) {
        this.id = id;
        this.directory = directory;
        this.config = config;
        this.store = store;
        this.readOnly = readOnly;
        this.member = new MemberContext(this, 0);
        if (readOnly) {
            this.executor = null;
        } else {
            ScheduledThreadPoolExecutor thread = new ScheduledThreadPoolExecutor(1, r -> {
                Thread t = new Thread(r, "nni-experiment-" + id);
                t.setDaemon(true);
                return t;
            });
            // a stopped experiment's limits and retries must not hold its thread (or the runtime's stop) back
            thread.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
            thread.setRemoveOnCancelPolicy(true);
            this.executor = thread;
        }
    }

    /** Creates a new experiment's directory and store; {@link #start} runs it. */
    static Experiment create(String id, ExperimentConfig config) throws IOException {
        Path directory = config.experimentWorkingDirectory().resolve(id);
        CreationMarker.begin(directory);
        for (String folder : List.of("db", "log", "trials", "checkpoint")) {
            java.nio.file.Files.createDirectories(directory.resolve(folder));
        }
        SecretsFile.create(directory, config.secretValues());
        ExperimentStore store = ExperimentStore.open(directory);
        store.saveDefinition(ConfigCodec.write(config));
        CreationMarker.done(directory);
        Experiment experiment = new Experiment(id, directory, config, store, false);
        experiment.startTime = System.currentTimeMillis();
        return experiment;
    }

    /** Opens an existing experiment to continue it, its secrets read back; {@link #resume} runs it. */
    static Experiment reopen(String id, Path directory) throws IOException {
        ExperimentStore store = ExperimentStore.open(directory);
        ExperimentConfig config;
        try {
            ExperimentConfig masked = ConfigCodec.read(store.definition().orElseThrow(
                    () -> new IOException("experiment " + id + " in " + directory + " has no stored definition")));
            Map<String, String> masks = masked.secretValues();
            config = masks.isEmpty() ? masked
                    : masked.withSecretValues(SecretsFile.read(directory, masks.keySet()));
        } catch (IOException | RuntimeException e) {
            store.close();
            throw e;
        }
        Experiment experiment = new Experiment(id, directory, config, store, false);
        experiment.loadHistory();
        return experiment;
    }

    /** Opens an existing experiment read-only (NNI's view mode). */
    static Experiment view(String id, Path directory) throws IOException {
        ExperimentStore store = ExperimentStore.openReadOnly(directory);
        ExperimentConfig config = ConfigCodec.read(store.definition().orElseThrow(
                () -> new IOException("experiment " + id + " in " + directory + " has no stored definition")));
        Experiment experiment = new Experiment(id, directory, config, store, true);
        experiment.loadHistory();
        experiment.status = ExperimentStatus.VIEWED;
        experiment.settled.complete(ExperimentStatus.VIEWED);
        return experiment;
    }

    private void loadHistory() {
        Optional<Profile> profile = store.latestProfile();
        startTime = profile.map(Profile::startTime).orElse(System.currentTimeMillis());
        endTime = profile.map(Profile::endTime).orElse(null);
        previousExecMillis = profile.map(p -> p.execDurationSeconds() * 1000).orElse(0L);
        long maxSequence = -1;
        Map<String, TrialPlatformRecord> platformFacts = store.trialPlatforms();
        for (TrialRecord record : store.trials()) {
            Trial trial = trialOf(record, platformFacts.get(record.id()));
            trials.put(trial.id, trial);
            maxSequence = Math.max(maxSequence, trial.sequenceId);
        }
        for (MetricRecord metric : store.metrics(null, null)) {
            Trial trial = trials.get(metric.trialJobId());
            Double value = number(unwrapStored(metric.data()));
            if (trial != null && value != null) {
                if ("FINAL".equals(metric.type())) {
                    trial.finalValue = value;
                } else if ("PERIODICAL".equals(metric.type())) {
                    trial.intermediate.add(value);
                }
            }
        }
        nextSequenceId = maxSequence + 1;
        submitted = trials.size();
    }

    /** A trial's packed parameters read: the algorithm's id for them and the parameters a trial sees. */
    private record Unpacked(Object parameterId, Map<String, Object> parameters) {
    }

    private Unpacked unpack(String trialId, String packed) {
        try {
            JsonNode node = JSON.readTree(packed);
            Object parameterId = JSON.treeToValue(node.get("parameter_id"), Object.class);
            Map<String, Object> parameters = node.get("parameters") != null && node.get("parameters").isObject()
                    ? JSON.convertValue(node.get("parameters"), new TypeReference<Map<String, Object>>() { }) : Map.of();
            return new Unpacked(parameterId, parameters);
        } catch (JsonProcessingException | RuntimeException e) {
            LOG.warn("experiment {}: trial {} has unreadable parameters: {}", id, trialId, e.getMessage());
            return new Unpacked(null, Map.of());
        }
    }

    private Trial trialOf(TrialRecord record, TrialPlatformRecord facts) {
        String packed = record.parameters() == null ? "{}" : record.parameters();
        Unpacked unpacked = unpack(record.id(), packed);
        Trial trial = new Trial(record.id(), record.sequenceId() == null ? -1 : record.sequenceId(), unpacked.parameterId(),
                unpacked.parameters(), packed);
        TrialStatus trialStatus = TrialStatus.valueOf(record.status());
        Instant submit = Instant.ofEpochMilli(record.submitTime() == null ? 0 : record.submitTime());
        TrialJob.Builder job = TrialJob.builder(record.id()).sequenceId(trial.sequenceId).status(trialStatus).submitTime(submit)
                .startTime(record.startTime() == null ? null : Instant.ofEpochMilli(record.startTime()))
                .endTime(record.endTime() == null ? null : Instant.ofEpochMilli(record.endTime()))
                .workingDirectory(directory.resolve("trials").resolve(record.id()).toString()).url(record.logPath())
                .hyperParameters(HyperParameters.of(packed, 0)).earlyStopped(trialStatus == TrialStatus.EARLY_STOPPED)
                .message(record.message());
        if (facts != null) {
            job.handle(facts.handle()).host(facts.host()).attributes(facts.attributes());
        }
        trial.job = job.build();
        return trial;
    }

    // ------------------------------------------------------------------ lifecycle

    /** Starts with a Java tuner and assessor (may be null); see {@link #start(Algorithm, SessionOpener)}. */
    void start(Tuner newTuner, Assessor newAssessor, SessionOpener opener) throws PlatformException {
        start(new JavaAlgorithm(newTuner, newAssessor), opener);
    }

    /** Starts the algorithm, opens the platform session and starts submitting trials. */
    void start(Algorithm newAlgorithm, SessionOpener opener) throws PlatformException {
        algorithm = newAlgorithm;
        newAlgorithm.start(host, false, List.of(), List.of());
        this.opener = opener;
        session = opener.open(member);
        call(() -> {
            if (status == ExperimentStatus.ERROR) {
                return null; // the algorithm failed already
            }
            becomeCounting(ExperimentStatus.RUNNING);
            saveProfile();
            fill();
            return null;
        });
    }

    /** Resumes with a Java tuner and assessor (may be null); see {@link #resume(Algorithm, SessionOpener)}. */
    void resume(Tuner newTuner, Assessor newAssessor, SessionOpener opener) throws PlatformException {
        resume(new JavaAlgorithm(newTuner, newAssessor), opener);
    }

    /**
     * Continues a reopened experiment: gives the algorithm the history (finished results, imported
     * data, the trials it already has), re-attaches trials the platform still runs (submits again
     * those that never started; the others are FAILED, as NNI does), then submits as usual.
     */
    void resume(Algorithm newAlgorithm, SessionOpener opener) throws PlatformException {
        algorithm = newAlgorithm;
        newAlgorithm.start(host, true, orderedTrials(), importedData());
        this.opener = opener;
        session = opener.open(member);
        call(() -> {
            if (status == ExperimentStatus.ERROR) {
                return null; // the algorithm failed already
            }
            for (Trial trial : orderedTrials()) {
                if (trial.job.status().isTerminal()) {
                    continue;
                }
                takeBack(trial, "the runtime stopped while the trial was " + trial.job.status().name().toLowerCase()
                        + " and the platform no longer has it");
            }
            endTime = null;
            becomeCounting(ExperimentStatus.RUNNING);
            saveProfile();
            fill();
            return null;
        });
    }

    /**
     * Takes back a live trial into a newly opened session: re-attached when the platform still has
     * it, submitted again when it never started (with its id, sequence id and parameters; NNI v3
     * re-queues too), else FAILED with {@code lostWhy}.
     */
    private void takeBack(Trial trial, String lostWhy) {
        Optional<TrialJob> attached = Optional.empty();
        if (!waitsForSubmit(trial)) {
            try {
                attached = session.reattach(trial.job);
            } catch (RuntimeException e) {
                LOG.warn("experiment {}: re-attaching trial {} failed", id, trial.id, e);
            }
        }
        if (attached.isPresent()) {
            LOG.info("experiment {}: trial {} re-attached ({})", id, trial.id, attached.get().status());
            onTrialChanged(attached.get());
        } else if (trial.job.status() == TrialStatus.WAITING) {
            LOG.info("experiment {}: trial {} had not started; submitting it again", id, trial.id);
            cancelRetry(trial);
            send(trial);
        } else {
            endTrial(trial, trial.job.ended(TrialStatus.FAILED, Instant.now(), lostWhy));
        }
    }

    /** @return whether the trial is not on the platform but waits to be submitted (again) */
    private static boolean waitsForSubmit(Trial trial) {
        return trial.retry != null || trial.submitWhenBack;
    }

    private void cancelRetry(Trial trial) {
        if (trial.retry != null) {
            trial.retry.cancel(false);
            trial.retry = null;
        }
        trial.submitWhenBack = false;
    }

    /**
     * Stops the experiment as NNI does: no new trials, every live trial cancelled (its processes
     * killed), then the session closed. Waits until the trials ended or {@code patience} passed.
     * While the platform is away, live trials end SYS_CANCELED at once: nobody can kill them now.
     */
    public void stop(Duration patience) {
        if (!stopping.compareAndSet(false, true)) {
            return;
        }
        if (readOnly) {
            closeStore();
            return;
        }
        CompletableFuture<Void> ended;
        boolean threadAnswered = true;
        try {
            ended = call(STOP_TURN_WAIT, () -> {
                if (status == ExperimentStatus.STOPPED || status == ExperimentStatus.STOPPING) {
                    return allEnded == null ? CompletableFuture.<Void>completedFuture(null) : allEnded;
                }
                becomeStatic(ExperimentStatus.STOPPING);
                allEnded = new CompletableFuture<>();
                for (Trial trial : liveTrials()) {
                    if (waitsForSubmit(trial)) {
                        cancelRetry(trial);
                        endTrial(trial, trial.job.ended(TrialStatus.USER_CANCELED, Instant.now(), "cancelled before it started"));
                    } else if (session == null && platformAway != null) {
                        endTrial(trial, trial.job.ended(TrialStatus.SYS_CANCELED, Instant.now(), "the experiment stopped while "
                                + platformAway + "; the trial's processes may still run"));
                    } else {
                        cancelOnPlatform(trial.id, false);
                    }
                }
                checkAllEnded();
                return allEnded;
            });
        } catch (RuntimeException e) {
            // the thread is held by a platform call: the session's close below cancels the trials without it
            LOG.warn("experiment {}: its thread did not take the stop within {} s ({}); stopping without it", id,
                    STOP_TURN_WAIT.toSeconds(), e.getMessage());
            threadAnswered = false;
            ended = CompletableFuture.completedFuture(null);
        }
        try {
            ended.get(patience.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            LOG.warn("experiment {}: trials still running {} after the stop; closing the session anyway", id, patience);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException e) {
            LOG.warn("experiment {}: stopping failed", id, e.getCause());
        }
        TrainingSession open = session;
        if (open != null) {
            open.close();
        }
        closeAlgorithm();
        Supplier<Void> stopped = () -> {
            endTime = System.currentTimeMillis();
            becomeStatic(ExperimentStatus.STOPPED);
            saveProfile();
            return null;
        };
        try {
            if (threadAnswered) {
                call(stopped);
            } else {
                executor.shutdownNow();
                stopped.get();
            }
        } catch (RuntimeException e) {
            LOG.warn("experiment {}: storing the stop failed", id, e);
        }
        executor.shutdown();
        closeStore();
        settled.complete(ExperimentStatus.STOPPED);
    }

    /**
     * Leaves the trials running and releases everything else, as after a crash: used when the
     * runtime itself shuts down, so that {@code resume} re-attaches the trials. The session is
     * detached first (so it reports nothing more), then the events already queued are stored,
     * without submitting anything new.
     */
    public void detach() {
        if (!readOnly) {
            detaching = true;
            TrainingSession open = session;
            session = null;
            if (open != null) {
                open.detach();
            }
            closeAlgorithm();
            executor.shutdown();
            try {
                if (!executor.awaitTermination(DETACH_DRAIN_SECONDS, TimeUnit.SECONDS)) {
                    LOG.warn("experiment {}: events still queued {} s after detaching; resume re-checks those trials",
                            id, DETACH_DRAIN_SECONDS);
                    executor.shutdownNow();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                executor.shutdownNow();
            }
            settled.complete(status);
        }
        closeStore();
    }

    private static final long DETACH_DRAIN_SECONDS = 10;

    private void closeStore() {
        try {
            store.close();
        } catch (RuntimeException e) {
            LOG.warn("experiment {}: closing the store failed", id, e);
        }
    }

    // ------------------------------------------------------------------ scheduling

    /**
     * Submits trials while there are free slots and limits allow; settles the experiment when done.
     * At most {@value #SUBMITS_PER_TURN} per turn: the rest in a later task, so that whatever waits
     * on the experiment's thread (a stop above all) is not queued behind a thousand submissions.
     */
    private void fill() {
        if (!status.counting() || session == null || detaching || stopping.get()) {
            return;
        }
        int live = liveTrials().size();
        // the platform's free slots, when it knows them: the concurrency is a ceiling, not a promise
        int free = freeSlots();
        int turn = 0;
        while (live < config.trialConcurrency() && free > 0 && !limitsReached() && !tunerExhausted) {
            if (stopping.get() || detaching || !status.counting()) {
                return;
            }
            if (turn == SUBMITS_PER_TURN) {
                execute(this::fill, () -> "the rest of a fill");
                return;
            }
            if (offered.isEmpty() && !requestTrials(Math.min(config.trialConcurrency() - live, free), turn)) {
                break;
            }
            turn++;
            free--;
            submit(offered.poll());
            live++;
        }
        if (limitsReached() && status != ExperimentStatus.NO_MORE_TRIAL) {
            becomeCounting(ExperimentStatus.NO_MORE_TRIAL);
        }
        if ((limitsReached() || tunerExhausted) && live == 0) {
            endTime = System.currentTimeMillis();
            becomeStatic(ExperimentStatus.DONE);
            saveProfile();
            LOG.info("experiment {}: done, {} trials", id, trials.size());
            settled.complete(ExperimentStatus.DONE);
        }
    }

    private int freeSlots() {
        try {
            return session.capacity().freeTrialSlots().orElse(Integer.MAX_VALUE);
        } catch (RuntimeException e) {
            LOG.warn("experiment {}: the platform failed to tell its capacity", id, e);
            return Integer.MAX_VALUE;
        }
    }

    /**
     * Asks the algorithm for as many trials as slots are free and not promised already (NNI's
     * {@code GE}): a Java tuner answers at once, a dispatcher later (its trials then wait in
     * {@link #offered}).
     *
     * @return whether a trial is there to submit now
     */
    private boolean requestTrials(int slots, int turn) {
        int wanted = Math.min(slots, SUBMITS_PER_TURN - turn) - requested;
        Integer maxTrials = config.maxTrialNumber();
        if (maxTrials != null) {
            wanted = Math.min(wanted, maxTrials - submitted - requested);
        }
        if (wanted > 0 && !algorithmWaits) {
            requested += wanted;
            algorithm.request(wanted);
        }
        return !offered.isEmpty() && status.counting();
    }

    private boolean limitsReached() {
        Integer maxTrials = config.maxTrialNumber();
        return durationReached || (maxTrials != null && submitted >= maxTrials);
    }

    private void submit(String packedJson) {
        long sequenceId = nextSequenceId++;
        submitted++;
        String trialId = newTrialId();
        Unpacked unpacked = unpack(trialId, packedJson);
        Trial trial = new Trial(trialId, sequenceId, unpacked.parameterId(), unpacked.parameters(), packedJson);
        trial.job = TrialJob.waiting(application(trial), directory.resolve("trials").resolve(trialId).toString(), "");
        trials.put(trialId, trial);
        store.addEvent(new TrialEvent(trial.job.submitTime().toEpochMilli(), trialId, "WAITING", packedJson,
                trial.job.url(), sequenceId, null));
        listener.trialChanged(this, trialId);
        send(trial);
    }

    private TrialApplication application(Trial trial) {
        return TrialApplication.builder(trial.id).sequenceId(trial.sequenceId).hyperParameters(HyperParameters.of(trial.packed, 0))
                .placement(config.trialGpuNumber() == null ? Placement.none() : Placement.gpus(config.trialGpuNumber()))
                .build();
    }

    /**
     * Hands a WAITING trial to the platform. A transient refusal keeps it WAITING and schedules
     * another try (backoff, or the platform's {@code retryAfter}); a permanent one fails it; with
     * the platform away it waits for the platform's return.
     */
    private void send(Trial trial) {
        TrainingSession open = session;
        if (open == null || detaching) {
            trial.submitWhenBack = true;
            return;
        }
        try {
            TrialJob accepted = open.submit(application(trial));
            trial.failedSubmits = 0;
            onTrialChanged(accepted);
        } catch (TransientPlatformException e) {
            if (detaching) {
                trial.submitWhenBack = true; // the runtime is letting go: resume submits it
                return;
            }
            trial.failedSubmits++;
            Duration wait = Backoff.delay(trial.failedSubmits, e);
            String message = Backoff.message(wait, e.getMessage());
            LOG.info("experiment {}: trial {} not accepted yet, {}", id, trial.id, message);
            trial.job = trial.job.withMessage(message);
            listener.trialChanged(this, trial.id);
            trial.retry = executor.schedule(() -> {
                trial.retry = null;
                if (!trial.job.status().isTerminal() && status.counting()) {
                    send(trial);
                }
            }, wait.toMillis(), TimeUnit.MILLISECONDS);
        } catch (PlatformException | RuntimeException e) {
            LOG.warn("experiment {}: trial {} could not be submitted: {}", id, trial.id, e.getMessage());
            endTrial(trial, trial.job.ended(TrialStatus.FAILED, Instant.now(), e.getMessage()));
        }
    }


    private String newTrialId() {
        while (true) {
            StringBuilder id = new StringBuilder(5).append(LETTERS.charAt(RANDOM.nextInt(LETTERS.length())));
            for (int i = 0; i < 4; i++) {
                id.append(ALPHANUMERIC.charAt(RANDOM.nextInt(ALPHANUMERIC.length())));
            }
            if (!trials.containsKey(id.toString())) {
                return id.toString();
            }
        }
    }

    // ------------------------------------------------------------------ the algorithm's answers

    /**
     * What the algorithm answers, handled on the experiment's thread: at once when it answers on
     * that thread (a Java tuner, inside the request), else queued there, followed by a fill.
     */
    private final Algorithm.Host host = new Algorithm.Host() {
        @Override
        public void offer(String packedParameters) {
            onThread(() -> {
                requested = Math.max(0, requested - 1);
                algorithmWaits = false;
                offered.add(packedParameters);
                if (status == ExperimentStatus.TUNER_NO_MORE_TRIAL && !tunerExhausted) {
                    becomeCounting(ExperimentStatus.RUNNING);
                }
            }, "a new trial from the algorithm");
        }

        @Override
        public void noMoreTrials(boolean forGood) {
            onThread(() -> {
                requested = 0;
                algorithmWaits = true;
                tunerExhausted |= forGood;
                if (status == ExperimentStatus.RUNNING) {
                    becomeCounting(ExperimentStatus.TUNER_NO_MORE_TRIAL);
                    LOG.info("experiment {}: the tuner has no more parameters{}", id, forGood ? "" : " for now");
                }
            }, "no more trials from the algorithm");
        }

        @Override
        public void kill(String trialId) {
            onThread(() -> {
                Trial trial = trials.get(trialId);
                if (trial != null && !trial.job.status().isTerminal()) {
                    LOG.info("experiment {}: the assessor stops trial {} early", id, trialId);
                    cancelOnPlatform(trialId, true);
                }
            }, "an early stop of trial " + trialId);
        }

        @Override
        public void sendParameters(String packedParameters) {
            onThread(() -> deliverParameters(packedParameters), "more parameters for a trial");
        }

        @Override
        public void fail(String message, Throwable cause) {
            onThread(() -> {
                if (!status.settled() && status != ExperimentStatus.STOPPING) {
                    Experiment.this.fail(message, cause);
                }
            }, "a failure of the algorithm");
        }
    };

    private void onThread(Runnable work, String what) {
        if (Thread.currentThread().getName().equals("nni-experiment-" + id)) {
            work.run();
        } else {
            execute(() -> {
                work.run();
                fill();
            }, () -> what);
        }
    }

    /** NNI's {@code SP}: hands a running trial its next parameter set (multi-phase) and records it. */
    private void deliverParameters(String packed) {
        JsonNode node;
        try {
            node = JSON.readTree(packed);
        } catch (JsonProcessingException e) {
            LOG.warn("experiment {}: the algorithm sent parameters that are not JSON, ignored: {}", id, abbreviate(packed));
            return;
        }
        String trialId = node.path("trial_job_id").asText("");
        int index = node.path("parameter_index").asInt(-1);
        Trial trial = trials.get(trialId);
        if (trial == null || index < 1) {
            LOG.warn("experiment {}: the algorithm sent parameters for trial '{}' index {}, ignored", id, trialId, index);
            return;
        }
        TrainingSession open = session;
        try {
            if (open == null) {
                throw new PlatformException("the platform is away");
            }
            open.sendParameters(trialId, HyperParameters.of(packed, index));
        } catch (PlatformException | RuntimeException e) {
            LOG.warn("experiment {}: parameters {} not delivered to trial {}: {}", id, index, trialId, e.getMessage());
            return;
        }
        if (!node.path("parameters").isNull()) {
            store.addEvent(new TrialEvent(System.currentTimeMillis(), trialId, "ADD_HYPERPARAMETER", packed, null, null, null));
        }
    }

    // ------------------------------------------------------------------ platform callbacks (through MemberContext)

    /** A platform reported a trial's new state; handled on the experiment's thread. */
    void trialChanged(TrialJob trial) {
        execute(() -> onTrialChanged(trial), () -> "status " + trial.status() + " of trial " + trial.id());
    }

    /** A platform's capacity changed: it may take more trials now. */
    void capacityChanged() {
        execute(this::fill, () -> "a capacity change");
    }

    private void onTrialChanged(TrialJob reported) {
        Trial trial = trials.get(reported.id());
        if (trial == null) {
            LOG.warn("experiment {}: status {} of unknown trial {} ignored", id, reported.status(), reported.id());
            return;
        }
        TrialJob known = trial.job;
        if (known.status().isTerminal()) {
            return;
        }
        TrialJob job = withPlatformFacts(reported, known);
        if (job.status().isTerminal()) {
            endTrial(trial, job);
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
            listener.trialChanged(this, job.id());
        }
        if (job.status() == TrialStatus.RUNNING && known.status() != TrialStatus.RUNNING && config.maxTrialDuration() != null) {
            trial.durationLimit = executor.schedule(() -> {
                if (!trial.job.status().isTerminal()) {
                    LOG.info("experiment {}: trial {} exceeded maxTrialDuration {}", id, trial.id, config.maxTrialDuration());
                    cancelOnPlatform(trial.id, true);
                }
            }, config.maxTrialDuration().toMillis(), TimeUnit.MILLISECONDS);
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

    private void endTrial(Trial trial, TrialJob ended) {
        trial.job = ended;
        cancelRetry(trial);
        if (trial.durationLimit != null) {
            trial.durationLimit.cancel(false);
        }
        long at = ended.endTime() == null ? System.currentTimeMillis() : ended.endTime().toEpochMilli();
        store.addEvent(new TrialEvent(at, trial.id, ended.status().name(), null, ended.url(), trial.sequenceId,
                ended.message().isEmpty() ? null : ended.message()));
        listener.trialChanged(this, trial.id);
        if (algorithm != null && status != ExperimentStatus.ERROR) {
            algorithmWaits = false;
            algorithm.trialEnded(trial, ended.status());
        }
        if (status == ExperimentStatus.STOPPING) {
            checkAllEnded();
        } else {
            fill();
        }
    }

    private void checkAllEnded() {
        if (allEnded != null && liveTrials().isEmpty()) {
            allEnded.complete(null);
        }
    }

    /**
     * Stores one metric line (synchronously: durable when this returns) and hands it to the tuner or
     * assessor on the experiment's thread.
     */
    void metricReported(String trialId, String line) {
        requireOpenForMetrics();
        ParsedMetric metric = parseMetric(trialId, line);
        if (metric != null && (metric.record() == null || store.addMetric(metric.record()))) {
            execute(() -> {
                onMetric(trialId, metric);
                if (metric.record() != null) {
                    listener.metricsStored(this, trialId);
                }
            }, () -> "a " + metric.type() + " metric of trial " + trialId);
        }
    }

    /** Metrics arriving once the store is closing are refused, so that their sender keeps them. */
    private void requireOpenForMetrics() {
        if (detaching || status == ExperimentStatus.STOPPED) {
            throw new IllegalStateException("experiment " + id + " is " + (detaching ? "detached" : "stopped")
                    + " and takes no more metrics");
        }
    }

    /**
     * Stores a trial's metric lines in one transaction (durable together when this returns), then
     * hands the new ones to the tuner or assessor in order. Lines that are not metrics are skipped.
     */
    void metricsReported(String trialId, List<String> lines) {
        requireOpenForMetrics();
        List<ParsedMetric> metrics = new ArrayList<>(lines.size());
        List<String> refused = new ArrayList<>();
        List<ParsedMetric> requests = new ArrayList<>();
        for (String line : lines) {
            try {
                ParsedMetric metric = parseMetric(trialId, line);
                if (metric != null) {
                    (metric.record() == null ? requests : metrics).add(metric);
                }
            } catch (IllegalArgumentException e) {
                refused.add(e.getMessage());
            }
        }
        boolean[] fresh = store.addMetrics(metrics.stream().map(ParsedMetric::record).toList());
        List<ParsedMetric> stored = new ArrayList<>(fresh.length + requests.size());
        for (int i = 0; i < fresh.length; i++) {
            if (fresh[i]) {
                stored.add(metrics.get(i));
            }
        }
        stored.addAll(requests);
        if (!stored.isEmpty()) { // one task for the batch: a task per metric costs more than the metric
            execute(() -> {
                stored.forEach(metric -> onMetric(trialId, metric));
                listener.metricsStored(this, trialId);
            }, () -> stored.size() + " metrics of trial " + trialId + " (stored)");
        }
        if (!refused.isEmpty()) {
            throw new IllegalArgumentException(refused.size() + " of " + lines.size() + " lines were not metrics: " + refused);
        }
    }

    /**
     * A metric line: as stored (null for a request for parameters, which NNI does not store), its
     * value as the tuner gets it (null: not a number), and the line as reported.
     */
    private record ParsedMetric(String type, MetricRecord record, Double value, String line) {
    }

    /** @return the metric (with nothing to store for REQUEST_PARAMETER) */
    private ParsedMetric parseMetric(String trialId, String line) {
        JsonNode metric;
        try {
            metric = MetricFields.read(JSON, line);
        } catch (IOException e) {
            LOG.warn("experiment {}: trial {} reported a line that is not JSON, skipped: {}", id, trialId, abbreviate(line));
            throw new IllegalArgumentException("not a metric (invalid JSON): " + abbreviate(line));
        }
        String problem = metricProblem(trialId, metric);
        if (problem != null) {
            LOG.warn("experiment {}: trial {} reported a bad metric, skipped ({}): {}", id, trialId, problem, abbreviate(line));
            throw new IllegalArgumentException("not a metric (" + problem + "): " + abbreviate(line));
        }
        String type = metric.get("type").asText();
        if ("REQUEST_PARAMETER".equals(type)) {
            return new ParsedMetric(type, null, null, line);
        }
        JsonNode value = metric.get("value");
        String valueText = value == null || value.isNull() ? "null" : value.isTextual() ? value.asText() : value.toString();
        long sequence = metric.path("sequence").asLong(0);
        JsonNode parameterId = metric.get("parameter_id");
        // the number from the node already parsed; only a value sent as text (as NNI's SDK does) is parsed once more
        Double number = value != null && value.isNumber() ? Double.valueOf(value.asDouble()) : number(valueText);
        String literal = MetricFields.plainStringLiteral(valueText);
        return new ParsedMetric(type, new MetricRecord(System.currentTimeMillis(), trialId,
                parameterId == null || parameterId.isNull() ? null : parameterId.asText(), type, sequence,
                literal != null ? literal : json(valueText)), number, line);
    }

    private String metricProblem(String trialId, JsonNode metric) {
        if (!metric.isObject()) {
            return "not a JSON object";
        }
        JsonNode type = metric.get("type");
        if (type == null || !List.of("PERIODICAL", "FINAL", "REQUEST_PARAMETER", "CUSTOM").contains(type.asText())) {
            return "type is missing or not PERIODICAL, FINAL or REQUEST_PARAMETER";
        }
        JsonNode reportedId = metric.get("trial_job_id");
        if (reportedId != null && !reportedId.isNull() && !reportedId.asText().equals(trialId)) {
            return "trial_job_id " + reportedId.asText() + " is not the reporting trial " + trialId;
        }
        if (!trials.containsKey(trialId)) {
            return "experiment " + id + " has no trial " + trialId;
        }
        if (!"REQUEST_PARAMETER".equals(type.asText()) && !metric.has("value")) {
            return "value is missing";
        }
        return null;
    }

    private void onMetric(String trialId, ParsedMetric metric) {
        Trial trial = trials.get(trialId);
        if (trial == null || algorithm == null || status == ExperimentStatus.ERROR) {
            return;
        }
        if (metric.value() != null && "FINAL".equals(metric.type())) {
            trial.finalValue = metric.value();
        } else if (metric.value() != null && "PERIODICAL".equals(metric.type())) {
            trial.intermediate.add(metric.value());
        }
        algorithm.metric(trial, metric.type(), metric.value(), metric.line());
    }

    /** @return a metric value as a number: a plain number, or a dict's {@code default} entry */
    static Double number(String valueText) {
        Double plain = MetricFields.plainNumber(valueText);
        if (plain != null) {
            return plain;
        }
        try {
            JsonNode node = JSON.readTree(valueText);
            if (node != null && node.isTextual()) {
                node = JSON.readTree(node.asText());
            }
            if (node != null && node.isObject()) {
                node = node.get("default");
            }
            return node != null && node.isNumber() ? node.asDouble() : null;
        } catch (JsonProcessingException e) {
            return null;
        }
    }

    /** @return a stored metric's value ({@link MetricRecord#data()}) as a number: a plain number or a dict's {@code default}; else null */
    public static Double storedNumber(String data) {
        return number(unwrapStored(data));
    }

    private static String unwrapStored(String data) {
        try {
            JsonNode node = JSON.readTree(data);
            return node.isTextual() ? node.asText() : data;
        } catch (JsonProcessingException e) {
            return data;
        }
    }

    // ------------------------------------------------------------------ user actions

    /** Cancels a trial on the user's behalf ({@code DELETE /trial-jobs/{id}}, {@code nni:cancel}). */
    public void cancelTrial(String trialId) {
        requireWritable("cancel a trial");
        call(() -> {
            Trial trial = trials.get(trialId);
            if (trial == null) {
                throw new IllegalArgumentException("experiment " + id + " has no trial " + trialId);
            }
            if (!trial.job.status().isTerminal()) {
                if (!waitsForSubmit(trial) && session == null && platformAway != null) {
                    throw new IllegalStateException("cannot cancel trial " + trialId + " now: " + platformAway);
                }
                store.addEvent(new TrialEvent(System.currentTimeMillis(), trialId, "USER_TO_CANCEL", null,
                        trial.job.url(), trial.sequenceId, null));
                if (waitsForSubmit(trial)) {
                    endTrial(trial, trial.job.ended(TrialStatus.USER_CANCELED, Instant.now(), "cancelled before it started"));
                } else {
                    cancelOnPlatform(trialId, false);
                }
            }
            return null;
        });
    }

    private void cancelOnPlatform(String trialId, boolean earlyStopped) {
        TrainingSession open = session;
        if (open == null) {
            return;
        }
        try {
            open.cancel(trialId, earlyStopped);
        } catch (RuntimeException e) {
            LOG.warn("experiment {}: cancelling trial {} failed", id, trialId, e);
        }
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
        List<ImportedResults.Result> results = ImportedResults.parse(json);
        return call(() -> {
            if (algorithm == null || !algorithm.importData(results, json)) {
                throw new IllegalArgumentException("the tuner " + (config.tuner() == null ? "" : config.tuner().name() + " ")
                        + "does not learn from imported results; nothing was imported");
            }
            store.addEvent(new TrialEvent(System.currentTimeMillis(), "", "IMPORT_DATA", json, null, null, null));
            LOG.info("experiment {}: {} imported results given to the tuner", id, results.size());
            fill();
            return results.size();
        });
    }

    /** @return the imported data, each as it was sent (NNI's {@code GET /experiment/imported-data}) */
    public List<String> importedData() {
        return store.events().stream().filter(event -> "IMPORT_DATA".equals(event.event())).map(TrialEvent::data).toList();
    }

    /** What {@code nnictl update} can change while the experiment runs. */
    public enum Update { TRIAL_CONCURRENCY, MAX_TRIAL_NUM, MAX_EXEC_DURATION, SEARCH_SPACE }

    /**
     * Changes a limit or the search space at run time. Raising a limit of a DONE experiment makes
     * it run again, as in NNI.
     *
     * @throws IllegalArgumentException naming the field when the value is not acceptable
     */
    public void update(Update what, Object value) {
        requireWritable("update the experiment");
        // checked here, off the experiment's thread: a bad value waits for nothing
        Object checked = switch (what) {
            case TRIAL_CONCURRENCY -> UpdatableFields.trialConcurrency(value);
            case MAX_TRIAL_NUM -> UpdatableFields.maxTrialNumber(value);
            case MAX_EXEC_DURATION -> value instanceof Duration given ? given : UpdatableFields.maxExperimentDuration(value);
            case SEARCH_SPACE -> value;
        };
        call(() -> {
            ExperimentConfig c = config;
            ExperimentConfig next = switch (what) {
                case TRIAL_CONCURRENCY -> {
                    int concurrency = (Integer) checked;
                    yield new ExperimentConfig(c.experimentName(), c.searchSpace(), c.trialCommand(), c.trialCodeDirectory(),
                            concurrency, c.trialGpuNumber(), c.maxExperimentDuration(), c.maxTrialNumber(),
                            c.maxTrialDuration(), c.nniManagerIp(), c.debug(), c.logLevel(), c.experimentWorkingDirectory(),
                            c.tuner(), c.assessor(), c.trainingServices(), canonical(c, "trialConcurrency", concurrency),
                            c.secrets());
                }
                case MAX_TRIAL_NUM -> {
                    int max = (Integer) checked;
                    yield new ExperimentConfig(c.experimentName(), c.searchSpace(), c.trialCommand(), c.trialCodeDirectory(),
                            c.trialConcurrency(), c.trialGpuNumber(), c.maxExperimentDuration(), max,
                            c.maxTrialDuration(), c.nniManagerIp(), c.debug(), c.logLevel(), c.experimentWorkingDirectory(),
                            c.tuner(), c.assessor(), c.trainingServices(), canonical(c, "maxTrialNumber", max),
                            c.secrets());
                }
                case MAX_EXEC_DURATION -> {
                    Duration duration = (Duration) checked;
                    // the profile shows the value as it was written ("1h", 3600), as NNI's does
                    Object written = value instanceof Duration ? duration.toSeconds() + "s" : value;
                    if (duration.isNegative() || duration.isZero()) {
                        throw new IllegalArgumentException("maxExperimentDuration: expected a positive duration, got " + value);
                    }
                    yield new ExperimentConfig(c.experimentName(), c.searchSpace(), c.trialCommand(), c.trialCodeDirectory(),
                            c.trialConcurrency(), c.trialGpuNumber(), duration, c.maxTrialNumber(),
                            c.maxTrialDuration(), c.nniManagerIp(), c.debug(), c.logLevel(), c.experimentWorkingDirectory(),
                            c.tuner(), c.assessor(), c.trainingServices(),
                            canonical(c, "maxExperimentDuration", written), c.secrets());
                }
                case SEARCH_SPACE -> {
                    if (!(value instanceof Map<?, ?> space)) {
                        throw new IllegalArgumentException("searchSpace: expected a JSON object, got " + value);
                    }
                    @SuppressWarnings("unchecked")
                    Map<String, Object> searchSpace = (Map<String, Object>) space;
                    algorithm.updateSearchSpace(searchSpace);
                    yield new ExperimentConfig(c.experimentName(), searchSpace, c.trialCommand(), c.trialCodeDirectory(),
                            c.trialConcurrency(), c.trialGpuNumber(), c.maxExperimentDuration(), c.maxTrialNumber(),
                            c.maxTrialDuration(), c.nniManagerIp(), c.debug(), c.logLevel(), c.experimentWorkingDirectory(),
                            c.tuner(), c.assessor(), c.trainingServices(), canonical(c, "searchSpace", searchSpace),
                            c.secrets());
                }
            };
            config = next;
            algorithmWaits = false;
            store.saveDefinition(ConfigCodec.write(next));
            listener.configChanged(this);
            LOG.info("experiment {}: {} updated to {}", id, what, value);
            if (what == Update.MAX_EXEC_DURATION) {
                durationReached = false;
                scheduleDurationLimit();
            }
            if (status == ExperimentStatus.DONE && !limitsReached() && !tunerExhausted) {
                endTime = null;
                becomeCounting(ExperimentStatus.RUNNING);
            } else if (status == ExperimentStatus.NO_MORE_TRIAL && !limitsReached()) {
                becomeCounting(ExperimentStatus.RUNNING);
            }
            saveProfile();
            fill();
            return null;
        });
    }

    private static Map<String, Object> canonical(ExperimentConfig c, String key, Object value) {
        Map<String, Object> canonical = new LinkedHashMap<>(c.canonical() == null ? Map.of() : c.canonical());
        canonical.put(key, value);
        return canonical;
    }

    private void requireWritable(String what) {
        if (readOnly) {
            throw new IllegalStateException("cannot " + what + ": experiment " + id + " is open read-only (view)");
        }
        if (status == ExperimentStatus.STOPPED || status == ExperimentStatus.STOPPING) {
            throw new IllegalStateException("cannot " + what + ": experiment " + id + " is " + status);
        }
    }

    // ------------------------------------------------------------------ status and time

    private void becomeCounting(ExperimentStatus next) {
        if (!status.counting()) {
            countingSince = System.currentTimeMillis();
            scheduleDurationLimit();
        }
        setStatus(next);
    }

    private void setStatus(ExperimentStatus next) {
        ExperimentStatus previous = status;
        status = next;
        if (previous != next) {
            listener.changed(this);
        }
    }

    /** Sets who hears of this experiment's changes; the manager does this before the experiment starts. */
    void listen(ExperimentManager.Listener newListener) {
        listener = newListener;
    }

    private void becomeStatic(ExperimentStatus next) {
        if (status.counting()) {
            previousExecMillis += System.currentTimeMillis() - countingSince;
        }
        if (durationLimit != null) {
            durationLimit.cancel(false);
        }
        setStatus(next);
    }

    private void scheduleDurationLimit() {
        if (durationLimit != null) {
            durationLimit.cancel(false);
            durationLimit = null;
        }
        Duration max = config.maxExperimentDuration();
        if (max == null) {
            return;
        }
        long left = max.toMillis() - execMillis();
        durationLimit = executor.schedule(() -> {
            if (status.counting()) {
                LOG.info("experiment {}: maxExperimentDuration {} reached", id, max);
                durationReached = true;
                fill();
            }
        }, Math.max(0, left), TimeUnit.MILLISECONDS);
    }

    /** @return milliseconds of experiment time (NNI's execDuration), counted while running */
    public long execMillis() {
        long counted = previousExecMillis;
        return status.counting() ? counted + System.currentTimeMillis() - countingSince : counted;
    }

    private void fail(String message, Throwable cause) {
        LOG.error("experiment {}: {}", id, message, cause);
        errors.add(message);
        endTime = System.currentTimeMillis();
        becomeStatic(ExperimentStatus.ERROR);
        saveProfile();
        closeAlgorithm();
        settled.complete(ExperimentStatus.ERROR);
    }

    private void closeAlgorithm() {
        Algorithm open = algorithm;
        if (open != null) {
            try {
                open.close();
            } catch (RuntimeException e) {
                LOG.warn("experiment {}: closing its algorithm failed", id, e);
            }
        }
    }

    /**
     * The platform service went away under the experiment (its bundle was stopped, updated or
     * reconfigured); the registry detaches the session right after this. The experiment keeps its
     * live trials as they are, with the reason as their message, keeps its status, submits nothing
     * and waits for a platform of that name to be registered again ({@link #platformArrived}). Its
     * duration limit keeps counting.
     */
    void platformLost(String reason) {
        execute(() -> {
            session = null;
            platformAway = reason;
            LOG.warn("experiment {}: {}; its trials are left as they are until it is back", id, reason);
            for (Trial trial : liveTrials()) {
                trial.job = trial.job.withMessage(reason);
                listener.trialChanged(this, trial.id);
            }
        }, () -> "the loss of its platform (" + reason + ")");
    }

    /**
     * A platform was registered; if it is the one this experiment lost, open a new session, take
     * the live trials back into it ({@link TrainingSession#reattach}) and continue.
     */
    void platformArrived(String platform) {
        if (platformAway == null || !platform.equals(member.platform())) {
            return;
        }
        execute(() -> {
            if (platformAway == null || session != null || detaching || status == ExperimentStatus.STOPPED) {
                return;
            }
            String away = platformAway;
            try {
                session = opener.open(member);
            } catch (PlatformException | RuntimeException e) {
                LOG.warn("experiment {}: platform '{}' is back but refused a session: {}", id, platform, e.getMessage());
                return;
            }
            platformAway = null;
            LOG.info("experiment {}: platform '{}' is back; taking its trials back", id, platform);
            for (Trial trial : orderedTrials()) {
                if (!trial.job.status().isTerminal()) {
                    if (trial.job.message().equals(away)) {
                        trial.job = trial.job.withMessage("");
                        listener.trialChanged(this, trial.id);
                    }
                    takeBack(trial, "platform '" + platform + "' came back without this trial (" + away + ")");
                }
            }
            fill();
        }, () -> "the return of platform '" + platform + "'");
    }

    /** @return why the experiment submits nothing now: its platform is away; or empty */
    public Optional<String> waitingForPlatform() {
        return Optional.ofNullable(platformAway);
    }

    private void saveProfile() {
        store.saveProfile(new Profile(json(config.masked().canonical()), id, execMillis() / 1000, startTime, endTime,
                directory.toString(), nextSequenceId, 0));
    }

    // ------------------------------------------------------------------ reading

    public String id() {
        return id;
    }

    public ExperimentStatus status() {
        return status;
    }

    public List<String> errors() {
        return List.copyOf(errors);
    }

    /** @return the definition with its real secrets, for the platform; show others {@link ExperimentConfig#masked()} */
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
        return startTime;
    }

    public Long endTime() {
        return endTime;
    }

    /** @return completes with DONE, ERROR, STOPPED or VIEWED once the experiment settles */
    public CompletableFuture<ExperimentStatus> settled() {
        return settled;
    }

    /** @return the trials in sequence order, as this experiment sees them now */
    public List<TrialView> trials() {
        return orderedTrials().stream().map(t -> new TrialView(t.job, t.sequenceId, t.packed, t.finalValue,
                List.copyOf(t.intermediate))).toList();
    }

    /** @return the trials in sequence order, their intermediate results counted and not copied */
    public List<TrialSummary> summaries() {
        List<Trial> ordered = orderedTrials();
        List<TrialSummary> summaries = new ArrayList<>(ordered.size());
        for (Trial t : ordered) {
            Double latest;
            int count;
            synchronized (t.intermediate) {
                count = t.intermediate.size();
                latest = count == 0 ? null : t.intermediate.get(count - 1);
            }
            summaries.add(new TrialSummary(t.job, t.sequenceId, Collections.unmodifiableMap(t.parameters), t.finalValue,
                    latest, count));
        }
        return summaries;
    }

    public Optional<TrialView> trial(String trialId) {
        Trial t = trials.get(trialId);
        return t == null ? Optional.empty()
                : Optional.of(new TrialView(t.job, t.sequenceId, t.packed, t.finalValue, List.copyOf(t.intermediate)));
    }

    /** @return the live session, or empty in view mode */
    public Optional<TrainingSession> session() {
        return Optional.ofNullable(session);
    }

    /** @return the experiment's own optimisation direction: true when the tuner maximizes */
    public boolean maximizing() {
        Object mode = config.tuner() == null ? null : config.tuner().classArgs().get("optimize_mode");
        return !"minimize".equals(mode);
    }

    private List<Trial> orderedTrials() {
        return trials.values().stream().sorted(Comparator.comparingLong((Trial t) -> t.sequenceId)).toList();
    }

    private List<Trial> liveTrials() {
        List<Trial> live = new ArrayList<>();
        for (Trial trial : trials.values()) {
            if (!trial.job.status().isTerminal()) {
                live.add(trial);
            }
        }
        return live;
    }

    static String json(Object value) {
        try {
            return JSON.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("cannot write JSON: " + e.getMessage(), e);
        }
    }

    private static String abbreviate(String line) {
        String trimmed = line.strip();
        return trimmed.length() > 200 ? trimmed.substring(0, 200) + "..." : trimmed;
    }

    /**
     * Runs work on the experiment's thread. Once the experiment is closed the work is not done, and
     * that is logged as a warning naming {@code what} (a status not stored is re-checked by
     * {@code resume}, which asks the platform).
     */
    private void execute(Runnable work, Supplier<String> what) {
        try {
            executor.execute(() -> {
                try {
                    work.run();
                } catch (RuntimeException e) {
                    LOG.error("experiment {}: internal error", id, e);
                }
            });
        } catch (RejectedExecutionException e) {
            LOG.warn("experiment {} is closed ({}): {} arrived too late and is not stored; resume asks the platform again",
                    id, status, what.get());
        }
    }

    /** Runs work on the experiment's thread and waits for it; its exception is rethrown. */
    private <T> T call(Supplier<T> work) {
        return call(Duration.ofSeconds(60), work);
    }

    private <T> T call(Duration patience, Supplier<T> work) {
        if (Thread.currentThread().getName().equals("nni-experiment-" + id)) {
            return work.get();
        }
        try {
            return executor.submit(work::get).get(patience.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for experiment " + id, e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException runtime) {
                throw runtime;
            }
            throw new IllegalStateException(e.getCause().getMessage(), e.getCause());
        } catch (TimeoutException e) {
            throw new IllegalStateException("experiment " + id + " did not answer within " + patience.toSeconds() + " s", e);
        }
    }

    /** Counts of trials by status, for {@code nni:top} and the run mode's progress line. */
    public Map<TrialStatus, Integer> counts() {
        Map<TrialStatus, Integer> counts = new LinkedHashMap<>();
        for (TrialStatus s : TrialStatus.values()) {
            counts.put(s, 0);
        }
        for (Trial trial : trials.values()) {
            counts.merge(trial.job.status(), 1, Integer::sum);
        }
        return counts;
    }
}
