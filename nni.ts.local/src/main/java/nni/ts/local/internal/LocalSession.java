package nni.ts.local.internal;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import nni.api.model.HyperParameters;
import nni.api.model.Placement;
import nni.api.model.TrialApplication;
import nni.api.model.TrialJob;
import nni.api.model.TrialStatus;
import nni.api.platform.PlatformException;
import nni.api.platform.SessionContext;
import nni.api.platform.SessionView;
import nni.api.platform.TrainingSession;
import nni.trialkeeper.StderrTail;

/**
 * One experiment's trials on this machine, as NNI's legacy local platform runs them (nni-core
 * §7.1) without its polling:
 * <ul>
 * <li>each trial gets {@code <exp>/trials/<id>} with {@code parameter.cfg} (written atomically),
 *     {@code run.sh}, {@code stdout}, {@code stderr}, {@code .nni/metrics}, {@code .nni/pid}
 *     (pid and start time, for re-attaching after a restart) and {@code .nni/state} (exit code);</li>
 * <li>{@code run.sh} is started in a process group of its own by the session's {@link Nursery} (the one
 *     child process of this JVM that starts and reaps the trials, so a running trial costs no
 *     thread here), so the trial is a process group whose id is the shell's pid: cancel sends
 *     SIGTERM to the whole group, then SIGKILL after the grace period;</li>
 * <li>{@link #submit} does not wait for the start: the trial is RUNNING when the nursery answers
 *     with its pid, so up to {@code trialConcurrency} starts are in flight at once (a trial
 *     cancelled meanwhile is killed as soon as its pid is known);</li>
 * <li>the end of a trial is its exit status appearing in {@code .nni/state} (written by the
 *     trial's launch script {@code .nni/launch.sh} once the shell ended, even when a signal ended
 *     it); metrics are read when inotify (the JDK's {@link WatchService}) says the trial wrote, and
 *     drained completely before the terminal status is reported; a sweep every
 *     {@value #SWEEP_SECONDS} s ends trials whose process is gone without an exit status (their
 *     launch script was killed);</li>
 * <li>trials that need GPUs wait in submission order until {@link GpuScheduler} places them (tried
 *     again when a trial ends and every {@value #GPU_RECHECK_SECONDS} s while any waits); the
 *     waiting trial's message says why;</li>
 * <li>a trial's handle is {@code <pid>:<start time in epoch ms>} of its process group leader, so
 *     that {@link #reattach} finds exactly that process again (a reused pid has another start
 *     time); {@link #detach()} leaves the processes running and only stops watching them.</li>
 * </ul>
 */
final class LocalSession implements TrainingSession {

    private static final Logger LOG = LoggerFactory.getLogger(LocalSession.class);
    private static final long GPU_RECHECK_SECONDS = 2;
    private static final long SWEEP_SECONDS = 10;
    /** How long a resume waits for the pid of a trial whose launch script had claimed its start. */
    private static final long PID_WAIT_SECONDS = 10;

    /** A trial of this session. Mutable fields are guarded by the session's lock. */
    private static final class LocalTrial {
        final TrialApplication application;
        final Path directory;
        final MetricTail tail;
        volatile TrialJob job;
        /** The process group leader, once started; its handle is empty when it ended before we looked. */
        volatile Optional<ProcessHandle> process;
        Boolean cancelledAs;
        boolean endReported;
        /** Its start is in flight: asked of the nursery, no pid answered yet. */
        boolean starting;
        /** Set by a sweep that found the process gone and no exit status yet; the next sweep ends the trial. */
        boolean goneWithoutStatus;
        final List<WatchKey> watches = new ArrayList<>();
        ScheduledFuture<?> kill;

        LocalTrial(TrialApplication application, Path directory, MetricTail tail, TrialJob job) {
            this.application = application;
            this.directory = directory;
            this.tail = tail;
            this.job = job;
        }
    }

    private final SessionContext context;
    private final String shell;
    private final int graceSeconds;
    private final Map<String, LocalTrial> trials = new ConcurrentHashMap<>();
    /** The marks of start claims a resume made ({@link StartClaim}), by trial, until the trial's launch script is written. */
    private final Map<String, String> resumeMarks = new ConcurrentHashMap<>();
    private final List<String> order = new CopyOnWriteArrayList<>();
    private final Deque<LocalTrial> waiting = new ArrayDeque<>();
    private final Map<WatchKey, LocalTrial> watched = new ConcurrentHashMap<>();
    private final WatchService watcher;
    private final Thread watchThread;
    private final ScheduledExecutorService timers;
    private final Nursery nursery;
    private final Path codeDirectory;
    private final String trialCommand;
    private final Path sdkPath;
    private final String nvidiaSmi;
    private final String host;
    private GpuScheduler gpus;
    private final GpuReadings gpuReadings;
    /** Which GPUs each trial holds, as the scheduler last placed them: read by {@link #view()} without the lock. */
    private volatile Map<String, List<Integer>> gpuHolders = Map.of();
    private ScheduledFuture<?> gpuRecheck;
    private volatile boolean closed;
    /** Set by {@link #detach()}: trials are left alone and nothing more is reported. */
    private volatile boolean detached;

