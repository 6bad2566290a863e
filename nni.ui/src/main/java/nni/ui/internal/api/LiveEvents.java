package nni.ui.internal.api;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import jakarta.servlet.AsyncContext;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.WriteListener;
import org.osgi.framework.BundleContext;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.framework.ServiceListener;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import nni.api.experiment.ExperimentInfo;
import nni.api.experiment.ExperimentListener;
import nni.api.experiment.ExperimentService;
import nni.api.experiment.TrialInfo;
import nni.api.platform.TrainingPlatform;

/**
 * The web UI's one live stream per page (Server-Sent Events): what changed in which experiment,
 * folded over {@value #FOLD_MILLIS} ms, so that a page re-reads what it shows at most that often
 * however fast trials report. A message names the experiment, the kinds of change and the trials
 * (up to {@value #MAX_TRIALS_NAMED}; beyond, "many"); platforms coming and going are one more kind
 * of message. The pages read the state itself from the UI's JSON routes.
 *
 * <p>Writes never block: each client's stream is written when the container says it can take
 * bytes, and a client that takes none while {@value #MAX_PENDING_BYTES} bytes wait is dropped (its
 * page reconnects and re-reads everything). The folding and the writing run on one thread owned by
 * this component. It hears the experiments as any {@link ExperimentListener} of the exported API does.
 */
@Component(service = {LiveEvents.class, ExperimentListener.class})
public class LiveEvents implements ExperimentListener {

    static final long FOLD_MILLIS = 500;
    private static final long KEEP_ALIVE_SECONDS = 20;
    private static final int MAX_TRIALS_NAMED = 100;
    private static final int MAX_PENDING_BYTES = 1 << 20;
    private static final Logger LOG = LoggerFactory.getLogger(LiveEvents.class);

    /** What changed in an experiment, as a message names it. */
    enum Kind { OPENED, STATUS, CONFIG, TRIAL, METRICS, CLOSED }

    /** The changes of one experiment not yet sent. */
    private static final class Changes {
        final Set<Kind> kinds = EnumSet.noneOf(Kind.class);
        final Set<String> trials = new LinkedHashSet<>();
        boolean manyTrials;

        synchronized void add(Kind kind, String trialId) {
            kinds.add(kind);
            if (trialId != null && !manyTrials) {
                trials.add(trialId);
                if (trials.size() > MAX_TRIALS_NAMED) {
                    manyTrials = true;
                    trials.clear();
                }
            }
        }

        synchronized Map<String, Object> message(String experiment) {
            Map<String, Object> message = new LinkedHashMap<>();
            message.put("experiment", experiment);
            message.put("kinds", List.copyOf(kinds));
            message.put("trials", manyTrials ? null : List.copyOf(trials));
            return message;
        }
    }

    private final ExperimentService experiments;
    private final BundleContext context;
    private final ScheduledExecutorService thread;
    private final Map<String, Changes> changed = new ConcurrentHashMap<>();
    private final AtomicBoolean platformsChanged = new AtomicBoolean();
    private final List<Client> clients = new CopyOnWriteArrayList<>();
    /** Each open experiment as last told, to tell an opening, a status change and a change of limits apart. */
    private final Map<String, ExperimentInfo> told = new ConcurrentHashMap<>();
    private final ServiceListener platforms = event -> platformsChanged.set(true);

