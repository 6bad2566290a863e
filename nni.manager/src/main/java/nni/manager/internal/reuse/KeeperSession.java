package nni.manager.internal.reuse;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
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
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import nni.api.environment.EnvironmentLauncher;
import nni.api.environment.EnvironmentSpec;
import nni.api.environment.KeeperOptions;
import nni.api.environment.LaunchedEnvironment;
import nni.api.model.HyperParameters;
import nni.api.model.TrialApplication;
import nni.api.model.TrialJob;
import nni.api.model.TrialStatus;
import nni.api.platform.PlatformException;
import nni.api.platform.SessionContext;
import nni.api.platform.TrainingSession;
import nni.manager.internal.report.KeeperLink;
import nni.manager.internal.report.KeeperLinkFile;
import nni.manager.internal.report.KeeperLinks;
import nni.manager.internal.report.KeeperPeer;

/**
 * One experiment's trials run through keepers: in reuse mode on long-lived environments (keepers
 * in runner mode), one trial after another on each; otherwise one keeper per trial. The platform
 * only starts and stops keeper processes; everything the keepers say arrives through the trial
 * routes and is turned into trial changes and metrics here.
 *
 * <p>All state is guarded by {@link #lock}; context callbacks for status changes are made under it,
 * so each trial's changes are reported in order. Metrics are stored outside it (the keeper's link
 * already orders one keeper's reports), so environments report concurrently.
 */
final class KeeperSession implements TrainingSession {

    private static final Logger LOG = LoggerFactory.getLogger(KeeperSession.class);
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final String ID_CHARACTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    private static final int EARLY_DEATHS_BEFORE_GIVING_UP = 3;
    private static final Duration STOP_GRACE = Duration.ofSeconds(10);
    private static final Duration CLOSE_WAIT = Duration.ofSeconds(15);
    private static final Duration LOG_WAIT = Duration.ofSeconds(10);
    /** How long a keeper taken back after a restart has to call back before its trial is given up. */
    private static final Duration RECONNECT_WAIT = Duration.ofSeconds(120);
    private static final Duration LINKS_FLUSH = Duration.ofSeconds(2);

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
    private final Path keeperJar;
    private final Path codeArchive;
    private final String managerUrl;
    private final KeeperLinkFile linkFile;
    private final ScheduledExecutorService timer;
    private final Object lock = new Object();
    private final Map<String, Trial> trials = new LinkedHashMap<>();
    private final Map<String, Environment> environments = new LinkedHashMap<>();
    private final Map<String, CompletableFuture<String>> logRequests = new ConcurrentHashMap<>();
    private final AtomicLong requestIds = new AtomicLong();
    private String launchProblem;
    private int earlyDeathsInARow;
    private boolean closed;

    KeeperSession(SessionContext context, EnvironmentLauncher launcher, KeeperOptions options, KeeperLinks links,
                  Path keeperJar, Path codeArchive, String managerUrl, KeeperLinkFile linkFile, ScheduledExecutorService timer) {
        this.context = context;
        this.launcher = launcher;
        this.options = options;
        this.links = links;
        this.keeperJar = keeperJar;
        this.codeArchive = codeArchive;
        this.managerUrl = managerUrl;
        this.linkFile = linkFile;
        this.timer = timer;
        timer.scheduleWithFixedDelay(linkFile::flush, LINKS_FLUSH.toMillis(), LINKS_FLUSH.toMillis(), TimeUnit.MILLISECONDS);
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
        String id = forTrial != null ? forTrial.application.trialId() : newEnvironmentId();
        Environment environment = new Environment(id);
        String token = KeeperLinks.newToken();
        environment.link = links.register(context.experimentId(), id, token, environment);
        linkFile.put(id, token, forTrial == null ? null : forTrial.application.trialId(), 0);
        environments.put(id, environment);
        if (forTrial != null) {
            forTrial.environment = environment;
            environment.current = forTrial;
        }
        EnvironmentSpec spec = new EnvironmentSpec(id, options.reuse() ? "runner" : "trial", options.platform(),
                context.experimentId(), managerUrl, token, keeperJar, codeArchive,
                String.valueOf(context.section().get("trialCommand")));
        try {
            environment.handle = launcher.start(spec);
        } catch (PlatformException | RuntimeException e) {
            LOG.error("experiment {}: environment {} could not be started: {}", context.experimentId(), id, e.getMessage());
            environment.state = State.GONE;
            links.unregister(environment.link);
            linkFile.remove(id);
            failWaiting("the " + options.platform() + " platform could not start an environment: " + e.getMessage());
            if (forTrial != null) {
                end(forTrial, TrialStatus.FAILED, "the " + options.platform() + " platform could not start its keeper: " + e.getMessage());
            }
            return;
        }
        LOG.info("experiment {}: started {} {}", context.experimentId(), options.reuse() ? "environment" : "keeper for trial", id);
        environment.handle.ended().whenComplete((why, error) -> later(() ->
                environmentEnded(environment, why != null ? why : String.valueOf(error))));
    }

    private void assign(Trial trial, Environment environment) {
        environment.state = State.BUSY;
        environment.current = trial;
        cancelIdleCheck(environment);
        trial.environment = environment;
        linkFile.running(environment.id, trial.application.trialId());
        trial.job = trial.job.withMessage("Platform: " + options.platform() + ", environment: " + environment.id);
        Map<String, Object> command = trialDescription(trial);
        command.put("type", "new-trial");
        environment.link.send(command);
    }

