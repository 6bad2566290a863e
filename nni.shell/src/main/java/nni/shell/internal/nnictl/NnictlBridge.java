package nni.shell.internal.nnictl;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.LocalDateTime;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

import org.osgi.framework.BundleContext;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.servlet.runtime.HttpServiceRuntime;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import nni.api.experiment.ExperimentInfo;
import nni.api.experiment.ExperimentListener;
import nni.api.experiment.NnictlRegistry;
import nni.api.experiment.ExperimentService;
import nni.api.experiment.Outcome;

/**
 * Makes this runtime's experiments visible to NNI's own tools, as NNI's launcher and manager do for
 * theirs: every open experiment has an entry in NNI's registry ({@link ExperimentRegistry}) with
 * the runtime's port, its status and end time kept current, a pid of its own ({@link PidSentinel})
 * through which {@code nnictl stop ID} and NNI's {@code Experiment.stop()} stop exactly that
 * experiment, the URL prefix under which its REST API is served alone
 * ({@value #PREFIX}{@code <id>}), and the log files {@code nnictl log stdout|stderr} read.
 *
 * <p>It hears the experiments on the {@link ExperimentListener} whiteboard and acts through
 * {@link ExperimentService} only. Registry writes and stop requests run on threads of this
 * component, never on the experiments' threads.
 */
@Component(service = {NnictlBridge.class, ExperimentListener.class}, immediate = true)
public class NnictlBridge implements ExperimentListener {

    /** The URL prefix of one experiment's REST API: {@code /experiments/<id>/api/v1/nni/...}. */
    public static final String PREFIX = NnictlRegistry.PREFIX;
    static final String STDOUT_LOG = "nnictl_stdout.log";
    static final String STDERR_LOG = "nnictl_stderr.log";

    private static final Logger LOG = LoggerFactory.getLogger(NnictlBridge.class);
    private static final Set<String> OUTCOMES = NnictlRegistryFile.OUTCOMES;
    private static final String STOPPED = NnictlRegistryFile.STOPPED;
    private static final String VIEWED = "VIEWED";

    private final ExperimentService experiments;
    private final NnictlRegistryFile registryFile;
    private final ExperimentRegistry registry;
    private final String configuredPort;
    /** Registry writes, in order. */
    private final ExecutorService writer;
    /** Stop requests and the sentinels' output readers. */
    private final ExecutorService workers;
    private final Map<String, PidSentinel> sentinels = new ConcurrentHashMap<>();
    /** How many errors of each experiment are in its stderr log already. */
    private final Map<String, Integer> errorsLogged = new ConcurrentHashMap<>();
    /** The experiments whose logs have their header. */
    private final Set<String> headed = ConcurrentHashMap.newKeySet();
    /** The status each experiment's stdout log shows last. */
    private final Map<String, String> statusLogged = new ConcurrentHashMap<>();
    /** Each open experiment as last told (used on the writer's thread only): what its entry keeps when it closes. */
    private final Map<String, ExperimentInfo> open = new LinkedHashMap<>();
    /** The registry's status of each experiment open for viewing, from before: it gets it back when closed. */
    private final Map<String, String> viewedFrom = new ConcurrentHashMap<>();

