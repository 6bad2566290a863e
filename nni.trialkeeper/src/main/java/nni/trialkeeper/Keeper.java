package nni.trialkeeper;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * One keeper process: the handshake, a sender that drains the spool to the manager in batches, a
 * long-poll loop for the manager's commands, and the trials. In {@code trial} mode it runs the one
 * trial it was started for and exits with its code once every report is acknowledged; in
 * {@code runner} mode it says {@code ready} and runs the trials the manager sends, one after
 * another, until the manager says {@code stop}.
 *
 * <p>Exit codes: the trial's code (trial mode, also when the session is gone after the trial's end), 0 (stopped,
 * also when refused after the stop), 2 (bad command line),
 * 3 (refused by the manager: token, version, session gone), 4 (manager unreachable, or answering
 * nothing usable, for longer than {@code --give-up-seconds}). Refused for good, the keeper kills its
 * trials' process groups and exits at once; the reports it could not deliver stay in its spool.
 */
final class Keeper implements TrialProcess.Host {

    /** This keeper's version. */
    static final String VERSION = "1.0.0";
    /**
     * The trial-route protocol this keeper speaks. The keeper accepts a manager only if the manager
     * answers the handshake with exactly this protocol; the manager accepts the protocols it lists.
     */
    static final int PROTOCOL = protocol(System.getenv("NNI_KEEPER_TEST_PROTOCOL"));

    static final int EXIT_REFUSED = 3;
    static final int EXIT_UNREACHABLE = 4;

    private static final int BATCH_REPORTS = 2000;
    private static final long BATCH_BYTES = 1 << 20;
    private static final long POLL_MILLIS = 10_000;
    private static final long GPU_REPORT_SECONDS = 30;
    private static final String NVIDIA_SMI = System.getProperty("nni.keeper.nvidia-smi", "nvidia-smi");

