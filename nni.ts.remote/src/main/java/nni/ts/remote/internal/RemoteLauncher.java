package nni.ts.remote.internal;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import nni.api.environment.EnvironmentLauncher;
import nni.api.environment.EnvironmentListener;
import nni.api.environment.EnvironmentSpec;
import nni.api.environment.EnvironmentState;
import nni.api.environment.KeeperRuntime;
import nni.api.environment.LaunchedEnvironment;
import nni.api.platform.SessionView;
import nni.ts.remote.internal.keeper.KeeperProbe;
import nni.ts.remote.internal.schedule.MachineShown;
import nni.ts.remote.internal.schedule.Scheduler;
import nni.ts.remote.internal.ssh.Shell;
import nni.ts.remote.internal.ssh.SshException;

/**
 * Starts keepers on the experiment's machines over SSH. Each machine is asked once which keeper it
 * can run ({@link KeeperProbe}: Java 17+, else Python 3.7+, as the configured {@code keeper} allows);
 * one that can run none is not used, and environments say where their keeper runs in their
 * attributes ({@code keeper=python 3.11}). A keeper to start waits in a queue until
 * a machine has room for it (the GPUs {@code trialGpuNumber} asks for); it is then started detached
 * ({@code setsid nohup}) in a process group of its own, its token fed through stdin. A periodic
 * check per machine notices keepers that ended, machines that cannot be reached (their keepers are
 * given up after {@code machineLostAfter}) and machines that are back. Why a keeper waits for a
 * machine reaches its trials as the environment's {@link EnvironmentState#PENDING} message. An
 * environment's handle is {@code <machine>/<keeper pid>}; {@link #detach()} closes the connections
 * and leaves every keeper running.
 *
 * <p>State is guarded by {@link #lock}; SSH work runs on {@link #executor} threads outside it.
 */