    @Reference(service = HttpServiceRuntime.class, cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    private volatile Map<String, Object> http;

    @Activate
    public NnictlBridge(@Reference ExperimentService experiments, @Reference NnictlRegistryFile registryFile, BundleContext context) {
        this.experiments = experiments;
        this.registryFile = registryFile;
        this.registry = registryFile.registry();
        this.configuredPort = context.getProperty("org.osgi.service.http.port");
        AtomicInteger count = new AtomicInteger();
        this.writer = Executors.newSingleThreadExecutor(r -> daemon(r, "nni-registry"));
        this.workers = Executors.newCachedThreadPool(r -> daemon(r, "nni-experiment-pid-" + count.incrementAndGet()));
        experiments.list().forEach(this::experimentChanged); // those opened before this component: told again is harmless
    }

    private static Thread daemon(Runnable work, String name) {
        Thread thread = new Thread(work, name);
        thread.setDaemon(true);
        return thread;
    }

    /**
     * The runtime (or this bundle) stops: its experiments are detached, their pids end, and NNI's
     * tools see them STOPPED, as after NNI's manager exits ({@code resume} takes them back), except
     * those that had ended DONE or ERROR: they keep how they ended.
     */
    @Deactivate
    void deactivate() {
        writer.execute(() -> open.values().forEach(experiment -> write(experiment, lasting(experiment))));
        writer.shutdown();
        try {
            if (!writer.awaitTermination(10, TimeUnit.SECONDS)) {
                LOG.warn("the experiment registry {} was not updated within 10 s", registry.file());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        sentinels.values().forEach(PidSentinel::close);
        sentinels.clear();
        workers.shutdownNow();
    }

    /**
     * Opened, or changed: the first time an experiment is told it gets its log header, pid and entry.
     * Its log lines are written here, on the thread telling the change, not on the writer's: they are
     * in the experiment's folder, which may be deleted as soon as the experiment is closed, and a
     * late write would make the folder again.
     */
    @Override
    public void experimentChanged(ExperimentInfo experiment) {
        if (headed.add(experiment.id())) {
            logHeader(experiment);
        } else {
            logStatus(experiment);
        }
        onWriter(() -> {
            if (open.put(experiment.id(), experiment) == null) {
                opened(experiment);
            } else {
                write(experiment, experiment.status());
            }
        });
    }

    /** Runs a registry write after those asked before; none once this component stopped (a late event). */
    private void onWriter(Runnable write) {
        try {
            writer.execute(write);
        } catch (java.util.concurrent.RejectedExecutionException stopped) {
            LOG.debug("an experiment event came after NNI's registry bridge stopped");
        }
    }

    private void opened(ExperimentInfo experiment) {
        String id = experiment.id();
        try {
            sentinels.put(id, PidSentinel.start(id, () -> stopRequested(id), workers));
        } catch (IOException e) {
            LOG.warn("experiment {}: no pid of its own for NNI's tools ({}); nnictl cannot stop it", id, e.getMessage());
        }
        if (experiment.readOnly()) {
            recorded(id).ifPresent(status -> viewedFrom.put(id, status));
        }
        write(experiment, experiment.status());
    }

    @Override
    public void experimentClosed(String experimentId, boolean stopped) {
        headed.remove(experimentId);
        statusLogged.remove(experimentId);
        errorsLogged.remove(experimentId);
        onWriter(() -> {
            ExperimentInfo experiment = open.remove(experimentId);
            if (experiment == null) {
                return;
            }
            write(experiment, lasting(experiment));
            viewedFrom.remove(experimentId);
            PidSentinel sentinel = sentinels.remove(experimentId);
            if (sentinel != null) {
                sentinel.close(); // last: a client waiting for the pid finds the registry updated
            }
        });
    }

    /** nnictl stop (SIGTERM to the experiment's pid) or a SIGKILL of that pid. */
    private void stopRequested(String id) {
        workers.execute(() -> {
            Outcome<ExperimentInfo> stopped = experiments.stop(id);
            if (!stopped.isDone()) {
                LOG.debug("experiment {} was not stopped: {}", id, stopped);
            }
        });
    }

    /**
     * @return the status an experiment leaves in the registry when it is closed: the outcome it ended
     * with (DONE, ERROR), or the one it had before it was opened for viewing, else STOPPED
     */
    private String lasting(ExperimentInfo experiment) {
        String status = experiment.status();
        if (OUTCOMES.contains(status)) {
            return status;
        }
        return VIEWED.equals(status) ? viewedFrom.getOrDefault(experiment.id(), STOPPED) : STOPPED;
    }

    /** @return the status the registry has for an experiment now, as {@link NnictlRegistryFile#statuses} reads it */
    private Optional<String> recorded(String id) {
        try {
            return Optional.ofNullable(registryFile.statuses().get(id));
        } catch (IOException e) {
            LOG.warn("experiment {}: cannot read NNI's experiment registry {}: {}", id, registry.file(), e.getMessage());
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }

    /**
     * A deleted experiment's entry goes, as nnictl experiment delete removes it: after the writes
     * queued before (its closing), and before the deletion is answered.
     */
    @Override
    public void experimentDeleted(String id) {
        try {
            writer.submit(() -> registry.update(entries -> entries.remove(id))).get(30, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            LOG.warn("experiment {} deleted, but its entry in NNI's experiment registry stays: {}", id, e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    public ExperimentRegistry registry() {
        return registry;
    }

    private void write(ExperimentInfo experiment, String status) {
        PidSentinel sentinel = sentinels.get(experiment.id());
        Path workingDirectory = experiment.directory().getParent();
        Map<String, Object> entry = ExperimentRegistry.entry(experiment.id(), port(), experiment.startTime().toEpochMilli(),
                experiment.endTime().map(java.time.Instant::toEpochMilli).orElse(null), status, experiment.platform().orElse(null),
                experiment.name().orElse(null), List.of(),
                sentinel == null ? -1 : sentinel.pid(), workingDirectory.toString(), PREFIX + experiment.id());
        try {
            registry.update(entries -> {
                Map<String, Object> known = entries.get(experiment.id());
                if (known != null && known.get("tag") != null) {
                    entry.put("tag", known.get("tag")); // tags are the user's
                }
                return entries.put(experiment.id(), entry);
            });
        } catch (IOException e) {
            LOG.warn("experiment {}: cannot update NNI's experiment registry {}: {}", experiment.id(), registry.file(), e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** @return the runtime's HTTP port: the one it listens on, else the configured one */
    private Integer port() {
        Map<String, Object> runtime = http;
        Object endpoint = runtime == null ? null : runtime.get("osgi.http.endpoint");
        if (endpoint instanceof String[] endpoints && endpoints.length > 0) {
            endpoint = endpoints[0];
        } else if (endpoint instanceof java.util.Collection<?> endpoints && !endpoints.isEmpty()) {
            endpoint = endpoints.iterator().next();
        }
        if (endpoint != null) {
            int port = URI.create(endpoint.toString()).getPort();
            if (port > 0) {
                return port;
            }
        }
        try {
            int port = Integer.parseInt(String.valueOf(configuredPort).trim());
            return port > 0 ? port : null;
        } catch (NumberFormatException e) {
            return null;
        }
    }

    // nnictl log stdout|stderr show <experiment>/log/nnictl_stdout.log and nnictl_stderr.log: NNI's
    // launcher starts them with this header and its manager writes its console there.

    private void logHeader(ExperimentInfo experiment) {
        String header = "-".repeat(80) + "\nExperiment " + experiment.id() + " start: " + LocalDateTime.now() + "\n"
                + "-".repeat(80) + "\n";
        append(experiment, STDOUT_LOG, header);
        append(experiment, STDERR_LOG, header);
        logStatus(experiment);
    }

    private void logStatus(ExperimentInfo experiment) {
        if (!experiment.status().equals(statusLogged.put(experiment.id(), experiment.status()))) {
            append(experiment, STDOUT_LOG, LocalDateTime.now() + " experiment " + experiment.id() + ": " + experiment.status() + "\n");
        }
        List<String> errors = experiment.errors();
        int logged = errorsLogged.getOrDefault(experiment.id(), 0);
        if (errors.size() > logged) {
            StringBuilder text = new StringBuilder();
            errors.subList(logged, errors.size()).forEach(error -> text.append(LocalDateTime.now()).append(" ").append(error).append("\n"));
            append(experiment, STDERR_LOG, text.toString());
            errorsLogged.put(experiment.id(), errors.size());
        }
    }

    private static void append(ExperimentInfo experiment, String name, String text) {
        Path file = experiment.directory().resolve("log").resolve(name);
        try {
            Files.createDirectories(file.getParent());
            Files.writeString(file, text, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } catch (IOException e) {
            LOG.debug("experiment {}: cannot write {}", experiment.id(), file, e);
        }
    }
}
