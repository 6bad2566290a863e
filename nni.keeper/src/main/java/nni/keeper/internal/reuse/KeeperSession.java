package nni.keeper.internal.reuse;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import nni.api.environment.EnvironmentLauncher;
import nni.api.environment.EnvironmentListener;
import nni.api.environment.EnvironmentSpec;
import nni.api.environment.EnvironmentState;
import nni.api.environment.KeeperOptions;
import nni.api.environment.KeeperRuntime;
import nni.api.environment.LaunchedEnvironment;
import nni.api.model.HyperParameters;
import nni.api.model.TrialApplication;
import nni.api.model.TrialJob;
import nni.api.model.TrialStatus;
import nni.api.platform.PlatformException;
import nni.api.platform.ReportChannel;
import nni.api.platform.SessionContext;
import nni.api.platform.SessionView;
import nni.api.platform.TrainingSession;
import nni.api.platform.TransientPlatformException;
import nni.http.HttpError;
import nni.keeper.internal.report.FileChannels;
import nni.keeper.internal.report.KeeperLink;
import nni.keeper.internal.report.KeeperLinkFile;
import nni.keeper.internal.report.KeeperLinks;
import nni.keeper.internal.report.KeeperPeer;
import nni.keeper.internal.report.KeeperReport;
import nni.api.platform.Backoff;

/**
 * One experiment's trials run through keepers: in reuse mode on long-lived environments (keepers
 * in runner mode), one trial after another on each; otherwise one keeper per trial. The platform
 * only starts and stops keeper processes; everything the keepers say arrives through the trial
 * routes and is turned into trial changes and metrics here.
 *
 * <p>{@link #detach()} leaves keepers and trials running: the keepers' links stay registered, but
 * their reports are answered "503, later" so that the keepers keep them; {@link #reattach} by a
 * later session of the same experiment in this runtime adopts a live link again. The links are also
 * kept with the experiment ({@link KeeperLinkFile}), so that after a runtime restart
 * {@link #reattach} registers them again and the trials are taken back.
 *
 * <p>All state is guarded by {@link #lock}; context callbacks for status changes are made under it,
 * so each trial's changes are reported in order. Metrics are stored outside it (the keeper's link
 * already orders one keeper's reports), so environments report concurrently.
 */
final class KeeperSession implements TrainingSession {

    private static final Logger LOG = LoggerFactory.getLogger(KeeperSession.class);
    private static final int EARLY_DEATHS_BEFORE_GIVING_UP = 3;
    private static final Duration STOP_GRACE = Duration.ofSeconds(10);
    private static final Duration CLOSE_WAIT = Duration.ofSeconds(15);
    private static final Duration LOG_WAIT = Duration.ofSeconds(10);
    /** How long a keeper taken back after a restart has to call back before its trial is given up. */
    private static final Duration RECONNECT_WAIT = Duration.ofSeconds(120);
    private static final Duration LINKS_FLUSH = Duration.ofSeconds(2);
    /** How long a started keeper may take to call the manager back before its trials say it has not. */
    private static final Duration HANDSHAKE_OVERDUE = Duration.ofSeconds(20);

    private enum State { STARTING, IDLE, BUSY, STOPPING, GONE }

    private static final class Trial {
        TrialJob job;
        final TrialApplication application;
        Environment environment;
        Boolean cancel; // null, or earlyStopped of the cancel request

        Trial(TrialApplication application, TrialJob job) {
            this.application = application;
            this.job = job;
        }
    }

    private final SessionContext context;
    private final EnvironmentLauncher launcher;
    private final KeeperOptions options;
    private final KeeperLinks links;
    private final FileChannels channels;
    private final Map<KeeperRuntime, Path> keeperFiles;
    private final Path codeArchive;
    private final String managerUrl;
    private final KeeperLinkFile linkFile;
    private final SessionTimer timer;
    /** Told once the session closed or detached, so its provider lets go of it. */
    private final Consumer<KeeperSession> ended;
    private final Object lock = new Object();
    private final Map<String, Trial> trials = new LinkedHashMap<>();
    private final Map<String, Environment> environments = new LinkedHashMap<>();
    private final Map<String, CompletableFuture<String>> logRequests = new ConcurrentHashMap<>();
    private final AtomicLong requestIds = new AtomicLong();
    private String launchProblem;
    private int earlyDeathsInARow;
    /** Environments the launcher refused for now, in a row; the next start waits longer with each. */
    private int transientStartFailures;
    /** When environments may be started again after a transient refusal; null when they may now. */
    private ScheduledFuture<?> startRetry;
    private boolean closed;
    private volatile boolean detached;
    /** Whether the keepers a runtime before a restart left that no re-attached trial claimed were settled (done once). */
    private boolean leftoversSettled;

    KeeperSession(SessionContext context, EnvironmentLauncher launcher, KeeperOptions options, KeeperLinks links,
                  FileChannels channels, Map<KeeperRuntime, Path> keeperFiles, Path codeArchive, String managerUrl,
                  KeeperLinkFile linkFile, SessionTimer timer, Consumer<KeeperSession> ended) {
        this.context = context;
        this.launcher = launcher;
        this.options = options;
        this.links = links;
        this.channels = channels;
        this.keeperFiles = Map.copyOf(keeperFiles);
        this.codeArchive = codeArchive;
        this.managerUrl = managerUrl;
        this.linkFile = linkFile;
        this.timer = timer;
        this.ended = ended;
        timer.scheduleWithFixedDelay(linkFile::flush, LINKS_FLUSH.toMillis(), LINKS_FLUSH.toMillis(), TimeUnit.MILLISECONDS);
        synchronized (lock) {
            takeLeftoversBack();
        }
    }

    @Override
    public TrialJob submit(TrialApplication application) throws PlatformException {
        synchronized (lock) {
            if (closed) {
                throw new PlatformException("the experiment's " + options.platform() + " session is closed");
            }
            if (launchProblem != null) {
                throw new PlatformException(launchProblem);
            }
            if (trials.containsKey(application.trialId())) {
                throw new PlatformException("trial " + application.trialId() + " was already submitted");
            }
            Trial trial = new Trial(application, TrialJob.waiting(application, "", ""));
            trials.put(application.trialId(), trial);
            schedule();
            return trial.job;
        }
    }

