package nni.dispatcher.internal;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import org.eclipse.jetty.websocket.api.Callback;
import org.eclipse.jetty.websocket.api.Session;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;

import nni.api.model.TrialStatus;
import nni.api.tuner.Dispatcher;
import nni.api.tuner.DispatcherContext;

/**
 * One experiment run's NNI dispatcher: its process and its command channel. Commands wait until
 * the dispatcher is initialized ({@code ID}); it is pinged every few seconds, and its death, its
 * silence, a connection it never makes or an {@code ER} fails the experiment once, with the end of
 * {@code log/dispatcher.log}. A v3 dispatcher that loses its connection may reconnect; what was
 * sent meanwhile waits for it. Thread-safe: Jetty's threads deliver, the scheduler watches, the
 * experiment's thread sends.
 */
final class DispatcherRun implements Dispatcher {

    private static final Logger LOG = LoggerFactory.getLogger(DispatcherRun.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int TAIL_BYTES = 4096;

    /** How long things may take (the {@code nni.dispatcher} configuration). */
    record Timing(Duration connect, Duration silence, Duration ping, Duration stop, Duration answer) {
    }

    /**
     * The share of the waiting time a dispatcher that owes trials must spend on the CPU to count as
     * working on them: a stuck one uses next to nothing (its channel thread answering pings), a busy
     * one on a loaded machine still gets a few percent.
     */
    private static final double BUSY_SHARE = 0.01;
    private static final String TRACEBACK = "Traceback (most recent call last)";
    /**
     * How long an exit waits for the channel's close: what the dispatcher sent just before it exited
     * (an {@code ER} with its reason) arrives before that close, and may come after the exit is seen.
     */
    private static final long EXIT_CHANNEL_GRACE_MILLIS = 2000;

    private final DispatcherContext context;
    private final Framing framing;
    private final boolean intermediate;
    private final Timing timing;
    private final ScheduledExecutorService scheduler;
    private final Path log;
    private final Consumer<DispatcherRun> ended;
    private final List<String> waiting = new ArrayList<>();
    /** Completes when the process has ended (at once when it never started): {@link #ended()}. */
    private final CompletableFuture<Void> processEnded = new CompletableFuture<>();
    /** How long the log was when this run's process started: an earlier run's traceback is not this one's. */
    private long logStart;
    /** Completes when the channel open now closes (at once while none is open). */
    private CompletableFuture<Void> channelClosed = CompletableFuture.completedFuture(null);

    private Process process;
    private String description = "NNI's dispatcher";
    private ScheduledFuture<?> watch;
    private Session session;
    private boolean connectedOnce;
    private boolean initialized;
    private boolean closing;
    private boolean failed;
    private long lastHeard;
    private long disconnectedSince;
    /** Trials asked for ({@code GE}) and not given yet: each {@code TR} pays one, {@code NO} all. */
    private int owed;
    /** Since when the dispatcher owes trials without answering, and its CPU time then. */
    private long owedSince;
    private Duration cpuWhenOwed = Duration.ZERO;

    /**
     * @param intermediate whether intermediate results are sent ({@link #wantsIntermediateResults()})
     * @param ended        told once when the run is over (closed or failed)
     */
    DispatcherRun(DispatcherContext context, Framing framing, boolean intermediate, Timing timing,
                  ScheduledExecutorService scheduler, Consumer<DispatcherRun> ended) {
        this.context = context;
        this.framing = framing;
        this.intermediate = intermediate;
        this.timing = timing;
        this.scheduler = scheduler;
        this.log = context.experimentDirectory().resolve("log").resolve("dispatcher.log");
        this.ended = ended;
    }

    /** Starts the process; the channel must be open already. */
    synchronized void start(ProcessBuilder builder) throws IOException {
        Files.createDirectories(log.getParent());
        logStart = Files.exists(log) ? Files.size(log) : 0;
        process = builder.redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        description = "NNI's dispatcher (" + String.join(" ", builder.command().subList(0, Math.min(3, builder.command().size())))
                + ", pid " + process.pid() + ")";
        disconnectedSince = System.nanoTime();
        process.onExit().thenAccept(this::exited);
        watch = scheduler.scheduleWithFixedDelay(this::watch, timing.ping().toMillis(), timing.ping().toMillis(),
                TimeUnit.MILLISECONDS);
        LOG.info("experiment {}: {} started, log in {}", context.experimentId(), description, log);
    }

    // ------------------------------------------------------------------ manager -> dispatcher

    @Override
    public void requestTrials(int count) {
        synchronized (this) {
            if (owed == 0) {
                owedFromNow();
            }
            owed += count;
        }
        send("GE", Integer.toString(count));
    }

    /** The dispatcher answered a request ({@code all}: it has nothing more for now). */
    private synchronized void answered(boolean all) {
        owed = all ? 0 : Math.max(0, owed - 1);
        owedFromNow();
    }

    private void owedFromNow() {
        owedSince = System.nanoTime();
        cpuWhenOwed = cpuTime();
    }

    /** @return the CPU time the dispatcher's process and its children used so far (zero where the system does not tell) */
    private Duration cpuTime() {
        if (process == null) {
            return Duration.ZERO;
        }
        Duration total = process.toHandle().info().totalCpuDuration().orElse(Duration.ZERO);
        for (ProcessHandle child : process.descendants().toList()) {
            total = total.plus(child.info().totalCpuDuration().orElse(Duration.ZERO));
        }
        return total;
    }

    @Override
    public void reportMetric(String metric) {
        send("ME", metric);
    }

    @Override
    public boolean wantsIntermediateResults() {
        return intermediate;
    }

    @Override
    public void trialEnded(String trialId, TrialStatus status, String hyperParameters) {
        send("EN", JSON.createObjectNode().put("trial_job_id", trialId).put("event", status.name())
                .put("hyper_params", hyperParameters).toString());
    }

    @Override
    public void updateSearchSpace(Map<String, Object> searchSpace) {
        send("SS", json(searchSpace));
    }

    @Override
    public void importData(String results) {
        send("FD", results);
    }

    /** NNI's stop: {@code TE}, then (v3) {@code _bye_} and a normal close; the process gets a while to end, then is killed. */
    @Override
    public void close() {
        synchronized (this) {
            if (closing) {
                return;
            }
            closing = true;
            if (session != null && session.isOpen() && !failed) {
                session.sendText(framing.encode("TE", ""), Callback.NOOP);
                if (framing == Framing.JSON) {
                    session.sendText(JSON.createObjectNode().put("type", Framing.BYE).put("reason", "TE command").toString(),
                            Callback.NOOP);
                }
                session.close(4000, "TE command", Callback.NOOP);
            }
        }
        end();
        if (process == null) {
            processEnded.complete(null);
        } else if (process.isAlive()) {
            try {
                scheduler.schedule(this::kill, timing.stop().toMillis(), TimeUnit.MILLISECONDS);
            } catch (RejectedExecutionException e) {
                kill(); // the provider is gone already: nobody would end it later
            }
        }
    }

    @Override
    public CompletionStage<Void> ended() {
        return processEnded.minimalCompletionStage();
    }

    /** Ends the process now (the runtime is going away). */
    void kill() {
        if (process != null && process.isAlive()) {
            LOG.info("experiment {}: ending {}", context.experimentId(), description);
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
        }
    }

    private void end() {
        if (watch != null) {
            watch.cancel(false);
        }
        ended.accept(this);
    }

    private synchronized void send(String type, String content) {
        if (closing) {
            return;
        }
        String frame = framing.encode(type, content);
        if (session != null && initialized) {
            session.sendText(frame, Callback.from(() -> { }, e -> LOG.debug("sending {} failed", type, e)));
        } else {
            waiting.add(frame);
        }
    }

    // ------------------------------------------------------------------ dispatcher -> manager

    /** @return a listener for a new connection of the dispatcher (the servlet asks one per connection) */
    Session.Listener connection() {
        return new ChannelConnection(this);
    }

    /** A connection opened: it becomes the channel (a v3 dispatcher's reconnection replaces the old one). */
    synchronized void opened(Session opened) {
        if (closing || (connectedOnce && framing == Framing.PLAIN)) {
            opened.close(4001, "not expected", Callback.NOOP);
            return;
        }
        if (session != null && session.isOpen()) {
            session.close(4001, "new epoch start", Callback.NOOP);
        }
        session = opened;
        channelClosed = new CompletableFuture<>();
        lastHeard = System.nanoTime();
        if (!connectedOnce) {
            connectedOnce = true;
            LOG.info("experiment {}: {} connected", context.experimentId(), description);
            opened.sendText(framing.encode("IN", json(context.searchSpace())), Callback.NOOP);
        } else {
            LOG.info("experiment {}: {} reconnected", context.experimentId(), description);
            flush();
        }
    }

    /** A connection closed; if it was the channel, the dispatcher has a while to come back. */
    synchronized void closed(Session which, int status, String reason) {
        if (session == which) {
            session = null;
            channelClosed.complete(null);
            disconnectedSince = System.nanoTime();
            if (!closing) {
                LOG.info("experiment {}: {} closed its channel ({} {})", context.experimentId(), description, status, reason);
            }
        }
    }

    synchronized void heard() {
        lastHeard = System.nanoTime();
    }

    /** A message from the dispatcher. */
    void received(String text) {
        heard();
        Framing.Command command;
        try {
            command = framing.decode(text);
        } catch (IllegalArgumentException e) {
            fail(description + " sent " + e.getMessage());
            return;
        }
        switch (command.type()) {
            case "ID" -> initialized();
            case "TR" -> {
                answered(false);
                context.newTrial(command.content());
            }
            case "SP" -> context.sendParameters(command.content());
            case "NO" -> {
                answered(true);
                context.noMoreTrials();
            }
            case "KI" -> context.killTrial(trialIdOf(command.content()));
            case "ER" -> fail(description + " reported an error: " + command.content().strip());
            case Framing.KEEP_ALIVE, Framing.BYE -> { }
            default -> fail(description + " sent an unknown command " + command.type());
        }
    }

    /** NNI's {@code KI} carries the trial id as a JSON string literal ({@code "AbCd1"}). */
    private static String trialIdOf(String content) {
        try {
            return JSON.readTree(content).asText(content);
        } catch (JsonProcessingException e) {
            return content.strip();
        }
    }

    /** {@code ID}: on resume the history first ({@code FD}, {@code AD}), then whatever waited. */
    private synchronized void initialized() {
        if (initialized || session == null) {
            return;
        }
        initialized = true;
        owedFromNow(); // what was asked before counts from now: starting is not answering late
        LOG.info("experiment {}: {} initialized", context.experimentId(), description);
        List<String> history = new ArrayList<>();
        if (context.resuming()) {
            // as NNI's manager does on resume, both always, empty lists included
            history.add(framing.encode("FD", context.resumeData()));
            history.add(framing.encode("AD", "[" + String.join(",", context.resumedParameters()) + "]"));
        }
        waiting.addAll(0, history);
        flush();
    }

    private void flush() {
        if (session == null || !initialized) {
            return;
        }
        for (String frame : waiting) {
            session.sendText(frame, Callback.NOOP);
        }
        waiting.clear();
    }

    // ------------------------------------------------------------------ watching

    private void watch() {
        String problem = null;
        synchronized (this) {
            if (closing || failed) {
                return;
            }
            long now = System.nanoTime();
            if (session == null) {
                if (now - disconnectedSince > timing.connect().toNanos()) {
                    problem = description + (connectedOnce ? " lost its channel and did not come back" : " did not connect")
                            + " within " + timing.connect().toSeconds() + " s";
                }
            } else if (now - lastHeard > timing.silence().toNanos()) {
                problem = description + " stopped answering: nothing heard for " + timing.silence().toSeconds() + " s";
            } else if (initialized && owed > 0 && now - owedSince > timing.answer().toNanos() && !busySinceOwed(now)) {
                problem = description + " did not answer a request for trials within " + timing.answer().toSeconds()
                        + " s and did not work on it (it used almost no CPU meanwhile): its algorithm is stuck";
            } else {
                session.sendPing(ByteBuffer.allocate(0), Callback.NOOP);
                if (initialized) {
                    // NNI's dispatcher notices that its worker died (an algorithm raised) only when a command
                    // comes; NNI's own ping makes it exit then, instead of idling with the experiment waiting on it
                    session.sendText(framing.encode("PI", ""), Callback.NOOP);
                }
                if (framing == Framing.JSON && now - lastHeard > 3 * timing.ping().toNanos()) {
                    // pongs are missing: a real command tells a dead connection from a slow peer, as NNI does
                    session.sendText(framing.encode(Framing.KEEP_ALIVE, null), Callback.NOOP);
                }
            }
        }
        if (problem != null) {
            fail(problem);
        }
    }

    /** @return whether the dispatcher worked (used the CPU) on what it owes; if so, it gets another while */
    private boolean busySinceOwed(long now) {
        Duration cpu = cpuTime();
        Duration used = cpu.minus(cpuWhenOwed);
        if (used.toNanos() >= BUSY_SHARE * (now - owedSince)) {
            owedSince = now;
            cpuWhenOwed = cpu;
            return true;
        }
        return false;
    }

    private void exited(Process ended) {
        CompletableFuture<Void> channel;
        synchronized (this) {
            channel = channelClosed;
        }
        channel.completeOnTimeout(null, EXIT_CHANNEL_GRACE_MILLIS, TimeUnit.MILLISECONDS)
                .thenRun(() -> afterExit(ended));
    }

    /** The process ended and its channel closed (or was given its while): what its end means. */
    private void afterExit(Process ended) {
        boolean closedFirst;
        synchronized (this) {
            closedFirst = closing && !failed;
            if (failed) {
                processEnded.complete(null);
                return;
            }
        }
        // NNI's dispatcher exits (code 0 too) after its worker raised: the traceback in its log says so
        boolean raised = tail().contains(TRACEBACK);
        String problem = description + (raised ? " ended after its algorithm raised an error (exit code " + ended.exitValue() + ")"
                : " exited with code " + ended.exitValue());
        if (!closedFirst) {
            fail(problem);
        } else if (raised) {
            // closed first: the algorithm raised on what it was given before, which NNI's dispatcher
            // notices only at the next command, the close's TE among them (Dispatcher#ended)
            report(problem);
        }
        processEnded.complete(null);
    }

    /** Fails the experiment once, with what the dispatcher logged last, and ends the process. */
    private void fail(String problem) {
        synchronized (this) {
            if (failed || closing) {
                return;
            }
            failed = true;
            closing = true;
            if (session != null) {
                session.close(4001, "failed", Callback.NOOP);
            }
        }
        report(problem);
        end();
        kill();
    }

    /** Tells the experiment of a failure, with what this run of the dispatcher logged last. */
    private void report(String problem) {
        String tail = tail();
        LOG.warn("experiment {}: {}", context.experimentId(), problem);
        context.failed(problem + (tail.isEmpty() ? "" : "; the end of " + log + ":\n" + tail));
    }

    /** @return the last lines this run of the dispatcher logged (its own logging and its stdout and stderr) */
    String tail() {
        try (RandomAccessFile file = new RandomAccessFile(log.toFile(), "r")) {
            long start = Math.max(logStart, file.length() - TAIL_BYTES);
            byte[] bytes = new byte[(int) Math.max(0, file.length() - start)];
            file.seek(start);
            file.readFully(bytes);
            String text = new String(bytes, StandardCharsets.UTF_8);
            if (start > logStart && text.indexOf('\n') >= 0) {
                text = text.substring(text.indexOf('\n') + 1);
            }
            return text.strip();
        } catch (IOException e) {
            return "";
        }
    }

    private static String json(Object value) {
        try {
            return JSON.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("cannot write JSON: " + e.getMessage(), e);
        }
    }
}