    private final KeeperOptions options;
    private final ManagerLink manager;
    private final Spool spool;
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "keeper-timer");
        t.setDaemon(true);
        return t;
    });
    private final Map<String, TrialProcess> trials = new ConcurrentHashMap<>();
    /**
     * Every trial this keeper has started, running or ended: a manager restarted after a crash sends
     * new-trial again for a trial it cannot know the keeper got, and it must not run twice.
     */
    private final Set<String> startedTrials = ConcurrentHashMap.newKeySet();
    private final RequestStats stats = new RequestStats();
    private final CountDownLatch finished = new CountDownLatch(1);
    private volatile int exitCode;
    private volatile boolean stopping;
    /** Refused for good or given up: nothing more will be delivered (a trial may exit with 3 or 4 itself). */
    private volatile boolean abandoned;
    /** The manager sent a stop: a refusal after it is the session it stopped for ending. */
    private volatile boolean toldToStop;
    /** The manager answered 410: the session is gone (it ended), not this keeper refused for what it is. */
    private volatile boolean sessionGone;
    /** Trial mode: the trial's exit code once its end is reported (spooled), else null. */
    private volatile Integer trialEndCode;

    Keeper(KeeperOptions options) throws IOException {
        this.options = options;
        this.manager = options.channel() != null ? new FileChannel(options.channel(), options.token())
                : new ManagerClient(options.managerUrl(), options.experimentId(), options.keeperId(), options.token());
        this.spool = new Spool(options.workDirectory().resolve(".keeper").resolve(options.keeperId()), options.spoolLimitBytes());
    }

    @Override
    public KeeperOptions options() {
        return options;
    }

    @Override
    public ScheduledExecutorService timer() {
        return timer;
    }

    @Override
    public void report(Map<String, Object> report) throws IOException, InterruptedException {
        if (!options.runner() && "ended".equals(report.get("kind")) && report.get("code") instanceof Number code) {
            trialEndCode = code.intValue(); // before the end can be sent, so before any answer to it
        }
        spool.append(report);
    }

    /** @return what {@code --version} prints, the same for the Java and the Python keeper */
    static String versionLine() {
        return "nni-trialkeeper " + VERSION + " (trial protocol " + PROTOCOL + ")";
    }

    /** The protocol this keeper claims: 1, or another one only where a test asks for a mismatch. */
    private static int protocol(String testOverride) {
        try {
            return testOverride == null || testOverride.isBlank() ? 1 : Integer.parseInt(testOverride.trim());
        } catch (NumberFormatException e) {
            return 1;
        }
    }

    int run() throws InterruptedException, IOException {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> System.err.println(stats.summary()), "keeper-stats"));
        Map<String, Object> answer = handshake();
        if (answer == null) {
            return exitCode;
        }
        Thread sender = daemon("report-sender", this::sendLoop);
        Thread commands = daemon("command-poll", this::commandLoop);
        sender.start();
        commands.start();
        if (options.runner()) {
            report(TrialProcess.ordered("kind", "ready", "environment", options.keeperId(), "time", System.currentTimeMillis(),
                    "keeperVersion", VERSION));
            if (GpuInfo.query(NVIDIA_SMI) != null) {
                timer.scheduleWithFixedDelay(this::reportGpus, 0, GPU_REPORT_SECONDS, TimeUnit.SECONDS);
            }
        } else {
            @SuppressWarnings("unchecked")
            Map<String, Object> trial = (Map<String, Object>) answer.get("trial");
            if (trial == null) {
                return fail(EXIT_REFUSED, "the manager's handshake answer has no trial to run for " + options.keeperId());
            }
            TrialProcess process = startTrial(options.keeperId(), trial, options.workDirectory());
            process.ended().whenComplete((code, error) -> finish(code == null ? -1 : code));
        }
        finished.await();
        stopping = true;
        if (!abandoned) {
            trials.values().forEach(TrialProcess::kill);
            int pending = spool.pendingCount();
            if (pending > 0) {
                System.err.println("waiting up to " + options.giveUpSeconds() + " s for the manager to acknowledge " + pending + " reports");
            }
            // a refusal that comes while we wait abandons the spool, which ends this wait at once
            if (!spool.awaitEmpty(TimeUnit.SECONDS.toMillis(options.giveUpSeconds())) && !abandoned) {
                System.err.println("gave up: " + spool.pendingCount() + " reports were never acknowledged; they stay in "
                        + options.workDirectory().resolve(".keeper"));
            }
        }
        if (abandoned) {
            // the manager will take nothing more from this keeper: its trials must not run on unseen
            for (TrialProcess trial : trials.values()) {
                trial.killAndWait();
            }
            System.err.println(spool.pendingCount() + " reports were not delivered; they stay in " + options.workDirectory().resolve(".keeper"));
        }
        spool.close();
        return exitCode;
    }

    private Map<String, Object> handshake() throws InterruptedException {
        Map<String, Object> hello = TrialProcess.ordered("keeperVersion", VERSION, "protocol", (long) PROTOCOL,
                "mode", options.mode(), "platform", options.platform(), "runtime", "java " + System.getProperty("java.version"));
        Backoff backoff = new Backoff(options.giveUpSeconds());
        while (true) {
            try {
                Map<String, Object> answer = manager.handshake(hello);
                Object protocol = answer.get("protocol");
                if (!(protocol instanceof Long)) {
                    throw new ManagerClient.Unusable(200, "the manager's handshake answer names no protocol");
                }
                if (((Long) protocol).intValue() != PROTOCOL) {
                    fail(EXIT_REFUSED, "manager " + answer.get("managerVersion") + " speaks trial protocol " + protocol
                            + ", but trial keeper " + VERSION + " speaks protocol " + PROTOCOL
                            + "; run the keeper this manager ships (nni.manager's nni-trialkeeper.jar)");
                    return null;
                }
                System.err.println("trial keeper " + VERSION + " (protocol " + PROTOCOL + ") connected to manager "
                        + answer.get("managerVersion"));
                return answer;
            } catch (ManagerClient.Refused e) {
                refused(e, "the manager refused trial keeper " + VERSION + " (protocol " + PROTOCOL + "): ");
                return null;
            } catch (IOException e) {
                if (!backoff.pause("handshake", e)) {
                    fail(EXIT_UNREACHABLE, giveUpMessage(""));
                    return null;
                }
            }
        }
    }

    private void sendLoop() {
        Backoff backoff = new Backoff(options.giveUpSeconds());
        long batchBytes = BATCH_BYTES;
        try {
            while (!(stopping && spool.pendingCount() == 0)) {
                Spool.Batch batch = spool.peek(BATCH_REPORTS, batchBytes, 500);
                if (batch.reports().isEmpty()) {
                    continue;
                }
                try {
                    long began = System.nanoTime();
                    long acked = manager.sendReports(batch.reports(), batch.lastSeq());
                    stats.record(System.nanoTime() - began, batch.reports().size());
                    spool.acknowledge(acked);
                    if (acked < batch.lastSeq()) {
                        throw new ManagerClient.Unusable(200, "the manager applied reports only up to " + acked + " of " + batch.lastSeq());
                    }
                    backoff.reset();
                } catch (ManagerClient.Refused e) {
                    refused(e, "the manager refused this keeper's reports: ");
                    return;
                } catch (IOException e) {
                    if (e instanceof ManagerClient.Unusable unusable && unusable.status == 413 && batchBytes > 1) {
                        batchBytes = Math.max(1, batchBytes / 2); // the manager's body limit is lower than ours
                    }
                    if (!backoff.pause("sending reports", e)) {
                        fail(EXIT_UNREACHABLE, giveUpMessage("; " + spool.pendingCount() + " reports stay in the spool"));
                        return;
                    }
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void commandLoop() {
        Backoff backoff = new Backoff(options.giveUpSeconds());
        long after = 0;
        try {
            while (!stopping) {
                List<Map<String, Object>> commands;
                try {
                    commands = manager.commands(after, POLL_MILLIS);
                    backoff.reset();
                } catch (ManagerClient.Refused e) {
                    refused(e, "the manager refused this keeper's command poll: ");
                    return;
                } catch (IOException e) {
                    if (!backoff.pause("polling commands", e)) {
                        fail(EXIT_UNREACHABLE, giveUpMessage(""));
                        return;
                    }
                    continue;
                }
                for (Map<String, Object> command : commands) {
                    after = Math.max(after, (Long) command.get("id"));
                    try {
                        handle(command);
                    } catch (IOException | RuntimeException e) {
                        System.err.println("command " + command.get("type") + " failed: " + e);
                    }
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @SuppressWarnings("unchecked")
    private void handle(Map<String, Object> command) throws IOException, InterruptedException {
        String type = String.valueOf(command.get("type"));
        String trialId = (String) command.get("trial");
        TrialProcess trial = trialId == null ? null : trials.get(trialId);
        switch (type) {
            case "new-trial" -> {
                if (startedTrials.add(trialId)) {
                    startTrial(trialId, command, options.workDirectory().resolve("trials").resolve(trialId));
                }
            }
            case "kill" -> {
                if (trial != null) {
                    trial.kill();
                }
            }
            case "send-parameter" -> {
                Map<String, Object> parameter = (Map<String, Object>) command.get("parameter");
                if (trial != null) {
                    trial.writeParameters((String) parameter.get("value"), ((Number) parameter.get("index")).intValue());
                }
            }
            case "log-tail" -> {
                String file = String.valueOf(command.get("file"));
                long maxBytes = ((Number) command.getOrDefault("maxBytes", 65536L)).longValue();
                String text = trial == null ? null : trial.tail(file, maxBytes);
                report(TrialProcess.ordered("kind", "log", "trial", trialId, "file", file,
                        "request", command.get("request"), "text", text));
            }
            case "stop" -> {
                toldToStop = true;
                finish(0);
            }
            default -> System.err.println("ignoring unknown command '" + type + "'");
        }
    }

    @SuppressWarnings("unchecked")
    private TrialProcess startTrial(String trialId, Map<String, Object> description, Path directory)
            throws IOException, InterruptedException {
        Map<String, Object> parameter = (Map<String, Object>) description.get("parameter");
        long sequenceId = ((Number) description.getOrDefault("sequenceId", -1L)).longValue();
        TrialProcess process = new TrialProcess(this, trialId, sequenceId, (String) description.get("gpuIndices"), directory);
        trials.put(trialId, process);
        process.ended().whenComplete((code, error) -> trials.remove(trialId));
        process.start((String) parameter.get("value"), ((Number) parameter.getOrDefault("index", 0L)).intValue());
        return process;
    }

    private void reportGpus() {
        Map<String, Object> gpus = GpuInfo.query(NVIDIA_SMI);
        if (gpus != null && !stopping) {
            try {
                report(gpus);
            } catch (IOException e) {
                System.err.println("GPU report not spooled: " + e.getMessage());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private String giveUpMessage(String more) {
        return manager.where() + " unreachable or not answering usably for " + options.giveUpSeconds()
                + " s; giving up" + more;
    }

    /**
     * Ends this keeper for good (refused: 3, unreachable: 4), whatever ended it before. Everything
     * the main thread reads is set before the latch opens and before the spool wakes a wait for
     * acknowledgements, so that it can never take the orderly path of a keeper that was refused.
     * A session that ends stops its keepers and forgets them at once: refused after a stop command,
     * a keeper has done what it was told and exits 0 (a cluster counts a job that exits non-zero as
     * failed).
     */
    private synchronized int fail(int code, String message) {
        boolean stoppedAsTold = code == EXIT_REFUSED && toldToStop;
        // trial mode: the session may end as soon as it has applied the trial's end, before this keeper
        // sees the acknowledgement; its trial ran to its end, and the job's outcome is the trial's
        Integer trialCode = code == EXIT_REFUSED && sessionGone && !abandoned ? trialEndCode : null;
        System.err.println(message + (trialCode != null ? "; its trial had ended with exit code " + trialCode + ", which stands"
                : stoppedAsTold ? "; it had told this keeper to stop, so this is the end it asked for" : ""));
        exitCode = trialCode != null ? trialCode : stoppedAsTold ? 0 : code;
        abandoned = true;
        stopping = true;
        spool.abandon();
        finished.countDown();
        return exitCode;
    }

    /**
     * Refused for good: ends this keeper, with 0 when the manager had told it to stop before, and with
     * its trial's code when the trial had ended and the session is gone (410) ({@link #fail}).
     */
    private void refused(ManagerClient.Refused e, String what) {
        if (e.afterStop) {
            toldToStop = true;
        }
        if (e.status == 410) {
            sessionGone = true;
        }
        fail(EXIT_REFUSED, what + e.getMessage());
    }

    /** Ends this keeper in order with {@code code}, unless it has ended already. */
    private synchronized void finish(int code) {
        if (finished.getCount() > 0) {
            exitCode = code;
            finished.countDown();
        }
    }

    private static Thread daemon(String name, Runnable body) {
        Thread thread = new Thread(body, name);
        thread.setDaemon(true);
        return thread;
    }

    /**
     * Pauses between retries, and the give-up deadline of one outage. A manager that cannot be
     * reached is retried from 100 ms doubling to 2 s (an endpoint restarting comes back soon); one
     * that answers something unusable from 100 ms doubling to 30 s, since asking again at once
     * would get the same answer. Each pause is drawn between half and all of its step, so that
     * many keepers do not retry in step.
     */
    static final class Backoff {
        static final long FIRST_MILLIS = 100;
        static final long UNREACHABLE_CAP_MILLIS = 2_000;
        static final long UNUSABLE_CAP_MILLIS = 30_000;

        private final long giveUpMillis;
        private final java.util.Random random;
        private long stepMillis = FIRST_MILLIS;
        private long since = -1;

        Backoff(long giveUpSeconds) {
            this(giveUpSeconds, new java.util.Random());
        }

        Backoff(long giveUpSeconds, java.util.Random random) {
            this.giveUpMillis = TimeUnit.SECONDS.toMillis(giveUpSeconds);
            this.random = random;
        }

        /** @return false when this trouble has lasted past the give-up deadline; otherwise pauses, then true */
        boolean pause(String what, IOException cause) throws InterruptedException {
            long now = System.currentTimeMillis();
            if (since < 0) {
                since = now;
                System.err.println(what + ": " + (cause instanceof ManagerClient.Unusable ? "" : "manager not reachable: ")
                        + cause.getMessage() + "; retrying");
            }
            if (now - since > giveUpMillis) {
                return false;
            }
            Thread.sleep(next(cause instanceof ManagerClient.Unusable));
            return true;
        }

        /** @return the next pause, and grows the step up to the cap for this kind of trouble */
        long next(boolean unusable) {
            long cap = unusable ? UNUSABLE_CAP_MILLIS : UNREACHABLE_CAP_MILLIS;
            long step = Math.min(stepMillis, cap);
            stepMillis = Math.min(cap, stepMillis * 2);
            return step / 2 + (long) (random.nextDouble() * (step - step / 2));
        }

        void reset() {
            if (since >= 0) {
                System.err.println("manager answering again");
            }
            since = -1;
            stepMillis = FIRST_MILLIS;
        }
    }
}