    /** Gives waiting trials to idle environments and starts environments for the rest. Holds the lock. */
    private void schedule() {
        if (closed) {
            return;
        }
        settleLeftovers();
        if (startRetry != null) {
            return;
        }
        List<Trial> waiting = trials.values().stream()
                .filter(t -> t.job.status() == TrialStatus.WAITING && t.environment == null && t.cancel == null).toList();
        long live = environments.values().stream().filter(e -> e.state != State.GONE && e.state != State.STOPPING).count();
        if (!options.reuse()) {
            for (Trial trial : waiting) {
                if (live >= options.maxEnvironments() || launchProblem != null) {
                    return;
                }
                startEnvironment(trial);
                live++;
            }
            return;
        }
        int unassigned = waiting.size();
        for (Trial trial : waiting) {
            Environment idle = environments.values().stream().filter(e -> e.state == State.IDLE).findFirst().orElse(null);
            if (idle == null) {
                break;
            }
            assign(trial, idle);
            unassigned--;
        }
        long starting = environments.values().stream().filter(e -> e.state == State.STARTING).count();
        while (unassigned > starting && live < options.maxEnvironments() && launchProblem == null) {
            startEnvironment(null);
            starting++;
            live++;
        }
    }

    private void startEnvironment(Trial forTrial) {
        String id = forTrial != null ? forTrial.application.trialId()
                : EnvironmentIds.next(candidate -> environments.containsKey(candidate) || trials.containsKey(candidate));
        Environment environment = new Environment(id);
        String token = KeeperLinks.newToken();
        // a link of this id can only be left by a detached session whose keeper never ran the trial: replace it
        links.unregister(context.experimentId(), id);
        environment.link = links.register(context.experimentId(), id, token, environment);
        linkFile.put(id, token, forTrial == null ? null : forTrial.application.trialId(), 0, "");
        environments.put(id, environment);
        if (forTrial != null) {
            forTrial.environment = environment;
            environment.current = forTrial;
        }
        EnvironmentSpec.Builder spec = EnvironmentSpec.builder(id).mode(options.reuse() ? "runner" : "trial")
                .platform(options.platform()).experimentId(context.experimentId()).managerUrl(managerUrl).token(token)
                .codeArchive(codeArchive).trialCommand(String.valueOf(context.section().get("trialCommand")));
        for (KeeperRuntime runtime : KeeperRuntime.values()) { // in order of preference
            if (keeperFiles.containsKey(runtime)) {
                spec.keeperFile(runtime, keeperFiles.get(runtime));
            }
        }
        EnvironmentSpec built;
        try {
            if (options.transport().files()) {
                openChannel(environment.link, false);
                spec.channel(options.transport().workerRoot() + "/" + id);
            }
            built = spec.build();
        } catch (PlatformException | RuntimeException e) {
            startFailed(environment, forTrial, e);
            return;
        }
        environment.launching = true;
        try {
            // outside the lock and beside the other starts: a platform's start may take seconds (ssh, a cluster's API)
            timer.executeAside(() -> launch(environment, forTrial, built));
        } catch (RejectedExecutionException closing) {
            environment.launching = false;
            environment.state = State.GONE;
        }
    }

    /** Has the platform start one environment; runs on a worker of its own, not holding the lock. */
    private void launch(Environment environment, Trial forTrial, EnvironmentSpec spec) {
        LaunchedEnvironment handle;
        try {
            handle = launcher.start(spec, environment);
        } catch (PlatformException | RuntimeException e) {
            synchronized (lock) {
                environment.launching = false;
                if (closed) {
                    giveUpUnstarted(environment);
                } else if (e instanceof TransientPlatformException transientRefusal) {
                    retryStartLater(environment, forTrial, transientRefusal);
                } else {
                    startFailed(environment, forTrial, e);
                }
            }
            return;
        }
        synchronized (lock) {
            environment.launching = false;
            environment.handle = handle;
            if (detached) {
                handle.detach(); // the keeper runs on, its link kept for the next session
                return;
            }
            if (closed || environment.state == State.GONE) {
                handle.stop(); // the session closed while the platform started it
                return;
            }
            transientStartFailures = 0;
            LOG.info("experiment {}: started {} {}", context.experimentId(), options.reuse() ? "environment" : "keeper for trial",
                    environment.id);
            linkFile.handle(environment.id, handle.handle());
            if (environment.keeperStarted == null) {
                environment.keeperStarted = Instant.now();
            }
            if (forTrial != null && forTrial.cancel != null && !environment.connected) {
                handle.stop(); // cancelled while the platform started it: the trial ends with the environment
            }
            checkHandshakeLater(environment);
            handle.ended().whenComplete((why, error) -> later(() ->
                    environmentEnded(environment, why != null ? why : String.valueOf(error))));
        }
    }

    /** The platform could not start an environment, for good: its trial fails, and so do the trials waiting for one. Holds the lock. */
    private void startFailed(Environment environment, Trial forTrial, Exception e) {
        LOG.error("experiment {}: environment {} could not be started: {}", context.experimentId(), environment.id, e.getMessage());
        giveUpUnstarted(environment);
        failWaiting("the " + options.platform() + " platform could not start an environment: " + e.getMessage());
        if (forTrial != null) {
            end(forTrial, TrialStatus.FAILED, "the " + options.platform() + " platform could not start its keeper: " + e.getMessage());
        }
    }

    /** Forgets an environment that never started (its link, its line in the link file). Holds the lock. */
    private void giveUpUnstarted(Environment environment) {
        environment.state = State.GONE;
        links.unregister(environment.link);
        linkFile.remove(environment.id);
    }