    @Activate
    public LiveEvents(BundleContext context, @Reference ExperimentService experiments) throws InvalidSyntaxException {
        this.context = context;
        this.experiments = experiments;
        this.thread = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "nni-ui-events");
            t.setDaemon(true);
            return t;
        });
        context.addServiceListener(platforms, "(objectClass=" + TrainingPlatform.class.getName() + ")");
        thread.scheduleWithFixedDelay(this::send, FOLD_MILLIS, FOLD_MILLIS, TimeUnit.MILLISECONDS);
        thread.scheduleWithFixedDelay(() -> broadcast(": keep-alive\n\n"), KEEP_ALIVE_SECONDS, KEEP_ALIVE_SECONDS,
                TimeUnit.SECONDS);
    }

    @Deactivate
    void deactivate() {
        context.removeServiceListener(platforms);
        thread.shutdownNow();
        for (Client client : clients) {
            client.end();
        }
        clients.clear();
    }

    // ------------------------------------------------------------------ what changed (cheap: told on the experiments' threads)

    @Override
    public void experimentChanged(ExperimentInfo experiment) {
        ExperimentInfo before = told.put(experiment.id(), experiment);
        if (before == null) {
            note(experiment.id(), Kind.OPENED, null);
            platformsChanged.set(true); // sessions counted on the platforms page
        } else {
            note(experiment.id(), before.status().equals(experiment.status()) ? Kind.CONFIG : Kind.STATUS, null);
        }
    }

    @Override
    public void experimentClosed(String experimentId, boolean stopped) {
        told.remove(experimentId);
        note(experimentId, Kind.CLOSED, null);
        platformsChanged.set(true);
    }

    @Override
    public void trialChanged(TrialInfo trial) {
        note(trial.experimentId(), Kind.TRIAL, trial.job().id());
    }

    @Override
    public void metricsStored(String experimentId, String trialId) {
        note(experimentId, Kind.METRICS, trialId);
    }

    private void note(String experimentId, Kind kind, String trialId) {
        changed.computeIfAbsent(experimentId, id -> new Changes()).add(kind, trialId);
    }

    /** Takes a request's stream: the answer stays open and gets every message from now on. */
    void join(AsyncContext async, ServletOutputStream out) throws IOException {
        Client client = new Client(async, out);
        async.addListener(client);
        clients.add(client);
        Map<String, Object> hello = new LinkedHashMap<>();
        hello.put("open", experiments.list().stream().map(ExperimentInfo::id).toList());
        client.offer("retry: 3000\nevent: hello\ndata: " + Json.write(hello) + "\n\n");
        out.setWriteListener(client);
    }

    /** @return how many pages listen now */
    int clients() {
        return clients.size();
    }

    private void send() {
        try {
            StringBuilder messages = new StringBuilder();
            for (String id : new ArrayList<>(changed.keySet())) {
                Changes changes = changed.remove(id);
                if (changes != null) {
                    messages.append("event: experiment\ndata: ").append(Json.write(changes.message(id))).append("\n\n");
                }
            }
            if (platformsChanged.getAndSet(false)) {
                messages.append("event: platforms\ndata: {}\n\n");
            }
            if (!messages.isEmpty()) {
                broadcast(messages.toString());
            }
        } catch (RuntimeException e) {
            LOG.warn("sending live events failed", e);
        }
    }

    private void broadcast(String text) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        for (Client client : clients) {
            client.offer(bytes);
        }
    }

    /** One page's stream. Its methods hold its lock: the container's callbacks and this component's thread never overlap. */
    private final class Client implements WriteListener, AsyncListener {
        private final AsyncContext async;
        private final ServletOutputStream out;
        private final java.io.ByteArrayOutputStream pending = new java.io.ByteArrayOutputStream();
        private boolean listening;
        private boolean flushed = true;
        private boolean ended;

        Client(AsyncContext async, ServletOutputStream out) {
            this.async = async;
            this.out = out;
        }

        void offer(String text) {
            offer(text.getBytes(StandardCharsets.UTF_8));
        }

        synchronized void offer(byte[] bytes) {
            if (ended) {
                return;
            }
            if (pending.size() + bytes.length > MAX_PENDING_BYTES) {
                LOG.debug("a page took no live events while {} bytes waited; dropped", pending.size());
                end();
                return;
            }
            pending.writeBytes(bytes);
            if (listening) {
                write();
            }
        }

        @Override
        public synchronized void onWritePossible() {
            listening = true;
            write();
        }

        private void write() {
            try {
                while (!ended && out.isReady()) {
                    if (pending.size() > 0) {
                        out.write(pending.toByteArray());
                        pending.reset();
                        flushed = false;
                    } else if (!flushed) {
                        out.flush();
                        flushed = true;
                    } else {
                        return;
                    }
                }
            } catch (IOException | RuntimeException e) {
                end();
            }
        }

        @Override
        public synchronized void onError(Throwable failure) {
            end();
        }

        synchronized void end() {
            if (ended) {
                return;
            }
            ended = true;
            clients.remove(this);
            try {
                async.complete();
            } catch (RuntimeException e) {
                LOG.debug("ending a live stream: {}", e.toString());
            }
        }

        @Override
        public void onComplete(AsyncEvent event) {
            end();
        }

        @Override
        public void onTimeout(AsyncEvent event) {
            end();
        }

        @Override
        public void onError(AsyncEvent event) {
            end();
        }

        @Override
        public void onStartAsync(AsyncEvent event) {
            // not restarted
        }
    }
}