    private Map<String, Object> trialDescription(Trial trial) {
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
    private final class Environment implements KeeperPeer {
        final String id;
        KeeperLink link;
        LaunchedEnvironment handle;
        State state = State.STARTING;
        Trial current;
        boolean connected;
        Instant idleSince;
        ScheduledFuture<?> idleCheck;
        volatile Map<String, Object> gpus;

        Environment(String id) {
            this.id = id;
        }

        @Override
        public Map<String, Object> handshakeAccepted(String keeperVersion) {
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
        public void apply(List<Map<String, Object>> reports) {
            applyAll(reports);
            // the servlet has checked every seq (a whole number) and hands over only new ones, in order
            if (!reports.isEmpty() && reports.get(reports.size() - 1).get("seq") instanceof Number last) {
                linkFile.applied(id, last.longValue());
            }
        }

        private void applyAll(List<Map<String, Object>> reports) {
            List<String> metrics = new ArrayList<>();
            String metricsTrial = null;
            for (Map<String, Object> report : reports) {
                String kind = String.valueOf(report.get("kind"));
                if (kind.equals("metric") && report.get("line") instanceof String line) {
                    String trialId = String.valueOf(report.get("trial"));
                    if (!trialId.equals(metricsTrial)) {
                        storeMetrics(metricsTrial, metrics);
                        metricsTrial = trialId;
                    }
                    metrics.add(line);
                    continue;
                }
                storeMetrics(metricsTrial, metrics); // every metric before the report that follows it
                try {
                    applyOther(kind, report);
                } catch (IllegalArgumentException e) {
                    LOG.warn("keeper {}: report {} ({}) skipped: {}", id, report.get("seq"), kind, e.getMessage());
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
                TrialJob running = new TrialJob(waiting.id(), waiting.sequenceId(), TrialStatus.RUNNING, waiting.submitTime(),
                        instant(report.get("time")), null, directory, url, waiting.hyperParameters(), false, waiting.message());
                changed(trial, running);
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
            return; // taken back after a restart without the platform's handle: the keeper ends on the stop command
        }
        try {
            timer.schedule(() -> handle.stop(), STOP_GRACE.toMillis(), TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException closing) {
            handle.stop();
        }
    }

    private void environmentEnded(Environment environment, String why) {
        synchronized (lock) {
            if (environment.state == State.GONE) {
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
                            + " reached the manager at " + managerUrl + "; the last one: " + why;
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

    /**
     * Takes back a trial that a keeper of the runtime before a restart runs: the keeper's link is
     * registered again from the experiment's link file (same id, token and applied sequence), so
     * the keeper's next request is accepted and what it spooled meanwhile is delivered. Its trial
     * is given up if the keeper does not call back within {@link #RECONNECT_WAIT}. Keepers that
     * call back elsewhere (the runtime listens on another port now) cannot be taken back: the
     * trial ends FAILED saying so.
     */
    @Override
    public Optional<TrialJob> reattach(TrialJob stored) {
        Optional<KeeperLinkFile.Keeper> kept = linkFile.previousRunning(stored.id());
        if (kept.isEmpty()) {
            return Optional.empty();
        }
        KeeperLinkFile.Keeper keeper = kept.get();
        String before = linkFile.previousManagerUrl();
        if (before != null && !before.equals(managerUrl)) {
            String why = "its keeper " + keeper.id() + " reports to " + before + ", but the runtime now listens at " + managerUrl
                    + "; resume with the same port (--port " + java.net.URI.create(before).getPort() + ") to take such trials back";
            LOG.warn("experiment {}: trial {} cannot be taken back: {}", context.experimentId(), stored.id(), why);
            context.trialChanged(stored.ended(TrialStatus.FAILED, Instant.now(), why));
            return Optional.of(stored);
        }
        synchronized (lock) {
            if (closed || trials.containsKey(stored.id()) || environments.containsKey(keeper.id())) {
                return Optional.empty();
            }
            Environment environment = new Environment(keeper.id());
            environment.link = links.restore(context.experimentId(), keeper.id(), keeper.token(), keeper.applied(), environment);
            linkFile.put(keeper.id(), keeper.token(), stored.id(), keeper.applied());
            environment.connected = true;
            environment.state = State.BUSY;
            Trial trial = new Trial(new TrialApplication(stored.id(), stored.sequenceId(), stored.hyperParameters(),
                    nni.api.model.Placement.NONE), stored);
            trial.environment = environment;
            environment.current = trial;
            trials.put(stored.id(), trial);
            environments.put(keeper.id(), environment);
            try {
                timer.schedule(() -> giveUpUnlessBack(environment), RECONNECT_WAIT.toMillis(), TimeUnit.MILLISECONDS);
            } catch (RejectedExecutionException closing) {
                // the session is closing
            }
            LOG.info("experiment {}: trial {} taken back; its keeper {} reports from sequence {} on", context.experimentId(),
                    stored.id(), keeper.id(), keeper.applied() + 1);
            return Optional.of(stored);
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
            if (trial != null) {
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
                closed = true;
                for (Trial trial : new ArrayList<>(trials.values())) {
                    if (trial.job.status().isTerminal()) {
                        continue;
                    }
                    if (trial.environment == null) {
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

    private String newEnvironmentId() {
        while (true) {
            StringBuilder id = new StringBuilder(5);
            for (int i = 0; i < 5; i++) {
                id.append(ID_CHARACTERS.charAt(RANDOM.nextInt(ID_CHARACTERS.length())));
            }
            if (!environments.containsKey(id.toString()) && !trials.containsKey(id.toString())) {
                return id.toString();
            }
        }
    }

    private static Instant instant(Object epochMillis) {
        return epochMillis instanceof Number n ? Instant.ofEpochMilli(n.longValue()) : Instant.now();
    }
}
