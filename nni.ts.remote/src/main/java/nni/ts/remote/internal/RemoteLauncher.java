package nni.ts.remote.internal;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.stream.Collectors;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import nni.api.environment.EnvironmentLauncher;
import nni.api.environment.EnvironmentSpec;
import nni.api.environment.LaunchedEnvironment;
import nni.ts.remote.internal.keeper.KeeperProbe;
import nni.ts.remote.internal.schedule.Scheduler;
import nni.ts.remote.internal.ssh.Shell;
import nni.ts.remote.internal.ssh.SshException;

/**
 * Starts keepers on the experiment's machines over SSH. A keeper to start waits in a queue until
 * a machine has room for it (the GPUs {@code trialGpuNumber} asks for); it is then started detached
 * ({@code setsid nohup}) in a process group of its own, its token fed through stdin. A periodic
 * check per machine notices keepers that ended, machines that cannot be reached (their keepers are
 * given up after {@code machineLostAfter}) and machines that are back.
 *
 * <p>State is guarded by {@link #lock}; SSH work runs on {@link #executor} threads outside it.
 */
final class RemoteLauncher implements EnvironmentLauncher, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(RemoteLauncher.class);
    private static final long GPU_INFO_MAX_AGE_MILLIS = 2000;

    private final List<RemoteMachine> machines;
    private final int gpuNumber;
    private final Path codeArchive;
    private final Path sdk;
    private final Keepers keepers;
    private final Duration killGrace;
    private final Duration machineLostAfter;
    private final ScheduledExecutorService executor;
    private final BiConsumer<String, String> waitingListener;
    private final Object lock = new Object();
    private final Map<String, RemoteEnvironment> pending = new LinkedHashMap<>();
    private final Map<String, RemoteEnvironment> running = new LinkedHashMap<>();
    /** Keepers given up because their machine was unreachable: killed when it is back. */
    private final List<RemoteEnvironment> abandoned = new ArrayList<>();
    private boolean closed;

    /**
     * @param sdk             the nni SDK shipped with nni-osgi ({@code nni/__init__.py}), for machines without nni; or null
     * @param waitingListener told (environment id, why) whenever an environment has to wait for a machine
     */
    RemoteLauncher(List<RemoteMachine> machines, int gpuNumber, Path codeArchive, Path sdk, Keepers keepers, Duration killGrace,
                   Duration machineLostAfter, Duration checkInterval, ScheduledExecutorService executor,
                   BiConsumer<String, String> waitingListener) {
        this.machines = machines;
        this.gpuNumber = gpuNumber;
        this.codeArchive = codeArchive;
        this.sdk = sdk;
        this.keepers = keepers;
        this.killGrace = killGrace;
        this.machineLostAfter = machineLostAfter;
        this.executor = executor;
        this.waitingListener = waitingListener;
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
                KeeperProbe.Runtime runtime = machine.keeper(keepers);
                LOG.info("remote machine {} runs the {} trial keeper", machine.name(), runtime == KeeperProbe.Runtime.JAVA ? "Java" : "Python");
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
    public LaunchedEnvironment start(EnvironmentSpec spec) {
        RemoteEnvironment environment = new RemoteEnvironment(spec);
        synchronized (lock) {
            if (closed) {
                environment.ended.complete("the remote session is closed");
                return environment;
            }
            pending.put(spec.environmentId(), environment);
        }
        submit(this::placePending);
        return environment;
    }

    /** @return why the environment waits, or null when it does not */
    String whyWaiting(String environmentId) {
        synchronized (lock) {
            RemoteEnvironment environment = pending.get(environmentId);
            return environment == null ? null : environment.whyWaiting;
        }
    }

    /** Gives up an environment that still waits for a machine. */
    void stopWaiting(String environmentId) {
        RemoteEnvironment environment;
        synchronized (lock) {
            environment = pending.get(environmentId);
        }
        if (environment != null) {
            environment.stop();
        }
    }

    /** @return why environments wait for a machine, or null when none does */
    String anyWaiting() {
        synchronized (lock) {
            return pending.values().stream().map(e -> e.whyWaiting).filter(w -> w != null).findFirst().orElse(null);
        }
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
        Map<String, String> waiting = new LinkedHashMap<>();
        synchronized (lock) {
            for (RemoteEnvironment environment : new ArrayList<>(pending.values())) {
                Scheduler.Decision decision = Scheduler.place(machines.stream().map(m -> m.slots).toList(), gpuNumber);
                if (decision.placement().isPresent()) {
                    pending.remove(environment.spec.environmentId());
                    environment.placement = decision.placement().get();
                    environment.machine = machines.stream().filter(m -> m.slots == environment.placement.machine()).findFirst().orElseThrow();
                    running.put(environment.spec.environmentId(), environment);
                    toStart.add(Map.entry(environment, environment.placement));
                } else if (decision.hopeless()) {
                    pending.remove(environment.spec.environmentId());
                    environment.whyWaiting = decision.whyWaiting();
                    hopeless.add(environment);
                } else {
                    if (!decision.whyWaiting().equals(environment.whyWaiting)) {
                        waiting.put(environment.spec.environmentId(), decision.whyWaiting());
                    }
                    environment.whyWaiting = decision.whyWaiting();
                }
            }
        }
        hopeless.forEach(e -> e.ended.complete("no machine can ever run it: " + e.whyWaiting.substring("waiting: ".length())));
        waiting.forEach((id, why) -> {
            LOG.info("environment {} {}", id, why);
            waitingListener.accept(id, why);
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
            machine.prepare(keepers, codeArchive, sdk);
            KeeperProbe.Runtime runtime = machine.keeperRuntime();
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
            command.append(" && { setsid nohup ").append(keepers.command(runtime, machine.keeperFile(runtime)));
            for (String argument : spec.arguments(machine.directory + "/nni-code.tar.gz", workDirectory)) {
                command.append(' ').append(Shell.quote(argument));
            }
            command.append(" >keeper.stdout 2>keeper.stderr </dev/null & echo $! ; }");
            String out = machine.ssh.check(command.toString(), spec.token() + "\n", "starting the trial keeper");
            long pid = Long.parseLong(out.strip());
            boolean stopNow;
            synchronized (lock) {
                environment.pid = pid;
                stopNow = environment.stopRequested;
            }
            LOG.info("environment {} started on {} ({} keeper, pid {}, GPUs {})", spec.environmentId(), machine.name(),
                    runtime == KeeperProbe.Runtime.JAVA ? "Java" : "Python", pid, environment.placement.gpus());
            if (stopNow) {
                kill(environment);
            }
        } catch (KeeperProbe.NoKeeperException e) {
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
                LOG.info("environment {}: stopping its keeper, given up while {} was unreachable", leftover.spec.environmentId(), machine.name());
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
            if (running.remove(environment.spec.environmentId()) == null && pending.remove(environment.spec.environmentId()) == null) {
                return;
            }
            if (environment.placement != null) {
                environment.placement.machine().release(environment.placement.gpus());
            }
        }
        environment.ended.complete(why);
        submit(this::placePending);
    }

    /** Ends the keeper's process tree on its machine: SIGTERM, then SIGKILL after the grace period. */
    private void kill(RemoteEnvironment environment) {
        String tree = killTree(environment.pid, "%s");
        try {
            environment.machine.ssh.exec(String.format(tree, "TERM"));
        } catch (SshException e) {
            LOG.warn("environment {}: cannot stop the keeper on {}: {}", environment.spec.environmentId(), environment.machine.name(), e.getMessage());
            return;
        }
        try {
            // whatever of the tree is left after the grace period (only while the pid is still a keeper)
            executor.schedule(() -> {
                try {
                    environment.machine.ssh.exec(String.format(tree, "KILL"));
                } catch (SshException e) {
                    LOG.warn("environment {}: cannot kill the keeper: {}", environment.spec.environmentId(), e.getMessage());
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
                    LOG.warn("environment {}: cannot kill the keeper on {}: {}", environment.spec.environmentId(),
                            environment.machine.name(), e.getMessage());
                }
            }
            finish(environment, "the experiment's remote session closed");
        }
        machines.forEach(m -> m.ssh.close());
        executor.shutdown();
    }

    /** One keeper to start or started. */
    private final class RemoteEnvironment implements LaunchedEnvironment {
        final EnvironmentSpec spec;
        final CompletableFuture<String> ended = new CompletableFuture<>();
        RemoteMachine machine;
        Scheduler.Placement placement;
        String whyWaiting;
        volatile String url = "";
        long pid;
        boolean stopRequested;

        RemoteEnvironment(EnvironmentSpec spec) {
            this.spec = spec;
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
                wasPending = pending.containsKey(spec.environmentId());
                stopRequested = true;
                started = pid > 0 && running.containsKey(spec.environmentId());
            }
            if (wasPending) {
                finish(this, "stopped before a machine was free for it");
            } else if (started) {
                submit(() -> kill(this));
            }
        }

        @Override
        public String url() {
            return url;
        }
    }
}