    LocalSession(SessionContext context, String shell, int graceSeconds, Path sdkPath, String nvidiaSmi, String host)
            throws PlatformException {
        this(context, shell, graceSeconds, sdkPath, nvidiaSmi, host, null);
    }

    /** @param startHook a bash script the nursery sources before each launch script, or null (tests hold starts with it) */
    LocalSession(SessionContext context, String shell, int graceSeconds, Path sdkPath, String nvidiaSmi, String host,
                 Path startHook) throws PlatformException {
        this.context = context;
        this.host = host;
        this.nvidiaSmi = nvidiaSmi;
        this.sdkPath = sdkPath;
        this.shell = shell;
        this.graceSeconds = graceSeconds;
        Object dir = context.section().get("trialCodeDirectory");
        this.codeDirectory = Path.of(dir == null ? "." : dir.toString()).toAbsolutePath().normalize();
        this.trialCommand = String.valueOf(context.section().get("trialCommand"));
        if (!Files.isDirectory(codeDirectory)) {
            throw new PlatformException("trialCodeDirectory: " + codeDirectory + " is not a directory");
        }
        try {
            this.watcher = FileSystems.getDefault().newWatchService();
        } catch (IOException e) {
            throw new PlatformException("cannot watch trial files: " + e.getMessage(), e);
        }
        try {
            this.nursery = new Nursery(codeDirectory.toFile(), "nni-local-nursery-" + context.experimentId(), startHook);
        } catch (IOException e) {
            try {
                watcher.close();
            } catch (IOException ignored) {
                // nothing was watched yet
            }
            throw new PlatformException("cannot start the process that starts trials (bash and setsid are needed): " + e.getMessage(), e);
        }
        this.timers = Executors.newSingleThreadScheduledExecutor(r -> daemon(r, "nni-local-timer-" + context.experimentId()));
        this.timers.scheduleWithFixedDelay(this::sweep, SWEEP_SECONDS, SWEEP_SECONDS, TimeUnit.SECONDS);
        this.gpuReadings = new GpuReadings(nvidiaSmi, timers);
        this.watchThread = daemon(this::watch, "nni-local-watch-" + context.experimentId());
        this.watchThread.start();
    }

    private static Thread daemon(Runnable work, String name) {
        Thread thread = new Thread(work, name);
        thread.setDaemon(true);
        return thread;
    }

    // ------------------------------------------------------------------ submit and start

    @Override
    public TrialJob submit(TrialApplication application) throws PlatformException {
        if (closed) {
            throw new PlatformException("the local session of experiment " + context.experimentId() + " is closed");
        }
        Path directory = context.experimentDirectory().resolve("trials").resolve(application.trialId());
        LocalTrial trial = new LocalTrial(application, directory,
                new MetricTail(application.trialId(), directory, context::metricReported),
                TrialJob.waiting(application, directory.toString(), "file://localhost" + directory));
        try {
            Files.createDirectories(directory.resolve(".nni"));
            Files.deleteIfExists(stateFile(directory));
            if (!resumeMarks.containsKey(application.trialId())) {
                StartClaim.clear(directory); // a new start of the trial: no claim of an earlier one holds
            } // else a resume claimed the start for this launch: the claim keeps any older launch from starting it
            Path metrics = directory.resolve(".nni").resolve("metrics");
            if (!Files.exists(metrics)) {
                Files.createFile(metrics);
            }
            writeAtomically(directory.resolve(application.hyperParameters().fileName()), application.hyperParameters().value());
            writeAtomically(directory.resolve("run.sh"), runScript(directory));
        } catch (IOException e) {
            throw new PlatformException("cannot prepare the directory of trial " + application.trialId() + ": " + e.getMessage(), e);
        }
        synchronized (this) {
            trials.put(application.trialId(), trial);
            order.add(application.trialId());
            Integer gpuNumber = application.placement().gpuNumber();
            if (gpuNumber == null || gpuNumber == 0) {
                start(trial, gpuNumber == null ? null : "-1");
            } else {
                if (gpus == null) {
                    gpus = GpuScheduler.fromSection(context.section(), nvidiaSmi);
                    gpus.onReading(gpuReadings::record);
                }
                waiting.add(trial);
                try {
                    startWaiting();
                } catch (PlatformException e) {
                    waiting.remove(trial);
                    trials.remove(application.trialId());
                    order.remove(application.trialId());
                    throw e;
                }
            }
            return trial.job;
        }
    }