final class RemoteLauncher implements EnvironmentLauncher, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(RemoteLauncher.class);
    private static final long GPU_INFO_MAX_AGE_MILLIS = 2000;
    /** A view shown with GPUs read longer ago than this starts a new reading. */
    private static final long GPU_VIEW_MAX_AGE_MILLIS = 3000;

    private final List<RemoteMachine> machines;
    private final int gpuNumber;
    private final Path sdk;
    private final KeeperCommands keepers;
    private final Duration killGrace;
    private final Duration machineLostAfter;
    private final ScheduledExecutorService executor;
    private final Object lock = new Object();
    private final Map<String, RemoteEnvironment> pending = new LinkedHashMap<>();
    private final Map<String, RemoteEnvironment> running = new LinkedHashMap<>();
    /** Keepers given up because their machine was unreachable: killed when it is back. */
    private final List<RemoteEnvironment> abandoned = new ArrayList<>();
    private boolean closed;
    private final AtomicBoolean viewReading = new AtomicBoolean();

    /**
     * @param sdk     the nni SDK shipped with nni-osgi ({@code nni/__init__.py}), for machines without nni; or null
     * @param keepers which keepers the machines may run, and with which interpreters
     */
    RemoteLauncher(List<RemoteMachine> machines, int gpuNumber, Path sdk, KeeperCommands keepers, Duration killGrace,
                   Duration machineLostAfter, Duration checkInterval, ScheduledExecutorService executor) {
        this.machines = machines;
        this.gpuNumber = gpuNumber;
        this.sdk = sdk;
        this.keepers = keepers;
        this.killGrace = killGrace;
        this.machineLostAfter = machineLostAfter;
        this.executor = executor;
        executor.scheduleWithFixedDelay(this::check, checkInterval.toMillis(), checkInterval.toMillis(), TimeUnit.MILLISECONDS);
    }

    /**
     * Connects to every machine once and decides which keeper each runs; a machine that cannot be
     * reached is reported and tried again later, one that can run no keeper is not used.
     */
    List<String> connectAll() {
        List<String> failures = new ArrayList<>();
        for (RemoteMachine machine : machines) {
            try {
                machine.ssh.session();
                synchronized (lock) {
                    machine.reachable(null);
                }
                LOG.info("remote machine {} runs the trial keeper on {}", machine.name(), machine.keeper(keepers).describe());
            } catch (KeeperProbe.NoKeeperException e) {
                failures.add(e.getMessage());
                LOG.warn("{}", e.getMessage());
            } catch (SshException e) {
                failures.add(e.getMessage());
                synchronized (lock) {
                    machine.reachable(e.reason().words());
                }
                LOG.warn("remote machine {}: {}", machine.name(), e.getMessage());
            }
        }
        return failures;
    }

    @Override
    public LaunchedEnvironment start(EnvironmentSpec spec, EnvironmentListener listener) {
        RemoteEnvironment environment = new RemoteEnvironment(spec, listener);
        synchronized (lock) {
            if (closed) {
                environment.end("the remote session is closed");
                return environment;
            }
            pending.put(environment.id, environment);
        }
        submit(this::placePending);
        return environment;
    }

    private void submit(Runnable task) {
        try {
            executor.execute(() -> {
                try {
                    task.run();
                } catch (RuntimeException e) {
                    LOG.error("remote platform task failed", e);
                }
            });
        } catch (RejectedExecutionException closing) {
            // the session is closing
        }
    }

    /**
     * Each machine with its GPUs as last read and the trials of the environments placed on them;
     * when a reading is older than {@value #GPU_VIEW_MAX_AGE_MILLIS} ms, the reachable machines are
     * read again on the launcher's threads, for the next view.
     */
    @Override
    public List<SessionView.Machine> machines(Map<String, List<String>> trials) {
        List<SessionView.Machine> shown = new ArrayList<>();
        boolean stale = false;
        synchronized (lock) {
            for (RemoteMachine machine : machines) {
                Map<Integer, List<String>> onGpu = new java.util.TreeMap<>();
                for (RemoteEnvironment environment : running.values()) {
                    if (environment.machine == machine && environment.placement != null) {
                        for (int gpu : environment.placement.gpus()) {
                            onGpu.computeIfAbsent(gpu, index -> new ArrayList<>()).addAll(trials.getOrDefault(environment.id, List.of()));
                        }
                    }
                }
                Instant readAt = machine.gpusReadAt();
                stale |= readAt == null || readAt.plusMillis(GPU_VIEW_MAX_AGE_MILLIS).isBefore(Instant.now());
                shown.add(MachineShown.of(machine.slots, readAt, onGpu));
            }
            stale &= !closed;
        }
        if (stale && viewReading.compareAndSet(false, true)) {
            try {
                executor.execute(this::readGpusForTheView);
            } catch (RejectedExecutionException closing) {
                viewReading.set(false);
            }
        }
        return shown;
    }

    private void readGpusForTheView() {
        try {
            for (RemoteMachine machine : machines) {
                boolean reachable;
                synchronized (lock) {
                    reachable = machine.slots.unreachableReason() == null && machine.slots.excludedReason() == null;
                }
                if (reachable) {
                    try {
                        machine.refreshGpus(GPU_VIEW_MAX_AGE_MILLIS);
                    } catch (SshException e) {
                        synchronized (lock) {
                            machine.reachable(e.reason().words());
                        }
                    }
                }
            }
        } finally {
            viewReading.set(false);
        }
    }

    /** Places waiting environments on machines with room, in submission order. */
    private void placePending() {
        if (gpuNumber > 0) {
            for (RemoteMachine machine : machines) {
                if (machine.slots.unreachableReason() == null) {
                    try {
                        machine.refreshGpus(GPU_INFO_MAX_AGE_MILLIS);
                    } catch (SshException e) {
                        synchronized (lock) {
                            machine.reachable(e.reason().words());
                        }
                    }
                }
            }
        }
        List<Map.Entry<RemoteEnvironment, Scheduler.Placement>> toStart = new ArrayList<>();
        List<RemoteEnvironment> hopeless = new ArrayList<>();
        Map<RemoteEnvironment, String> waiting = new LinkedHashMap<>();
        synchronized (lock) {
            for (RemoteEnvironment environment : new ArrayList<>(pending.values())) {
                Scheduler.Decision decision = Scheduler.place(machines.stream().map(m -> m.slots).toList(), gpuNumber);
                if (decision.placement().isPresent()) {
                    pending.remove(environment.id);
                    environment.placement = decision.placement().get();
                    environment.machine = machines.stream().filter(m -> m.slots == environment.placement.machine()).findFirst().orElseThrow();
                    running.put(environment.id, environment);
                    toStart.add(Map.entry(environment, environment.placement));
                } else if (decision.hopeless()) {
                    pending.remove(environment.id);
                    environment.whyWaiting = decision.whyWaiting();
                    hopeless.add(environment);
                } else {
                    if (!decision.whyWaiting().equals(environment.whyWaiting)) {
                        waiting.put(environment, decision.whyWaiting());
                    }
                    environment.whyWaiting = decision.whyWaiting();
                }
            }
        }
        hopeless.forEach(e -> e.end("no machine can ever run it: " + e.whyWaiting.substring("waiting: ".length())));
        waiting.forEach((environment, why) -> {
            LOG.info("environment {} {}", environment.id, why);
            environment.listener.stateChanged(EnvironmentState.PENDING, why);
        });
        for (var start : toStart) {
            submit(() -> launch(start.getKey()));
        }
    }

    /** Starts one placed keeper over SSH. */
    private void launch(RemoteEnvironment environment) {
        RemoteMachine machine = environment.machine;
        EnvironmentSpec spec = environment.spec;
        String workDirectory = machine.directory + "/envs/" + spec.environmentId();
        environment.url = "file://" + machine.config.target().host() + workDirectory;
        try {
            environment.listener.stateChanged(EnvironmentState.STARTING, "waiting: starting the keeper on " + machine.name());
            KeeperRuntime runtime = machine.keeper(keepers).runtime();
            // the code as the manager packed it for the session (.nniignore honoured), uploaded once per machine
            machine.prepare(runtime, spec.keeperFile(runtime), spec.codeArchive(), sdk);
            StringBuilder command = new StringBuilder();
            command.append("mkdir -p ").append(Shell.quote(workDirectory)).append(" && cd ").append(Shell.quote(workDirectory))
                    .append(" && IFS= read -r ").append(EnvironmentSpec.TOKEN_VARIABLE)
                    .append(" && export ").append(EnvironmentSpec.TOKEN_VARIABLE);
            if (machine.sdkDirectory() != null) {
                command.append(" && export PYTHONPATH=").append(Shell.quote(machine.sdkDirectory())).append("${PYTHONPATH:+:$PYTHONPATH}");
            }
            if (gpuNumber > 0) {
                command.append(" && export CUDA_VISIBLE_DEVICES=")
                        .append(environment.placement.gpus().stream().map(String::valueOf).collect(Collectors.joining(",")));
            }
            command.append(" && { setsid nohup ")
                    .append(keepers.commandLine(spec, runtime, machine.keeperFile(runtime), machine.directory + "/nni-code.tar.gz", workDirectory));
            command.append(" >keeper.stdout 2>keeper.stderr </dev/null & echo $! ; }");
            String out = machine.ssh.check(command.toString(), spec.token() + "\n", "starting the trial keeper");
            long pid = Long.parseLong(out.strip());
            boolean stopNow;
            synchronized (lock) {
                environment.pid = pid;
                stopNow = environment.stopRequested;
            }
            LOG.info("environment {} started on {} (keeper pid {} on {}, GPUs {})", spec.environmentId(), machine.name(), pid,
                    machine.keeper(keepers).describe(), environment.placement.gpus());
            environment.listener.stateChanged(EnvironmentState.RUNNING, "waiting: the keeper runs on " + machine.name()
                    + " and connects to the manager");
            if (stopNow) {
                kill(environment);
            }
        } catch (KeeperProbe.NoKeeperException | IllegalStateException e) {
            // a machine that can run no keeper this experiment allows (or this build ships)
            LOG.warn("environment {}: {}", spec.environmentId(), e.getMessage());
            finish(environment, e.getMessage());
        } catch (SshException | NumberFormatException e) {
            LOG.warn("environment {} could not start on {}: {}", spec.environmentId(), machine.name(), e.getMessage());
            finish(environment, "the keeper could not be started on " + machine.name() + ": " + e.getMessage());
        }
    }

    /** Periodic: which keepers ended, which machines are gone or back; then places what waits. */
    private void check() {
        try {
            for (RemoteMachine machine : machines) {
                checkMachine(machine);
            }
            placePending();
        } catch (RuntimeException e) {
            LOG.error("checking the remote machines failed", e);
        }
    }

    private void checkMachine(RemoteMachine machine) {
        List<RemoteEnvironment> mine;
        synchronized (lock) {
            mine = running.values().stream().filter(e -> e.machine == machine && e.pid > 0).toList();
        }
        try {
            StringBuilder command = new StringBuilder("for p in");
            mine.forEach(e -> command.append(' ').append(e.pid));
            command.append("; do kill -0 $p 2>/dev/null && echo $p; done; true");
            String alive = mine.isEmpty() ? machine.ssh.check("true", "checking the connection")
                    : machine.ssh.check(command.toString(), "checking the keepers");
            List<RemoteEnvironment> leftovers = List.of();
            synchronized (lock) {
                if (machine.slots.unreachableReason() != null) {
                    LOG.info("remote machine {} is reachable again", machine.name());
                    leftovers = abandoned.stream().filter(e -> e.machine == machine).toList();
                    abandoned.removeAll(leftovers);
                }
                machine.reachable(null);
            }
            for (RemoteEnvironment leftover : leftovers) {
                LOG.info("environment {}: stopping its keeper, given up while {} was unreachable", leftover.id, machine.name());
                kill(leftover);
            }
            List<String> livePids = List.of(alive.strip().split("\\s+"));
            for (RemoteEnvironment environment : mine) {
                if (!livePids.contains(Long.toString(environment.pid))) {
                    finish(environment, "keeper on " + machine.name() + " exited");
                }
            }
        } catch (SshException e) {
            Instant since;
            synchronized (lock) {
                if (machine.slots.unreachableReason() == null) {
                    LOG.warn("remote machine {} cannot be reached: {}", machine.name(), e.getMessage());
                }
                machine.reachable(e.reason().words());
                since = machine.unreachableSince();
            }
            if (since != null && Duration.between(since, Instant.now()).compareTo(machineLostAfter) >= 0) {
                synchronized (lock) {
                    mine = running.values().stream().filter(env -> env.machine == machine).toList();
                }
                for (RemoteEnvironment environment : mine) {
                    synchronized (lock) {
                        if (environment.pid > 0) {
                            abandoned.add(environment);
                        }
                    }
                    finish(environment, "machine " + machine.name() + " unreachable for " + machineLostAfter.toSeconds() + " s ("
                            + e.reason().words() + ")");
                }
            }
        }
    }

    /** Frees the environment's place and completes its end. */
    private void finish(RemoteEnvironment environment, String why) {
        synchronized (lock) {
            if (running.remove(environment.id) == null && pending.remove(environment.id) == null) {
                return;
            }
            if (environment.placement != null) {
                environment.placement.machine().release(environment.placement.gpus());
            }
        }
        environment.end(why);
        submit(this::placePending);
    }

    /** Ends the keeper's process tree on its machine: SIGTERM, then SIGKILL after the grace period. */
    private void kill(RemoteEnvironment environment) {
        String tree = killTree(environment.pid, "%s");
        try {
            environment.machine.ssh.exec(String.format(tree, "TERM"));
        } catch (SshException e) {
            LOG.warn("environment {}: cannot stop the keeper on {}: {}", environment.id, environment.machine.name(), e.getMessage());
            return;
        }
        try {
            // whatever of the tree is left after the grace period (only while the pid is still a keeper)
            executor.schedule(() -> {
                try {
                    environment.machine.ssh.exec(String.format(tree, "KILL"));
                } catch (SshException e) {
                    LOG.warn("environment {}: cannot kill the keeper: {}", environment.id, e.getMessage());
                }
            }, killGrace.toMillis(), TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException closing) {
            // closing: the TERM has been sent
        }
    }

    /**
     * @return a command sending {@code signal} to the keeper {@code pid} and all its descendants
     *         (the trial runs in a session of its own, so a process-group kill would miss it);
     *         nothing happens when the pid is no longer a keeper
     */
    static String killTree(long pid, String signal) {
        return "grep -q nni-trialkeeper /proc/" + pid + "/cmdline 2>/dev/null || exit 0; "
                + "t() { echo $1; for c in $(ps -o pid= --ppid $1); do t $c; done; }; "
                + "for p in $(t " + pid + "); do kill -" + signal + " $p 2>/dev/null; done; true";
    }

    /**
     * Finds a keeper started by an earlier session from its handle ({@code <machine>/<pid>}): the
     * machine must be one of this experiment's and the pid still a keeper there.
     */
    @Override
    public Optional<LaunchedEnvironment> reattach(String environmentId, String handle) {
        int slash = handle.lastIndexOf('/');
        if (slash < 0) {
            return Optional.empty();
        }
        String machineName = handle.substring(0, slash);
        long pid;
        try {
            pid = Long.parseLong(handle.substring(slash + 1));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
        RemoteMachine machine = machines.stream().filter(m -> m.name().equals(machineName)).findFirst().orElse(null);
        if (machine == null || pid <= 0) {
            return Optional.empty();
        }
        try {
            if (!machine.ssh.exec("grep -q nni-trialkeeper /proc/" + pid + "/cmdline").ok()) {
                return Optional.empty();
            }
        } catch (SshException e) {
            LOG.warn("environment {}: cannot look for its keeper on {}: {}", environmentId, machine.name(), e.getMessage());
            return Optional.empty();
        }
        RemoteEnvironment environment = new RemoteEnvironment(null, (state, message) -> { });
        environment.id = environmentId;
        environment.machine = machine;
        environment.pid = pid;
        environment.url = "file://" + machine.config.target().host() + machine.directory + "/envs/" + environmentId;
        synchronized (lock) {
            if (closed) {
                return Optional.empty();
            }
            running.put(environmentId, environment);
        }
        LOG.info("environment {}: keeper pid {} on {} found again", environmentId, pid, machine.name());
        return Optional.of(environment);
    }

    /**
     * Lets go of every keeper without stopping it: the environments are detached (their ends are
     * no longer reported), the checks end, the connections are closed. The keepers keep running.
     */
    void detach() {
        List<RemoteEnvironment> all;
        synchronized (lock) {
            closed = true;
            all = new ArrayList<>(running.values());
            all.addAll(pending.values());
            running.clear();
            pending.clear();
        }
        all.forEach(RemoteEnvironment::detach);
        executor.shutdownNow();
        machines.forEach(m -> m.ssh.close());
    }

    /** Stops every keeper and closes the connections. */
    @Override
    public void close() {
        List<RemoteEnvironment> all;
        synchronized (lock) {
            closed = true;
            all = new ArrayList<>(running.values());
            all.addAll(pending.values());
        }
        for (RemoteEnvironment environment : all) {
            if (environment.pid > 0) {
                try {
                    environment.machine.ssh.exec(killTree(environment.pid, "KILL"));
                } catch (SshException e) {
                    LOG.warn("environment {}: cannot kill the keeper on {}: {}", environment.id,
                            environment.machine.name(), e.getMessage());
                }
            }
            finish(environment, "the experiment's remote session closed");
        }
        machines.forEach(m -> m.ssh.close());
        executor.shutdown();
    }

    /** One keeper to start or started (or found again: then without a spec). */
    private final class RemoteEnvironment implements LaunchedEnvironment {
        final EnvironmentSpec spec;
        final EnvironmentListener listener;
        final CompletableFuture<String> ended = new CompletableFuture<>();
        String id;
        RemoteMachine machine;
        Scheduler.Placement placement;
        String whyWaiting;
        volatile String url = "";
        long pid;
        boolean stopRequested;
        private volatile boolean detached;

        RemoteEnvironment(EnvironmentSpec spec, EnvironmentListener listener) {
            this.spec = spec;
            this.listener = listener;
            this.id = spec == null ? null : spec.environmentId();
        }

        void end(String why) {
            if (!detached) {
                ended.complete(why);
            }
        }

        @Override
        public CompletionStage<String> ended() {
            return ended;
        }

        @Override
        public void stop() {
            boolean wasPending;
            boolean started;
            synchronized (lock) {
                wasPending = pending.containsKey(id);
                stopRequested = true;
                started = pid > 0 && running.containsKey(id);
            }
            if (wasPending) {
                finish(this, "stopped before a machine was free for it");
            } else if (started) {
                submit(() -> kill(this));
            }
        }

        @Override
        public void detach() {
            detached = true;
        }

        @Override
        public String url() {
            return url;
        }

        @Override
        public String handle() {
            synchronized (lock) {
                return machine == null || pid <= 0 ? "" : machine.name() + "/" + pid;
            }
        }

        @Override
        public String host() {
            return machine == null ? "" : machine.name();
        }

        @Override
        public Map<String, String> attributes() {
            KeeperProbe.Found keeper = machine == null ? null : machine.keeperFound();
            return keeper == null ? Map.of() : Map.of("keeper", keeper.describe());
        }
    }
}