    /**
     * Gives a keeper's link its channel folder on the shared storage (file transport).
     *
     * @throws PlatformException when the folder cannot be made there
     */
    private void openChannel(KeeperLink link, boolean restored) throws PlatformException {
        try {
            channels.open(options.transport().localRoot(), link, restored);
        } catch (IOException e) {
            throw new PlatformException("cannot make the channel folder of keeper " + link.keeperId() + " in "
                    + options.transport().localRoot() + ": " + e.getMessage(), e);
        }
    }

    /** The transport the keepers were given; a platform that chose it by itself adds why (see JobSession). */
    @Override
    public Optional<ReportChannel> reportChannel() {
        return Optional.of(options.transport().files()
                ? ReportChannel.of(ReportChannel.FILES, "keepers write and read files in " + options.transport().localRoot()
                        + " (" + options.transport().workerRoot() + " on the workers); nothing connects to the manager")
                : ReportChannel.of(ReportChannel.HTTP, "keepers call the manager at " + managerUrl));
    }

    /** @return how keepers reach the manager, for messages */
    private String managerPlace() {
        return options.transport().files() ? "through files in " + options.transport().localRoot() : "at " + managerUrl;
    }

    /**
     * The launcher cannot start environments now: forget this one, show the waiting trials when
     * the next try is, and schedule again after the backoff. Holds the lock.
     */
    private void retryStartLater(Environment environment, Trial forTrial, TransientPlatformException e) {
        environment.state = State.GONE;
        environments.remove(environment.id);
        links.unregister(environment.link);
        linkFile.remove(environment.id);
        if (forTrial != null) {
            forTrial.environment = null;
        }
        if (startRetry != null) {
            return; // another start in flight was refused first: its retry covers this one
        }
        transientStartFailures++;
        Duration wait = Backoff.delay(transientStartFailures, e);
        String message = Backoff.message(wait, e.getMessage());
        LOG.info("experiment {}: the {} platform cannot start an environment now, {}", context.experimentId(),
                options.platform(), message);
        showWaiting(null, message);
        try {
            startRetry = timer.schedule(() -> {
                synchronized (lock) {
                    startRetry = null;
                    schedule();
                }
            }, wait.toMillis(), TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException closing) {
            // the session is closing or detached: nothing to start any more
        }
    }

    /**
     * Shows {@code message} as the reason of the trials waiting for {@code environment}, or, with
     * null, of every trial waiting for an environment. Holds the lock.
     */
    private void showWaiting(Environment environment, String message) {
        for (Trial trial : trials.values()) {
            boolean waitsForIt = environment == null ? trial.environment == null
                    : trial.environment == environment || options.reuse() && trial.environment == null;
            if (waitsForIt && trial.job.status() == TrialStatus.WAITING && trial.cancel == null
                    && !message.equals(trial.job.message())) {
                changed(trial, trial.job.withMessage(message));
            }
        }
    }

    /**
     * Registers again, as the session opens, the link of every keeper the runtime before a restart
     * left (its link file lists them), so that none is refused while the experiment resumes: their
     * environments wait, unclaimed, for {@link #reattach} to give them back their trials; those
     * left unclaimed are settled at the first scheduling ({@link #settleLeftovers}). Holds the lock.
     */
    private void takeLeftoversBack() {
        for (KeeperLinkFile.Keeper keeper : linkFile.previousLeft()) {
            // marked taken back (its reports answered "later") before its link can be reached, not after
            Environment environment = adopt(keeper.id(), keeper);
            if (environment == null) {
                environment = restore(keeper, true);
            }
            if (environment == null) {
                linkFile.remove(keeper.id());
                continue;
            }
            environments.put(keeper.id(), environment);
            LOG.info("experiment {}: keeper {} of the runtime before the restart taken back{}", context.experimentId(),
                    keeper.id(), keeper.trial() == null ? " (idle)" : " (trial " + keeper.trial() + ")");
        }
    }

    /**
     * The keepers taken back at the opening that no trial claimed (idle runners, keepers whose
     * trial's end is already stored): a runner takes trials again, any other is stopped; so no
     * keeper outlives the experiment. Runs once, at the first scheduling or the close. Holds the lock.
     */
    private void settleLeftovers() {
        if (leftoversSettled || detached) {
            return;
        }
        leftoversSettled = true;
        for (Environment environment : List.copyOf(environments.values())) {
            KeeperLinkFile.Keeper keeper = environment.leftover;
            if (keeper == null || environment.current != null || environment.state != State.STARTING) {
                continue;
            }
            environment.leftover = null;
            linkFile.put(keeper.id(), keeper.token(), null, keeper.applied(), keeper.handle());
            findAgain(environment, keeper.handle());
            if (options.reuse() && !closed) {
                environment.restoredIdle = true;
                environment.connected = true;
                becomeIdle(environment);
            } else {
                stopEnvironment(environment);
            }
        }
    }

    private void assign(Trial trial, Environment environment) {
        environment.state = State.BUSY;
        environment.current = trial;
        cancelIdleCheck(environment);
        trial.environment = environment;
        linkFile.running(environment.id, trial.application.trialId());
        trial.job = trial.job.withMessage("Platform: " + options.platform() + ", environment: " + environment.id);
        sendNewTrial(environment, trial);
    }

    private static void sendNewTrial(Environment environment, Trial trial) {
        Map<String, Object> command = trialDescription(trial);
        command.put("type", "new-trial");
        environment.link.send(command);
    }

    private static Map<String, Object> trialDescription(Trial trial) {
        TrialApplication application = trial.application;
        Map<String, Object> description = new LinkedHashMap<>();
        description.put("trial", application.trialId());
        description.put("sequenceId", application.sequenceId());
        description.put("parameter", Map.of("value", application.hyperParameters().value(), "index", application.hyperParameters().index()));
        Integer gpus = application.placement().gpuNumber();
        if (gpus != null && gpus == 0) {
            description.put("gpuIndices", "");
        }
        return description;
    }

    /** One keeper process and what the manager knows of it. */
    private final class Environment implements KeeperPeer, EnvironmentListener {
        final String id;
        KeeperLink link;
        LaunchedEnvironment handle;
        State state = State.STARTING;
        Trial current;
        boolean connected;
        /** As the link file listed it, while it waits to be claimed after a restart; else null. */
        volatile KeeperLinkFile.Keeper leftover;
        /** Settled idle after a restart: a trial given to it before it called back may go to another. */
        boolean restoredIdle;
        Instant idleSince;
        ScheduledFuture<?> idleCheck;
        volatile Map<String, Object> gpus;
        /** Since when its keeper process runs (or is being started): null while the platform still waits for room. */
        Instant keeperStarted;
        /** The last overdue reason shown, so that it is logged once. */
        String overdueReason;
        /** While the platform's start of it is in flight: no handle yet. */
        boolean launching;

        Environment(String id) {
            this.id = id;
        }

        /** The platform's progress report while the environment starts: the waiting trials show it. */
        @Override
        public void stateChanged(EnvironmentState environmentState, String message) {
            synchronized (lock) {
                if (closed || state == State.GONE || message == null || message.isBlank()) {
                    return;
                }
                LOG.debug("experiment {}: environment {} {}: {}", context.experimentId(), id, environmentState, message);
                boolean keeperRuns = environmentState == EnvironmentState.STARTING || environmentState == EnvironmentState.RUNNING;
                keeperStarted = !keeperRuns ? null : keeperStarted != null ? keeperStarted : Instant.now();
                showWaiting(this, message);
            }
        }

        /** @return the trial's handle: this environment's id, then the platform's handle on it */
        String trialHandle() {
            String platformHandle = handle == null ? "" : handle.handle();
            return platformHandle.isEmpty() ? id : id + " " + platformHandle;
        }

        /** While the session is detached, keepers are told to keep their reports and try later. */
        private void requireAttached() {
            if (detached) {
                throw new HttpError(503, "the " + options.platform() + " session of experiment " + context.experimentId()
                        + " is detached; keep the reports and send them again later");
            }
            if (leftover != null) {
                // taken back as the session opened, its trial not yet: the reports would name a trial unknown here
                throw new HttpError(503, "experiment " + context.experimentId() + " is taking its keepers back;"
                        + " keep the reports and send them again later");
            }
        }

        @Override
        public Map<String, Object> handshakeAccepted(String keeperVersion) {
            requireAttached();
            synchronized (lock) {
                connected = true;
                earlyDeathsInARow = 0;
                return !options.reuse() && current != null ? Map.of("trial", trialDescription(current)) : Map.of();
            }
        }

        @Override
        public void handshakeRefused(String message) {
            synchronized (lock) {
                launchProblem = message;
                failWaiting(message);
                if (current != null) {
                    end(current, TrialStatus.FAILED, message);
                }
            }
        }

        @Override
        public void apply(List<KeeperReport> reports) {
            requireAttached();
            applyAll(reports);
            // the servlet has checked every seq (a whole number) and hands over only new ones, in order
            if (!reports.isEmpty()) {
                linkFile.applied(id, reports.get(reports.size() - 1).seq());
            }
        }

        private void applyAll(List<KeeperReport> reports) {
            List<String> metrics = new ArrayList<>();
            String metricsTrial = null;
            for (KeeperReport report : reports) {
                if (report.isMetric()) {
                    String trialId = report.trial();
                    if (!trialId.equals(metricsTrial)) {
                        storeMetrics(metricsTrial, metrics);
                        metricsTrial = trialId;
                    }
                    metrics.add(report.line());
                    continue;
                }
                storeMetrics(metricsTrial, metrics); // every metric before the report that follows it
                try {
                    applyOther(report.kind(), report.fields());
                } catch (IllegalArgumentException e) {
                    LOG.warn("keeper {}: report {} ({}) skipped: {}", id, report.seq(), report.kind(), e.getMessage());
                }
            }
            storeMetrics(metricsTrial, metrics);
        }

        /** Stores one trial's consecutive metric lines in one call, then clears the list. */
        private void storeMetrics(String trialId, List<String> lines) {
            if (lines.isEmpty()) {
                return;
            }
            try {
                context.metricsReported(trialOf(trialId), List.copyOf(lines));
            } catch (IllegalArgumentException e) {
                LOG.warn("keeper {}: metrics of trial {} skipped: {}", id, trialId, e.getMessage());
            } finally {
                lines.clear();
            }
        }

        private void applyOther(String kind, Map<String, Object> report) {
            switch (kind) {
                case "ready" -> ready();
                case "started" -> started(trialOf(report), report);
                case "ended" -> ended(trialOf(report), report);
                case "log" -> {
                    CompletableFuture<String> request = logRequests.remove(String.valueOf(report.get("request")));
                    if (request != null) {
                        request.complete((String) report.get("text"));
                    }
                }
                case "gpu" -> {
                    gpus = report; // kept for GPU-aware placement; logged for now
                    LOG.debug("environment {}: {} GPUs {}", id, report.get("gpuCount"), report.get("gpuInfos"));
                }
                default -> throw new IllegalArgumentException("unknown report kind '" + kind + "'");
            }
        }

        private String trialOf(Map<String, Object> report) {
            return trialOf(String.valueOf(report.get("trial")));
        }

        /** @return the trial id, if this environment runs that trial */
        private String trialOf(String trialId) {
            synchronized (lock) {
                Trial trial = trials.get(trialId);
                if (trial == null || trial.environment != this) {
                    throw new IllegalArgumentException("trial " + trialId + " is not run by keeper " + id);
                }
            }
            return trialId;
        }

        private void ready() {
            synchronized (lock) {
                connected = true;
                if (state == State.STARTING) {
                    becomeIdle(this);
                }
                schedule();
            }
        }

        private void started(String trialId, Map<String, Object> report) {
            synchronized (lock) {
                Trial trial = trials.get(trialId);
                if (trial.job.status() != TrialStatus.WAITING) {
                    return;
                }
                TrialJob waiting = trial.job;
                String directory = String.valueOf(report.getOrDefault("dir", ""));
                String url = handle != null && !handle.url().isEmpty() ? handle.url() : "file://localhost" + directory;
                TrialJob.Builder running = waiting.toBuilder().status(TrialStatus.RUNNING).startTime(instant(report.get("time")))
                        .workingDirectory(directory).url(url).handle(trialHandle());
                if (handle != null) {
                    running.host(handle.host()).attributes(handle.attributes());
                    linkFile.handle(id, handle.handle()); // some platforms know it only once the keeper runs
                }
                changed(trial, running.build());
            }
        }

        private void ended(String trialId, Map<String, Object> report) {
            synchronized (lock) {
                Trial trial = trials.get(trialId);
                long code = report.get("code") instanceof Number n ? n.longValue() : -1;
                TrialStatus status = trial.cancel != null ? TrialStatus.cancelled(trial.cancel)
                        : code == 0 ? TrialStatus.SUCCEEDED : TrialStatus.FAILED;
                String why = report.get("error") instanceof String error ? error : "exit code " + code;
                if (!trial.job.status().isTerminal()) {
                    TrialJob base = trial.job.status() == TrialStatus.WAITING ? trial.job.running(instant(report.get("time"))) : trial.job;
                    changed(trial, base.ended(status, instant(report.get("time")), why));
                }
                if (current == trial) {
                    current = null;
                    linkFile.running(id, null);
                }
                if (!options.reuse()) {
                    state = State.STOPPING; // a per-trial keeper exits by itself once its reports are in
                } else if (state == State.BUSY) {
                    becomeIdle(this);
                }
                schedule();
            }
        }
    }

    /** Looks again, while the environment has not called back, whether its keeper is overdue. */
    private void checkHandshakeLater(Environment environment) {
        try {
            timer.schedule(() -> {
                synchronized (lock) {
                    if (closed || detached || environment.connected || environment.state != State.STARTING) {
                        return;
                    }
                    Instant since = environment.keeperStarted;
                    if (since != null && Duration.between(since, Instant.now()).compareTo(HANDSHAKE_OVERDUE) >= 0) {
                        // no running count of seconds: the reason changes only when the keeper's own complaint does
                        String reason = "waiting: keeper " + environment.id + " has not reached the manager " + managerPlace()
                                + " within " + HANDSHAKE_OVERDUE.toSeconds() + " s" + keeperComplaint(environment)
                                + "; the keepers must reach that address (the port's --host, the experiment's nniManagerIp)";
                        if (!reason.equals(environment.overdueReason)) {
                            LOG.warn("experiment {}: {}", context.experimentId(), reason.substring("waiting: ".length()));
                        }
                        environment.overdueReason = reason;
                        showWaiting(environment, reason);
                    }
                }
                checkHandshakeLater(environment);
            }, HANDSHAKE_OVERDUE.toMillis() / 2, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException closing) {
            // the session is closing or detached
        }
    }

    /**
     * @return "; its stderr: ..." with the last line of the keeper's {@code keeper.stderr} where this
     *         machine can read it (keepers on this machine), else empty
     */
    private static String keeperComplaint(Environment environment) {
        String url = environment.handle == null ? "" : environment.handle.url();
        if (!url.startsWith("file://localhost/")) {
            return "";
        }
        Path stderr = Path.of(url.substring("file://localhost".length()), "keeper.stderr");
        try {
            List<String> lines = Files.isRegularFile(stderr) ? Files.readAllLines(stderr) : List.of();
            for (int i = lines.size() - 1; i >= 0; i--) {
                if (!lines.get(i).isBlank()) {
                    String line = lines.get(i).strip();
                    return "; its stderr: " + (line.length() > 300 ? line.substring(0, 300) + "..." : line);
                }
            }
        } catch (IOException | RuntimeException e) {
            LOG.debug("cannot read {}: {}", stderr, e.getMessage());
        }
        return "";
    }

    private void becomeIdle(Environment environment) {
        environment.state = State.IDLE;
        environment.idleSince = Instant.now();
        cancelIdleCheck(environment);
        try {
            environment.idleCheck = timer.schedule(() -> idleCheck(environment), options.idleTimeout().toMillis(), TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException closing) {
            // the session is closing; the environment is stopped there
        }
    }

    private void cancelIdleCheck(Environment environment) {
        if (environment.idleCheck != null) {
            environment.idleCheck.cancel(false);
            environment.idleCheck = null;
        }
    }

    private void idleCheck(Environment environment) {
        synchronized (lock) {
            if (environment.state == State.IDLE
                    && Duration.between(environment.idleSince, Instant.now()).compareTo(options.idleTimeout()) >= 0) {
                LOG.info("experiment {}: environment {} idle for {}; stopping it", context.experimentId(), environment.id, options.idleTimeout());
                stopEnvironment(environment);
            }
        }
    }

    private void stopEnvironment(Environment environment) {
        if (environment.state == State.GONE || environment.state == State.STOPPING) {
            return;
        }
        environment.state = State.STOPPING;
        cancelIdleCheck(environment);
        environment.link.send(Map.of("type", "stop"));
        LaunchedEnvironment handle = environment.handle;
        if (handle == null) {
            return; // re-attached without the platform's handle: the keeper ends on the stop command
        }
        try {
            timer.schedule(() -> handle.stop(), STOP_GRACE.toMillis(), TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException closing) {
            handle.stop();
        }
    }

    private void environmentEnded(Environment environment, String why) {
        synchronized (lock) {
            if (environment.state == State.GONE || detached) {
                return;
            }
            boolean expected = environment.state == State.STOPPING;
            environment.state = State.GONE;
            cancelIdleCheck(environment);
            links.unregister(environment.link);
            linkFile.remove(environment.id);
            Trial trial = environment.current;
            environment.current = null;
            if (trial != null && !trial.job.status().isTerminal()) {
                TrialStatus status = trial.cancel != null ? TrialStatus.cancelled(trial.cancel) : TrialStatus.FAILED;
                end(trial, status, "environment " + environment.id + " ended (" + why + ") before the trial's end was reported");
            }
            if (!expected) {
                LOG.warn("experiment {}: environment {} ended: {}", context.experimentId(), environment.id, why);
            }
            if (!environment.connected && !closed && launchProblem == null) {
                earlyDeathsInARow++;
                if (earlyDeathsInARow >= EARLY_DEATHS_BEFORE_GIVING_UP) {
                    launchProblem = earlyDeathsInARow + " " + options.platform() + " environments in a row ended before their keeper"
                            + " reached the manager " + managerPlace() + "; the last one: " + why;
                    failWaiting(launchProblem);
                }
            }
            schedule();
        }
    }

    /** Fails every trial that waits without an environment. Holds the lock. */
    private void failWaiting(String why) {
        for (Trial trial : trials.values()) {
            if (trial.job.status() == TrialStatus.WAITING && trial.environment == null) {
                end(trial, TrialStatus.FAILED, why);
            }
        }
    }

    private void end(Trial trial, TrialStatus status, String why) {
        if (!trial.job.status().isTerminal()) {
            changed(trial, trial.job.ended(status, Instant.now(), why));
        }
    }

    private void changed(Trial trial, TrialJob job) {
        trial.job = job;
        context.trialChanged(job);
        lock.notifyAll();
    }

    @Override
    public void cancel(String trialId, boolean earlyStopped) {
        synchronized (lock) {
            Trial trial = trials.get(trialId);
            if (trial == null || trial.job.status().isTerminal() || trial.cancel != null) {
                return;
            }
            if (trial.environment == null) {
                end(trial, TrialStatus.cancelled(earlyStopped), "cancelled before it started");
                return;
            }
            trial.cancel = earlyStopped;
            trial.environment.link.send(Map.of("type", "kill", "trial", trialId));
            if (!options.reuse() && !trial.environment.connected && trial.environment.handle != null) {
                // its keeper has not started (it may wait for a machine): the trial ends with the environment, now
                trial.environment.handle.stop();
            }
        }
    }

    @Override
    public void sendParameters(String trialId, HyperParameters parameters) throws PlatformException {
        synchronized (lock) {
            Trial trial = trials.get(trialId);
            if (trial == null || trial.job.status() != TrialStatus.RUNNING || trial.environment == null) {
                throw new PlatformException("trial " + trialId + " is not running");
            }
            trial.environment.link.send(Map.of("type", "send-parameter", "trial", trialId,
                    "parameter", Map.of("value", parameters.value(), "index", parameters.index())));
        }
    }

    @Override
    public Optional<TrialJob> trial(String trialId) {
        synchronized (lock) {
            return Optional.ofNullable(trials.get(trialId)).map(t -> t.job);
        }
    }

    @Override
    public List<TrialJob> trials() {
        synchronized (lock) {
            return trials.values().stream().map(t -> t.job).toList();
        }
    }

    /**
     * The environments and trials counted, and the launcher's machines with the trials of each
     * environment on the GPUs it was given ({@link EnvironmentLauncher#machines}). The lock is
     * never held across the network, so taking it here returns at once.
     */
    @Override
    public Optional<SessionView> view() {
        Map<String, List<String>> byEnvironment = new LinkedHashMap<>();
        long live;
        long running;
        synchronized (lock) {
            live = environments.values().stream().filter(e -> e.state != State.GONE).count();
            running = trials.values().stream().filter(t -> t.job.status() == TrialStatus.RUNNING).count();
            for (Trial trial : trials.values()) {
                if (trial.environment != null && !trial.job.status().isTerminal()) {
                    byEnvironment.computeIfAbsent(trial.environment.id, id -> new ArrayList<>()).add(trial.job.id());
                }
            }
        }
        SessionView.Builder view = SessionView.builder().state(running + " running, " + live + " "
                + (options.reuse() ? "environment" : "keeper") + (live == 1 ? "" : "s"));
        launcher.machines(byEnvironment).forEach(view::machine);
        return Optional.of(view.build());
    }

    @Override
    public Optional<InputStream> openTrialFile(String trialId, String name) throws IOException {
        if (!List.of("stdout", "stderr", "trial.log").contains(name)) {
            return Optional.empty();
        }
        Environment environment;
        synchronized (lock) {
            Trial trial = trials.get(trialId);
            if (trial == null) {
                return Optional.empty();
            }
            String directory = trial.job.workingDirectory();
            Path local = directory.isEmpty() ? null : Path.of(directory, name);
            if (local != null && Files.isRegularFile(local)) {
                return Optional.of(Files.newInputStream(local)); // the keeper runs on this machine
            }
            environment = trial.environment;
            if (environment == null || environment.state == State.GONE) {
                return Optional.empty();
            }
        }
        String request = Long.toString(requestIds.incrementAndGet());
        CompletableFuture<String> answer = new CompletableFuture<>();
        logRequests.put(request, answer);
        environment.link.send(Map.of("type", "log-tail", "trial", trialId, "file", name, "maxBytes", 1 << 20, "request", request));
        try {
            String text = answer.get(LOG_WAIT.toMillis(), TimeUnit.MILLISECONDS);
            return text == null ? Optional.empty() : Optional.of(new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)));
        } catch (TimeoutException e) {
            throw new IOException("the keeper of trial " + trialId + " did not send its " + name + " within " + LOG_WAIT.toSeconds() + " s");
        } catch (ExecutionException e) {
            throw new IOException(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted");
        } finally {
            logRequests.remove(request);
        }
    }

    private void giveUpUnlessBack(Environment environment) {
        synchronized (lock) {
            if (environment.state == State.GONE || environment.link.contacted()) {
                return;
            }
            environment.state = State.GONE;
            links.unregister(environment.link);
            linkFile.remove(environment.id);
            Trial trial = environment.current;
            environment.current = null;
            if (trial != null && environment.restoredIdle && trial.job.status() == TrialStatus.WAITING) {
                trial.environment = null; // never reached the keeper: another one runs it
            } else if (trial != null) {
                end(trial, TrialStatus.FAILED, "its keeper " + environment.id + " did not call back within "
                        + RECONNECT_WAIT.toSeconds() + " s after the runtime restarted");
            }
            schedule();
        }
    }

    @Override
    public void close() {
        try {
            synchronized (lock) {
                if (closed) {
                    return;
                }
                settleLeftovers(); // stopped below with the others
                closed = true;
                for (Trial trial : new ArrayList<>(trials.values())) {
                    if (trial.job.status().isTerminal()) {
                        continue;
                    }
                    if (trial.environment == null || trial.environment.launching && !trial.environment.connected) {
                        // no keeper runs it (one still being started is stopped once the platform returns it)
                        end(trial, TrialStatus.USER_CANCELED, "the experiment stopped");
                    } else if (trial.cancel == null) {
                        trial.cancel = false;
                        trial.environment.link.send(Map.of("type", "kill", "trial", trial.application.trialId()));
                    }
                }
                long deadline = System.nanoTime() + CLOSE_WAIT.toNanos();
                while (trials.values().stream().anyMatch(t -> !t.job.status().isTerminal())) {
                    long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                    if (left <= 0) {
                        break;
                    }
                    lock.wait(left);
                }
                for (Trial trial : trials.values()) {
                    end(trial, TrialStatus.USER_CANCELED, "the experiment stopped before the keeper reported the trial's end");
                }
                for (Environment environment : environments.values()) {
                    if (environment.state != State.GONE) {
                        stopEnvironment(environment);
                        if (environment.handle != null) {
                            environment.handle.stop();
                        }
                        links.unregister(environment.link);
                        linkFile.remove(environment.id);
                    }
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            LOG.error("experiment {}: closing the session failed", context.experimentId(), e);
        } finally {
            timer.shutdown();
            ended.accept(this);
        }
    }

    /**
     * Lets go of the session: no more scheduling, timers stopped, every environment detached from
     * its platform ({@link LaunchedEnvironment#detach()}); keepers and trials keep running. The
     * links stay registered and answer the keepers "later" until a new session adopts them
     * ({@link #reattach}) or the runtime stops.
     */
    @Override
    public void detach() {
        synchronized (lock) {
            if (closed) {
                return;
            }
            closed = true;
            detached = true;
            for (Environment environment : environments.values()) {
                cancelIdleCheck(environment);
                if (environment.state != State.GONE && environment.handle != null) {
                    try {
                        environment.handle.detach();
                    } catch (RuntimeException e) {
                        LOG.warn("experiment {}: detaching environment {} failed", context.experimentId(), environment.id, e);
                    }
                }
            }
            logRequests.values().forEach(request -> request.complete(null));
            lock.notifyAll();
        }
        timer.shutdownNow();
        ended.accept(this);
        linkFile.flush(); // the sequences applied so far, for a restart to come
    }

    /**
     * Takes back a trial that a keeper still runs, in one of two ways. When the keeper's link is
     * still registered in this runtime (a detached session of this experiment left it, e.g. while
     * its platform bundle was updated), a new environment of this session adopts it. Otherwise,
     * when the experiment's link file lists the keeper as running the trial (a runtime before a
     * restart started it), its link is registered again from the file (same id, token and applied
     * sequence), so that the keeper's next request is accepted; the trial is given up if the keeper
     * does not call back within {@link #RECONNECT_WAIT}, and ends FAILED at once if the keeper
     * calls back elsewhere (the runtime listens on another port now). Either way the platform is
     * asked to find the environment again ({@link EnvironmentLauncher#reattach}) from the handle it
     * gave (kept in the link file, else in the trial's handle), so that its end is noticed and a
     * stop reaches it. The reports the keeper held back meanwhile then arrive here.
     */
    @Override
    public Optional<TrialJob> reattach(TrialJob stored) {
        String trialHandle = stored.handle();
        int space = trialHandle.indexOf(' ');
        String handleEnvironment = space < 0 ? trialHandle : trialHandle.substring(0, space);
        KeeperLinkFile.Keeper keeper = linkFile.previousRunning(stored.id()).orElse(null);
        synchronized (lock) {
            if (closed || trials.containsKey(stored.id())) {
                return Optional.empty();
            }
            Environment leftover = leftoverOf(stored.id(), handleEnvironment);
            Environment environment = leftover != null ? leftover : adopt(handleEnvironment, null);
            if (leftover != null) {
                keeper = leftover.leftover;
            } else if (environment == null && keeper == null) {
                if (!trialHandle.isEmpty()) {
                    LOG.info("experiment {}: trial {} cannot be re-attached: the link of its keeper {} is gone",
                            context.experimentId(), stored.id(), handleEnvironment);
                }
                return Optional.empty();
            }
            String environmentId = environment != null ? environment.id : keeper.id();
            String platformHandle = keeper != null && keeper.id().equals(environmentId) && !keeper.handle().isEmpty()
                    ? keeper.handle()
                    : environmentId.equals(handleEnvironment) && space >= 0 ? trialHandle.substring(space + 1) : "";
            if (environment != null && leftover == null) {
                if (keeper != null && keeper.id().equals(environmentId)) { // still listed for a restart to come
                    linkFile.put(keeper.id(), keeper.token(), stored.id(), keeper.applied(), platformHandle);
                }
                LOG.info("experiment {}: trial {} re-attached to keeper {}", context.experimentId(), stored.id(), environmentId);
            } else {
                String before = linkFile.previousManagerUrl();
                // over files the keeper needs no port: only an HTTP keeper is bound to the one it was given
                if (!options.transport().files() && before != null && !before.equals(managerUrl)) {
                    String why = "its keeper " + keeper.id() + " reports to " + before + ", but the runtime now listens at "
                            + managerUrl + "; resume with the same port (--port " + java.net.URI.create(before).getPort()
                            + ") to take such trials back";
                    LOG.warn("experiment {}: trial {} cannot be taken back: {}", context.experimentId(), stored.id(), why);
                    context.trialChanged(stored.ended(TrialStatus.FAILED, Instant.now(), why));
                    return Optional.of(stored);
                }
                if (environment == null) {
                    environment = restore(keeper, false); // its trial is given to it below, before this lock is let go
                }
                if (environment == null) {
                    return Optional.empty();
                }
                environment.leftover = null;
                linkFile.put(keeper.id(), keeper.token(), stored.id(), keeper.applied(), platformHandle);
                LOG.info("experiment {}: trial {} taken back; its keeper {} reports from sequence {} on", context.experimentId(),
                        stored.id(), keeper.id(), keeper.applied() + 1);
            }
            environment.connected = true;
            environment.state = State.BUSY;
            TrialApplication application = TrialApplication.builder(stored.id()).sequenceId(stored.sequenceId())
                    .hyperParameters(stored.hyperParameters()).build();
            Trial trial = new Trial(application, stored);
            trial.environment = environment;
            environment.current = trial;
            trials.put(stored.id(), trial);
            environments.put(environmentId, environment);
            findAgain(environment, platformHandle);
            if (options.reuse() && stored.status() == TrialStatus.WAITING) {
                // the runtime before the restart gave the trial to this runner (its link file says so) but never
                // heard it start: the new-trial command may have died with it, queued and not yet fetched. The
                // keeper ignores a trial it has started already, so sending it again runs it at most once.
                sendNewTrial(environment, trial);
                LOG.info("experiment {}: trial {} given again to keeper {}, which had not reported it started",
                        context.experimentId(), stored.id(), environmentId);
            }
            return Optional.of(stored);
        }
    }

    /**
     * @return the environment of a keeper taken back as the session opened ({@link #takeLeftoversBack})
     *         that ran the trial, by the link file or by the trial's handle, and no other trial yet; or null
     */
    private Environment leftoverOf(String trialId, String handleEnvironment) {
        for (Environment environment : environments.values()) {
            KeeperLinkFile.Keeper keeper = environment.leftover;
            if (keeper != null && environment.current == null
                    && (trialId.equals(keeper.trial()) || keeper.id().equals(handleEnvironment))) {
                return environment;
            }
        }
        return null;
    }

    /**
     * @param leftover as the link file lists the keeper when it is taken back as the session opens
     *                 (its reports are answered "later" until its trial is re-attached), else null
     * @return a new environment holding the live link of keeper {@code id} in this runtime, or null. Holds the lock.
     */
    private Environment adopt(String id, KeeperLinkFile.Keeper leftover) {
        if (id.isEmpty() || environments.containsKey(id)) {
            return null;
        }
        Environment environment = new Environment(id);
        // before the link names it as the keeper's peer: a report arriving from then on must find it taken back
        environment.leftover = leftover;
        Optional<KeeperLink> live = links.adopt(context.experimentId(), id, environment);
        if (live.isEmpty()) {
            return null;
        }
        environment.link = live.get();
        return environment;
    }

    /**
     * @param leftover the keeper is taken back as the session opens, its trial not yet: its reports
     *                 are answered "later" until {@link #reattach} gives it its trial
     * @return a new environment with the link of a keeper a runtime before a restart started,
     *         registered again from the link file; null when it cannot be. Holds the lock.
     */
    private Environment restore(KeeperLinkFile.Keeper keeper, boolean leftover) {
        if (environments.containsKey(keeper.id())) {
            return null;
        }
        Environment environment = new Environment(keeper.id());
        // before the link is registered and its channel folder looked at: the keeper's reports, sent again
        // since the restart, may be applied from then on (on a request's thread or the share's watcher), and
        // one applied before the trial is known here would be acknowledged and dropped as naming no trial
        environment.leftover = leftover ? keeper : null;
        try {
            environment.link = links.restore(context.experimentId(), keeper.id(), keeper.token(), keeper.applied(), environment);
        } catch (IllegalStateException stale) {
            // a detached session of this runtime left the link, and its keeper never ran the trial: a new submit replaces it
            return null;
        }
        if (options.transport().files()) {
            try {
                openChannel(environment.link, true);
            } catch (PlatformException e) {
                LOG.error("experiment {}: keeper {} cannot be taken back: {}", context.experimentId(), keeper.id(), e.getMessage());
                links.unregister(environment.link);
                return null;
            }
        }
        try {
            timer.schedule(() -> giveUpUnlessBack(environment), RECONNECT_WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException closing) {
            // the session is closing
        }
        return environment;
    }

    /** Asks the platform to track a re-attached environment again, so that its end is noticed. Holds the lock. */
    private void findAgain(Environment environment, String platformHandle) {
        try {
            environment.handle = launcher.reattach(environment.id, platformHandle).orElse(null);
        } catch (RuntimeException e) {
            LOG.warn("experiment {}: the {} platform failed to find environment {} again", context.experimentId(),
                    options.platform(), environment.id, e);
        }
        if (environment.handle != null) {
            LaunchedEnvironment found = environment.handle;
            LOG.info("experiment {}: the {} platform found environment {} again ({})", context.experimentId(), options.platform(),
                    environment.id, platformHandle);
            found.ended().whenComplete((why, error) -> later(() ->
                    environmentEnded(environment, why != null ? why : String.valueOf(error))));
        } else {
            LOG.info("experiment {}: the {} platform cannot find environment {} again; its keeper ends on the stop command",
                    context.experimentId(), options.platform(), environment.id);
        }
    }

    /** Runs a state change on the session's timer thread, not on the thread that completed a future. */
    private void later(Runnable task) {
        try {
            timer.execute(() -> {
                try {
                    task.run();
                } catch (RuntimeException e) {
                    LOG.error("experiment {}: session task failed", context.experimentId(), e);
                }
            });
        } catch (RejectedExecutionException closed) {
            task.run();
        }
    }

    private static Instant instant(Object epochMillis) {
        return epochMillis instanceof Number n ? Instant.ofEpochMilli(n.longValue()) : Instant.now();
    }
}