    /**
     * Starts waiting GPU trials in order while they can be placed; head-of-line keeps its place.
     * While trials wait, the GPUs are read again every {@value #GPU_RECHECK_SECONDS} s: processes
     * outside this runtime free them without telling us.
     */
    private void startWaiting() throws PlatformException {
        while (!waiting.isEmpty()) {
            LocalTrial head = waiting.peek();
            GpuScheduler.Placement placement = gpus.place(head.application.trialId(), head.application.placement().gpuNumber());
            if (!placement.placed()) {
                showWaiting(head, placement.waitingReason());
                if (gpuRecheck == null) {
                    gpuRecheck = timers.scheduleWithFixedDelay(this::recheckGpus, GPU_RECHECK_SECONDS, GPU_RECHECK_SECONDS, TimeUnit.SECONDS);
                }
                return;
            }
            waiting.poll();
            gpuHolders = gpus.placements();
            start(head, String.join(",", placement.indices().stream().map(String::valueOf).toList()));
        }
        if (gpuRecheck != null) {
            gpuRecheck.cancel(false);
            gpuRecheck = null;
        }
    }

    private void showWaiting(LocalTrial trial, String reason) {
        if (!reason.equals(trial.job.message())) {
            trial.job = trial.job.withMessage(reason);
            context.trialChanged(trial.job);
        }
    }

    /** The periodic re-reading: never throws, so that a failing nvidia-smi does not end it; the waiting trial says why. */
    private void recheckGpus() {
        synchronized (this) {
            if (closed || waiting.isEmpty()) {
                return;
            }
            try {
                startWaiting();
            } catch (PlatformException e) {
                LOG.warn("experiment {}: placing waiting trials failed: {}", context.experimentId(), e.getMessage());
                showWaiting(waiting.peek(), "waiting: cannot read the GPUs now (" + e.getMessage() + "); reading them again every "
                        + GPU_RECHECK_SECONDS + " s");
            } catch (RuntimeException e) {
                LOG.warn("experiment {}: placing waiting trials failed", context.experimentId(), e);
            }
        }
    }

    /**
     * Hands the trial's start to the nursery and returns without waiting for it: the trial becomes
     * RUNNING when the nursery answers with its pid ({@link #started}), so that starts are in flight
     * together instead of one after the other (at load 20 a round trip takes long enough for a
     * serial start to leave most of {@code trialConcurrency} empty). Holds the lock.
     */
    private void start(LocalTrial trial, String cudaVisibleDevices) {
        String id = trial.application.trialId();
        try {
            Map<String, String> env = new java.util.LinkedHashMap<>();
            env.put("NNI_PLATFORM", "local");
            env.put("NNI_EXP_ID", context.experimentId());
            env.put("NNI_TRIAL_JOB_ID", id);
            env.put("NNI_SYS_DIR", trial.directory.toString());
            env.put("NNI_OUTPUT_DIR", trial.directory.toString());
            env.put("NNI_TRIAL_SEQ_ID", Long.toString(trial.application.sequenceId()));
            env.put("MULTI_PHASE", "false");
            env.put("NNI_CODE_DIR", codeDirectory.toString());
            if (cudaVisibleDevices != null) {
                env.put("CUDA_VISIBLE_DEVICES", cudaVisibleDevices);
            }
            if (sdkPath != null) {
                String existing = System.getenv("PYTHONPATH");
                env.put("PYTHONPATH", existing == null || existing.isEmpty() ? sdkPath.toString() : existing + ":" + sdkPath);
            }
            String resumeMark = resumeMarks.remove(trial.application.trialId());
            // a resume's launch has a script of its own: a late launch of the killed runtime runs the old one
            Path launch = trial.directory.resolve(".nni").resolve(resumeMark == null ? "launch.sh" : "launch-" + resumeMark + ".sh");
            writeAtomically(launch, launchScript(trial.directory, env, resumeMark));
            watch(trial);
            // no time limit: a thousand starts asked at once of a loaded machine (load 70) took minutes,
            // and a script that fails says so; the nursery's end fails the starts still in flight
            CompletableFuture<Long> answer = nursery.start(launch);
            trial.starting = true;
            answer.whenComplete((pid, error) -> {
                try {
                    if (error == null) {
                        started(trial, pid);
                    } else {
                        notStarted(trial, error);
                    }
                } catch (RuntimeException e) { // else lost in the future nobody reads
                    LOG.warn("experiment {}: following the start of trial {} failed", context.experimentId(), id, e);
                }
            });
        } catch (IOException | RuntimeException e) {
            notStarted(trial, e);
        }
    }

    /**
     * The nursery answered with the trial's pid (on its reader's thread): records it, reports
     * RUNNING and from then on follows the trial's events. A trial cancelled while its start was in
     * flight is killed now; one given up meanwhile (by a close that could not wait for it) is killed
     * and reported no more.
     */
    private void started(LocalTrial trial, long pid) {
        Optional<ProcessHandle> handle = ProcessHandle.of(pid);
        Instant started = handle.flatMap(p -> p.info().startInstant()).orElse(Instant.now());
        try {
            writeAtomically(pidFile(trial.directory), pid + " " + started.toEpochMilli());
        } catch (IOException e) {
            LOG.warn("trial {}: cannot write its pid file: {}", trial.application.trialId(), e.getMessage());
        }
        boolean givenUp;
        synchronized (this) {
            trial.starting = false;
            givenUp = trial.endReported;
            if (!givenUp) {
                trial.job = trial.job.toBuilder().handle(pid + ":" + started.toEpochMilli()).host(host).build()
                        .running(Instant.now());
                if (!detached) {
                    context.trialChanged(trial.job);
                }
                // from here on its events are followed: metrics and the end come after RUNNING
                trial.process = handle;
                if (trial.cancelledAs != null) {
                    terminate(trial);
                }
            }
        }
        if (givenUp) {
            LOG.warn("experiment {}: trial {} started after it was given up; killing it", context.experimentId(),
                    trial.application.trialId());
            signalGroup(pid, "KILL");
            return;
        }
        if (detached) {
            return; // a later session re-attaches it from its pid file
        }
        trial.tail.read(false);
        if (hasExitStatus(trial.directory)) {
            ended(trial);
        }
    }

    /**
     * The trial could not be started (its script said why, or the nursery ended): FAILED, or
     * cancelled when it was cancelled meanwhile.
     */
    private void notStarted(LocalTrial trial, Throwable why) {
        TrialJob ended;
        synchronized (this) {
            if (trial.endReported) {
                return;
            }
            trial.starting = false;
            trial.endReported = true;
            unwatch(trial);
            releaseGpus(trial);
            ended = trial.cancelledAs != null
                    ? trial.job.ended(TrialStatus.cancelled(trial.cancelledAs), Instant.now(), "cancelled before it started")
                    : trial.job.ended(TrialStatus.FAILED, Instant.now(), "could not start: " + why.getMessage());
            trial.job = ended;
            notifyAll(); // a close waiting for its cancelled trials
        }
        LOG.warn("experiment {}: trial {} could not be started", context.experimentId(), trial.application.trialId(), why);
        if (!detached) {
            context.trialChanged(ended);
        }
    }

    /**
     * The script the nursery runs for a trial (argument: the nursery's request id), sourced in a
     * subshell of its own rather than by a new bash: claims the start ({@code .nni/started}, made
     * atomically: a resume that claims it first keeps an old request from starting the trial), starts
     * {@code run.sh} in a process group of its own with the trial's environment and files, writes its
     * pid to {@code .nni/pid} and reports it, waits for it and writes its exit status to
     * {@code .nni/state}. The pid and the exit status are written by the script, not this JVM, so that
     * a runtime killed at any moment finds the trial again on resume: running, or ended with its exit
     * status.
     *
     * <p>A start makes three processes: the subshell, {@code run.sh} and the trial's command, since a
     * process costs milliseconds of CPU to create and a thousand starts at once were bound by that. The
     * claim is a builtin ({@link StartClaim}); job control ({@code set -m}) for the one command that
     * starts {@code run.sh} gives it its own process group without {@code setsid}; the pid and the exit
     * status are each written by one {@code write}, so a reader sees them whole or not at all
     * ({@link #hasExitStatus}), without an {@code mv} each.
     *
     * @param resumeMark the mark of the resume's start claim this launch consumes ({@link StartClaim}), or null
     */
    private String launchScript(Path directory, Map<String, String> env, String resumeMark) {
        StringBuilder script = new StringBuilder("unset REUSE_MODE\n");
        env.forEach((name, value) -> script.append("export ").append(name).append('=').append(quote(value)).append('\n'));
        Path state = stateFile(directory);
        Path pid = pidFile(directory);
        return script
                .append("cd ").append(quote(codeDirectory.toString())).append(" || { echo \"$1 cannot enter the code directory\"; exit 0; }\n")
                .append(StartClaim.shellClaim(directory, resumeMark, LocalSession::quote))
                .append(" 2>/dev/null || { echo \"$1 the trial was started before, or a resume took it back\"; exit 0; }\n")
                .append("set +C -m\n")
                .append(quote(shell)).append(' ').append(quote(directory.resolve("run.sh").toString()))
                .append(" </dev/null >").append(quote(directory.resolve("stdout").toString()))
                .append(" 2>").append(quote(directory.resolve("stderr").toString())).append(" &\n")
                .append("trial=$!\n")
                // job control only for that start: with it on, the end of the job would be announced
                .append("set +m\n")
                .append("echo \"$trial\" > ").append(quote(pid.toString())).append('\n')
                // the runtime may be gone (kill -9 just after the start): its closed pipe must not kill
                // this script by SIGPIPE, which alone writes the exit status a resume needs
                .append("trap '' PIPE\n")
                .append("echo \"$1 $trial\"\n")
                .append("exec >/dev/null 2>&1\n")
                .append("wait \"$trial\"\n")
                .append("echo \"$?\" > ").append(quote(state.toString())).append('\n')
                .toString();
    }

    private static Path stateFile(Path directory) {
        return directory.resolve(".nni").resolve("state");
    }

    /**
     * @return whether the trial ended: its launch script wrote the exit status whole ({@code <code>\n},
     *         one {@code write}; the file it has just created, still empty, is not an end yet)
     */
    private static boolean hasExitStatus(Path directory) {
        Path state = stateFile(directory);
        try {
            return Files.exists(state) && Files.readString(state).endsWith("\n");
        } catch (IOException e) {
            return false;
        }
    }

    /** The trial's pid, and its start time once this JVM learnt it: {@code <pid>[ <start epoch ms>]}. */
    private static Path pidFile(Path directory) {
        return directory.resolve(".nni").resolve("pid");
    }

    private String runScript(Path directory) {
        // The command runs in this shell (eval), so the process group is the trial and nothing else.
        // On SIGTERM (sent to the whole group) the shell first reaps its children: where PID 1 does
        // not reap orphans (containers), they would otherwise stay behind as zombies.
        return "#!/bin/bash\n"
                + "trap 'wait; exit 143' TERM INT\n"
                + "cd " + quote(codeDirectory.toString()) + " || exit 127\n"
                + "eval " + quote(trialCommand) + "\n";
    }

    private static String quote(String text) {
        return "'" + text.replace("'", "'\\''") + "'";
    }

    private static void writeAtomically(Path file, String content) throws IOException {
        Path temporary = file.resolveSibling(file.getFileName() + ".tmp");
        Files.writeString(temporary, content, StandardCharsets.UTF_8);
        Files.move(temporary, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    // ------------------------------------------------------------------ end

    /** Reports the end of a trial once, with the exit status from {@code .nni/state} (-1 when there is none). */
    private void ended(LocalTrial trial) {
        if (detached) {
            return; // a later session re-attaches the trial and reports its end
        }
        synchronized (this) {
            if (trial.endReported) {
                return;
            }
            trial.endReported = true;
        }
        int exitCode = exitCodeFromState(trial.directory);
        trial.tail.read(true);
        unwatch(trial);
        TrialJob ended;
        synchronized (this) {
            releaseGpus(trial);
            TrialStatus status = trial.cancelledAs != null ? TrialStatus.cancelled(trial.cancelledAs)
                    : exitCode == 0 ? TrialStatus.SUCCEEDED : TrialStatus.FAILED;
            String why = trial.cancelledAs != null ? (trial.cancelledAs ? "stopped early" : "cancelled")
                    : exitCode == 0 ? "" : exitCode == -1 ? "its process ended without an exit status"
                    : StderrTail.failure(exitCode, trial.directory.resolve("stderr"));
            ended = trial.job.ended(status, Instant.now(), why);
            trial.job = ended;
        }
        context.trialChanged(ended);
        synchronized (this) {
            notifyAll(); // a close waiting for its cancelled trials
            if (gpus != null && !closed) {
                try {
                    startWaiting();
                } catch (PlatformException | RuntimeException e) {
                    LOG.warn("experiment {}: placing waiting trials failed: {}", context.experimentId(), e.getMessage());
                }
            }
        }
    }

    private void releaseGpus(LocalTrial trial) {
        if (gpus != null) {
            gpus.release(trial.application.trialId());
            gpuHolders = gpus.placements();
        }
    }

    @Override
    public void cancel(String trialId, boolean earlyStopped) {
        LocalTrial trial = trials.get(trialId);
        if (trial == null) {
            return;
        }
        TrialJob ended = null;
        synchronized (this) {
            if (trial.job.status().isTerminal() || trial.cancelledAs != null) {
                return;
            }
            trial.cancelledAs = earlyStopped;
            if (trial.process == null && !trial.starting) { // not started yet
                waiting.remove(trial);
                trial.endReported = true;
                trial.job = trial.job.ended(TrialStatus.cancelled(earlyStopped), Instant.now(), "cancelled before it started");
                ended = trial.job;
            } else if (trial.process != null) {
                if (Long.parseLong(trial.job.handle().split(":")[0]) <= 0) {
                    return; // found ended on resume with no pid: its end is being reported
                }
                terminate(trial);
            } // else its start is in flight: started() kills it once its pid is known
        }
        if (ended != null) {
            context.trialChanged(ended);
        }
    }

    /** Sends SIGTERM to the trial's process group, and SIGKILL after the grace period. Holds the lock. */
    private void terminate(LocalTrial trial) {
        long group = Long.parseLong(trial.job.handle().split(":")[0]);
        signalGroup(group, "TERM");
        trial.kill = timers.schedule(() -> {
            // also reaches processes of the group that outlived the shell
            signalGroup(group, "KILL");
        }, graceSeconds, TimeUnit.SECONDS);
    }

    private void signalGroup(long group, String signal) {
        try {
            Process kill = new ProcessBuilder("kill", "-" + signal, "--", "-" + group)
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            kill.waitFor(5, TimeUnit.SECONDS);
        } catch (IOException e) {
            LOG.warn("cannot signal process group {}: {}", group, e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    // ------------------------------------------------------------------ resume

    @Override
    public Optional<TrialJob> reattach(TrialJob stored) {
        Path directory = context.experimentDirectory().resolve("trials").resolve(stored.id());
        long[] pidAndStart = processOf(stored, directory);
        if (pidAndStart == null && !hasExitStatus(directory)) {
            if (!Files.isRegularFile(directory.resolve("run.sh"))) {
                return Optional.empty(); // never submitted here
            }
            // submitted, no trace of a start: the runtime stopped before the launch script ran, or while it started the trial
            String mark = StartClaim.claimForResume(directory);
            if (mark != null) {
                resumeMarks.put(stored.id(), mark); // the new launch starts it; the old one (if any) now never does
                return submitAgain(stored);
            }
            pidAndStart = awaitPidFile(stored, directory);
            if (pidAndStart == null && !hasExitStatus(directory)) {
                LOG.warn("trial {}: its launch script claimed the start but wrote no pid within {} s", stored.id(), PID_WAIT_SECONDS);
                return Optional.empty();
            }
        }
        // the trial started: running, or ended while nobody watched (its exit status in .nni/state)
        Path launch = directory.resolve(".nni").resolve("launch.sh");
        long pid = pidAndStart == null ? -1 : pidAndStart[0];
        long knownStart = pidAndStart == null ? -1 : pidAndStart[1];
        Optional<ProcessHandle> process = pid < 0 ? Optional.empty() : ProcessHandle.of(pid).filter(ProcessHandle::isAlive)
                .filter(p -> startedAsLaunched(p, knownStart, launch));
        long startMillis = knownStart >= 0 ? knownStart
                : process.flatMap(p -> p.info().startInstant()).map(Instant::toEpochMilli).orElseGet(() -> modifiedMillis(launch));
        TrialApplication application = TrialApplication.builder(stored.id()).sequenceId(stored.sequenceId())
                .hyperParameters(stored.hyperParameters()).build();
        LocalTrial trial = new LocalTrial(application, directory,
                new MetricTail(stored.id(), directory, context::metricReported),
                stored.toBuilder().status(TrialStatus.RUNNING).endTime(null).message("")
                        .startTime(stored.startTime() == null || stored.status() == TrialStatus.WAITING
                                ? Instant.ofEpochMilli(startMillis) : stored.startTime())
                        .workingDirectory(directory.toString()).url("file://localhost" + directory)
                        .handle(pid + ":" + startMillis).host(stored.host().isEmpty() ? host : stored.host()).build());
        synchronized (this) {
            trials.put(stored.id(), trial);
            order.add(stored.id());
            try {
                watch(trial);
            } catch (IOException e) {
                LOG.warn("trial {}: cannot watch its files again: {}", stored.id(), e.getMessage());
            }
            trial.process = process;
        }
        if (hasExitStatus(directory)) {
            timers.execute(() -> ended(trial)); // ended while nobody watched: the exit status is in .nni/state
        } // else .nni/state appearing ends it: also when the process is gone already, since its launch script
          // writes the status a moment after the trial's exit (seconds on a loaded machine). A launch script
          // that was killed writes none: the sweep ends such a trial after two looks find no process and no status
        return Optional.of(trial.job);
    }

    /**
     * Submits a trial that never started (the runtime stopped before its launch) as new, with the
     * placement the experiment asks for.
     */
    private Optional<TrialJob> submitAgain(TrialJob stored) {
        Object gpus = context.section().get("trialGpuNumber");
        TrialApplication application = TrialApplication.builder(stored.id()).sequenceId(stored.sequenceId())
                .hyperParameters(stored.hyperParameters())
                .placement(gpus instanceof Number n ? Placement.gpus(n.intValue()) : Placement.none()).build();
        try {
            LOG.info("trial {} had not started; starting it now", stored.id());
            return Optional.of(submit(application));
        } catch (PlatformException e) {
            LOG.warn("trial {} had not started and cannot be started now: {}", stored.id(), e.getMessage());
            return Optional.empty();
        }
    }

    /**
     * Waits for the pid of a trial whose launch script claimed the start when the runtime stopped: it
     * writes the pid right after starting the trial, so at most a moment (the script was scheduled
     * late) passes.
     */
    private static long[] awaitPidFile(TrialJob stored, Path directory) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(PID_WAIT_SECONDS);
        long[] found = null;
        while (found == null && !hasExitStatus(directory) && System.nanoTime() < deadline) {
            try {
                TimeUnit.MILLISECONDS.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
            found = processOf(stored, directory);
        }
        return found;
    }

    /**
     * @return whether a live process with the trial's pid is the trial: its start time as stored, or,
     *         when only the launch script wrote the pid, started after the launch script was written
     */
    private static boolean startedAsLaunched(ProcessHandle process, long knownStart, Path launch) {
        long started = process.info().startInstant().map(Instant::toEpochMilli).orElse(-1L);
        if (knownStart >= 0) {
            return started == knownStart;
        }
        return started >= 0 && started >= modifiedMillis(launch) - 2_000; // start times are coarse (clock ticks)
    }

    private static long modifiedMillis(Path file) {
        try {
            return Files.getLastModifiedTime(file).toMillis();
        } catch (IOException e) {
            return System.currentTimeMillis();
        }
    }

    /**
     * @return the pid and start time (epoch ms, -1 when only the launch script wrote the pid) of the
     *         trial's process group leader: from its handle, or from {@code .nni/pid} (a trial whose
     *         start the runtime did not store before it stopped); null when neither says
     */
    private static long[] processOf(TrialJob stored, Path directory) {
        String handle = stored.handle();
        String source = "handle";
        if (handle.isEmpty()) {
            Path pidFile = pidFile(directory);
            if (!Files.isRegularFile(pidFile)) {
                return null;
            }
            try {
                handle = Files.readString(pidFile).trim().replaceAll("\\s+", ":");
                source = pidFile.toString();
                if (handle.isEmpty()) {
                    return null; // created, its one write not made yet: the launch script writes it at once
                }
            } catch (IOException e) {
                LOG.warn("trial {}: unreadable {}: {}", stored.id(), pidFile, e.getMessage());
                return null;
            }
        }
        try {
            String[] words = handle.split(":");
            return new long[] {Long.parseLong(words[0]), words.length > 1 ? Long.parseLong(words[1]) : -1};
        } catch (RuntimeException e) {
            LOG.warn("trial {}: {} '{}' is not <pid>[:<start time>]", stored.id(), source, handle);
            return null;
        }
    }

    private static int exitCodeFromState(Path directory) {
        try {
            return Integer.parseInt(Files.readString(stateFile(directory)).trim().split("\\s+")[0]);
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    // ------------------------------------------------------------------ metric events

    private void watch(LocalTrial trial) throws IOException {
        WatchKey dir = trial.directory.register(watcher, StandardWatchEventKinds.ENTRY_MODIFY, StandardWatchEventKinds.ENTRY_CREATE);
        WatchKey nni = trial.directory.resolve(".nni").register(watcher, StandardWatchEventKinds.ENTRY_MODIFY,
                StandardWatchEventKinds.ENTRY_CREATE);
        trial.watches.add(dir);
        trial.watches.add(nni);
        watched.put(dir, trial);
        watched.put(nni, trial);
    }

    /**
     * Ends trials whose exit status was written without an event reaching us, and trials whose
     * process is gone with no exit status on two sweeps in a row (their launch script was killed).
     */
    private void sweep() {
        List<LocalTrial> ended = new ArrayList<>();
        synchronized (this) {
            for (LocalTrial trial : trials.values()) {
                if (trial.process == null || trial.endReported) {
                    continue;
                }
                if (hasExitStatus(trial.directory)) {
                    ended.add(trial);
                } else if (trial.process.map(ProcessHandle::isAlive).orElse(false)) {
                    trial.goneWithoutStatus = false;
                } else if (trial.goneWithoutStatus) {
                    ended.add(trial);
                } else {
                    trial.goneWithoutStatus = true;
                }
            }
        }
        for (LocalTrial trial : ended) {
            try {
                ended(trial);
            } catch (RuntimeException e) {
                LOG.warn("experiment {}: ending trial {} failed", context.experimentId(), trial.application.trialId(), e);
            }
        }
    }

    private void unwatch(LocalTrial trial) {
        for (WatchKey key : trial.watches) {
            try {
                key.cancel();
            } catch (ClosedWatchServiceException closing) {
                // the session is closing or detaching its watch service: every key goes with it. A trial
                // ending at that moment still reports its end (found by the conformance kit's close test)
            }
            watched.remove(key);
        }
    }

    private void watch() {
        while (!closed) {
            WatchKey key;
            try {
                key = watcher.take();
            } catch (InterruptedException | ClosedWatchServiceException e) {
                return;
            }
            key.pollEvents();
            LocalTrial trial = watched.get(key);
            try {
                if (trial != null && trial.process != null) {
                    trial.tail.read(false);
                    if (hasExitStatus(trial.directory)) {
                        ended(trial);
                    }
                }
            } catch (RuntimeException e) {
                LOG.warn("reading metrics of trial {} failed", trial.application.trialId(), e);
            } finally {
                key.reset();
            }
        }
    }

    // ------------------------------------------------------------------ queries

    @Override
    public void sendParameters(String trialId, HyperParameters parameters) throws PlatformException {
        LocalTrial trial = trials.get(trialId);
        if (trial == null || trial.job.status() != TrialStatus.RUNNING) {
            throw new PlatformException("trial " + trialId + " is not running");
        }
        try {
            writeAtomically(trial.directory.resolve(parameters.fileName()), parameters.value());
        } catch (IOException e) {
            throw new PlatformException("cannot write " + parameters.fileName() + " for trial " + trialId + ": " + e.getMessage(), e);
        }
    }

    @Override
    public Optional<TrialJob> trial(String trialId) {
        LocalTrial trial = trials.get(trialId);
        return trial == null ? Optional.empty() : Optional.of(trial.job);
    }

    @Override
    public List<TrialJob> trials() {
        return order.stream().map(id -> trials.get(id).job).toList();
    }

    /** This machine's GPUs as last read (a fresh reading starts on the timer thread when that is old) and the trial count. */
    @Override
    public Optional<SessionView> view() {
        long running = trials.values().stream().filter(t -> t.job.status() == TrialStatus.RUNNING).count();
        long waitingNow = trials.values().stream().filter(t -> t.job.status() == TrialStatus.WAITING).count();
        return Optional.of(SessionView.builder()
                .state(closed ? "closed" : running + " running, " + waitingNow + " waiting")
                .machine(gpuReadings.machine(host, gpuHolders))
                .build());
    }

    @Override
    public Optional<InputStream> openTrialFile(String trialId, String name) throws IOException {
        if (!List.of("stdout", "stderr", "trial.log").contains(name)) {
            return Optional.empty();
        }
        Path file = context.experimentDirectory().resolve("trials").resolve(trialId).resolve(name);
        return Files.isRegularFile(file) ? Optional.of(Files.newInputStream(file)) : Optional.empty();
    }

    /**
     * Stops watching: the watch thread and timers end, the trials' processes keep running and
     * their exits are no longer reported. Pending SIGKILLs of trials being cancelled still fire.
     */
    @Override
    public void detach() {
        if (closed) {
            return;
        }
        detached = true;
        release();
        LOG.info("experiment {}: local session detached; {} trials keep running", context.experimentId(),
                trials.values().stream().filter(t -> !t.job.status().isTerminal()).count());
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        for (LocalTrial trial : trials.values()) {
            cancel(trial.application.trialId(), false);
        }
        awaitCancelledEnds();
        release();
    }

    /**
     * Waits, while the watch thread still sees their exit statuses, until the trials just cancelled
     * have ended (at most the kill grace and 5 s more: the SIGKILL goes out after the grace), and
     * ends those it did not see end, so that each reports exactly one end before the session lets
     * go of its watches (found by the conformance kit: a trial ending after the release was never
     * reported).
     */
    private void awaitCancelledEnds() {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(graceSeconds + 5L);
        List<LocalTrial> unseen = new ArrayList<>();
        synchronized (this) {
            while (true) {
                unseen.clear();
                for (LocalTrial trial : trials.values()) {
                    if ((trial.process != null || trial.starting) && trial.cancelledAs != null && !trial.endReported) {
                        unseen.add(trial);
                    }
                }
                long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                if (unseen.isEmpty() || left <= 0) {
                    break;
                }
                try {
                    wait(Math.min(left, 200));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
        }
        for (LocalTrial trial : unseen) {
            ended(trial);
        }
    }

    /** Ends the watch thread and the timers; pending SIGKILLs still run (shutdown lets scheduled kills fire). */
    private void release() {
        closed = true;
        synchronized (this) {
            if (gpuRecheck != null) {
                gpuRecheck.cancel(false);
            }
        }
        try {
            watcher.close();
        } catch (IOException e) {
            LOG.debug("closing the watch service failed", e);
        }
        nursery.close();
        timers.shutdown();
    }
}
