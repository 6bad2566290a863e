package nni.api.testkit;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.InputStream;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

import org.junit.Test;
import org.junit.runner.JUnitCore;
import org.junit.runner.Result;
import org.junit.runner.notification.Failure;

import nni.api.config.ConfigReader;
import nni.api.config.SectionCheck;
import nni.api.model.TrialApplication;
import nni.api.model.TrialJob;
import nni.api.model.TrialStatus;
import nni.api.platform.SessionContext;
import nni.api.platform.TrainingPlatform;
import nni.api.platform.TrainingSession;

/**
 * The kit tests what it says: an in-memory platform that keeps the contract passes every test, and
 * each single breach of the contract fails the test that names it (and only tests that should see it).
 */
public class PlatformContractTest {

    /** One way to break the contract. */
    enum Breach {
        METRIC_AFTER_TERMINAL, TWO_TERMINAL_STATUSES, LOSES_A_METRIC, CANCEL_OF_UNKNOWN_THROWS, SECOND_CLOSE_THROWS,
        CLOSE_LEAVES_TRIALS, REPORTS_AFTER_DETACH, DETACH_CANCELS, REATTACH_FORGETS, REATTACH_INVENTS, SECRET_AS_PLAIN_STRING,
        SUBMIT_WAITS_FOR_THE_TRIAL
    }

    @Test
    public void aPlatformThatKeepsTheContractPassesEveryTest() {
        Result result = run(EnumSet.noneOf(Breach.class));

        assertEquals(failures(result), 0, result.getFailureCount());
        assertEquals(10, result.getRunCount());
        assertEquals(0, result.getIgnoreCount());
    }

    @Test
    public void eachBreachFailsTheTestsThatCheckIt() {
        Map<Breach, Set<String>> expected = new LinkedHashMap<>();
        expected.put(Breach.METRIC_AFTER_TERMINAL, Set.of("aFinishingTrialReportsEveryMetricBeforeExactlyOneTerminalStatus",
                "cancelOfAnUnknownOrEndedTrialDoesNothing"));
        expected.put(Breach.TWO_TERMINAL_STATUSES, Set.of("aFinishingTrialReportsEveryMetricBeforeExactlyOneTerminalStatus",
                "cancelOfAnUnknownOrEndedTrialDoesNothing"));
        expected.put(Breach.LOSES_A_METRIC, Set.of("aFinishingTrialReportsEveryMetricBeforeExactlyOneTerminalStatus"));
        expected.put(Breach.CANCEL_OF_UNKNOWN_THROWS, Set.of("cancelOfAnUnknownOrEndedTrialDoesNothing"));
        expected.put(Breach.SECOND_CLOSE_THROWS, Set.of("closeCancelsTheLiveTrialsAndMayBeRepeated",
                "closeAndDetachOfAnIdleSessionMayBeRepeated"));
        expected.put(Breach.CLOSE_LEAVES_TRIALS, Set.of("closeCancelsTheLiveTrialsAndMayBeRepeated"));
        expected.put(Breach.REPORTS_AFTER_DETACH, Set.of("detachLeavesTheTrialRunningAndReattachTakesItBack"));
        expected.put(Breach.DETACH_CANCELS, Set.of("detachLeavesTheTrialRunningAndReattachTakesItBack"));
        expected.put(Breach.REATTACH_FORGETS, Set.of("detachLeavesTheTrialRunningAndReattachTakesItBack"));
        expected.put(Breach.REATTACH_INVENTS, Set.of("reattachOfATrialThePlatformNeverStartedIsEmpty"));
        expected.put(Breach.SECRET_AS_PLAIN_STRING, Set.of("checkSectionAcceptsTheSectionAndListsItsSecrets",
                "secretValuesNeverAppearInProblems"));
        expected.put(Breach.SUBMIT_WAITS_FOR_THE_TRIAL, Set.of("submitReturnsPromptlyAndCancelEndsTheTrial",
                "closeCancelsTheLiveTrialsAndMayBeRepeated", "detachLeavesTheTrialRunningAndReattachTakesItBack"));
        assertEquals("every breach has its expectation", EnumSet.allOf(Breach.class), expected.keySet());

        for (Map.Entry<Breach, Set<String>> breach : expected.entrySet()) {
            Result result = run(EnumSet.of(breach.getKey()));
            Set<String> failed = new TreeSet<>();
            result.getFailures().forEach(failure -> failed.add(failure.getDescription().getMethodName()));
            assertEquals(breach.getKey() + ": " + failures(result), new TreeSet<>(breach.getValue()), failed);
        }
    }

    private static Set<Breach> breaches = EnumSet.noneOf(Breach.class);

    private static synchronized Result run(Set<Breach> these) {
        breaches = these;
        return new JUnitCore().run(MemoryContract.class);
    }

    private static String failures(Result result) {
        List<String> all = new ArrayList<>();
        for (Failure failure : result.getFailures()) {
            all.add(failure.getDescription().getMethodName() + ": " + failure.getMessage());
        }
        return all.toString();
    }

    /** The contract run against {@link MemoryPlatform} with the breaches of the moment. */
    public static class MemoryContract extends PlatformContract {
        private final MemoryPlatform platform = new MemoryPlatform(breaches);

        @Override
        protected TrainingPlatform platform() {
            return platform;
        }

        @Override
        protected Map<String, Object> section(Path codeDirectory) {
            Map<String, Object> section = new LinkedHashMap<>();
            section.put("platform", "memory");
            section.put("trialCommand", ConformanceTrial.COMMAND);
            section.put("trialCodeDirectory", codeDirectory.toString());
            section.put("token", "s3cret");
            return section;
        }

        @Override
        protected List<String> secretPaths() {
            return List.of("token");
        }

        @Override
        protected Duration patience() {
            return Duration.ofSeconds(3);
        }

        @Override
        protected Path scratchDirectory() {
            return Path.of("target", "contract-test").toAbsolutePath();
        }
    }

    /**
     * Trials "run" on a thread of the session: "hold" trials until cancelled, others report three
     * metrics and succeed. What runs is kept by the platform, so a later session can take it back.
     */
    static final class MemoryPlatform implements TrainingPlatform {
        private final Set<Breach> breaches;
        /** handle -> trial id of every trial "running" on this platform, whichever session started it */
        private final Map<String, String> running = new ConcurrentHashMap<>();

        MemoryPlatform(Set<Breach> breaches) {
            this.breaches = breaches;
        }

        @Override
        public SectionCheck checkSection(Map<String, Object> section, Path baseDirectory) {
            ConfigReader reader = ConfigReader.of(section, baseDirectory);
            reader.trainingServiceFields(true);
            if (breaches.contains(Breach.SECRET_AS_PLAIN_STRING)) {
                reader.string("token");
            } else {
                reader.secret("token", false);
            }
            return reader.check();
        }

        /** Sessions detached so far: with REPORTS_AFTER_DETACH they report again when the next session opens. */
        private final List<MemorySession> detachedSessions = new java.util.concurrent.CopyOnWriteArrayList<>();

        @Override
        public TrainingSession open(SessionContext context) {
            if (breaches.contains(Breach.REPORTS_AFTER_DETACH)) {
                detachedSessions.forEach(MemorySession::reportAgain);
            }
            return new MemorySession(context);
        }

        private final class MemorySession implements TrainingSession {
            private final SessionContext context;
            private final Map<String, TrialJob> trials = new ConcurrentHashMap<>();
            private final ExecutorService thread = Executors.newSingleThreadExecutor();
            private volatile boolean closed;
            private volatile boolean detached;

            MemorySession(SessionContext context) {
                this.context = context;
            }

            @Override
            public synchronized TrialJob submit(TrialApplication application) {
                TrialJob waiting = TrialJob.waiting(application, "", "").toBuilder().handle("memory:" + application.trialId()).build();
                trials.put(waiting.id(), waiting);
                boolean hold = application.hyperParameters().value().contains("hold");
                Runnable run = () -> run(waiting, hold);
                if (breaches.contains(Breach.SUBMIT_WAITS_FOR_THE_TRIAL)) {
                    run.run();
                    // the breach: submit returns only when the trial ended (or the kit gave up on it)
                    while (hold && !trials.get(waiting.id()).status().isTerminal() && !Thread.currentThread().isInterrupted()) {
                        Thread.onSpinWait();
                    }
                } else {
                    thread.execute(run);
                }
                return waiting;
            }

            private void run(TrialJob waiting, boolean hold) {
                TrialJob running = waiting.running(Instant.now());
                trials.put(running.id(), running);
                MemoryPlatform.this.running.put(running.handle(), running.id());
                context.trialChanged(running);
                if (hold) {
                    return;
                }
                int metrics = breaches.contains(Breach.LOSES_A_METRIC) ? 2 : 3;
                for (int i = 0; i < metrics; i++) {
                    metric(running.id(), i);
                }
                end(running.id(), TrialStatus.SUCCEEDED);
                if (breaches.contains(Breach.METRIC_AFTER_TERMINAL)) {
                    metric(running.id(), 9);
                }
                if (breaches.contains(Breach.TWO_TERMINAL_STATUSES)) {
                    context.trialChanged(trials.get(running.id()).toBuilder().status(TrialStatus.FAILED).build());
                }
            }

            private void metric(String trialId, int sequence) {
                context.metricReported(trialId, "{\"parameter_id\": 0, \"trial_job_id\": \"" + trialId + "\", \"type\": \"PERIODICAL\", "
                        + "\"sequence\": " + sequence + ", \"value\": \"0.5\"}");
            }

            private void end(String trialId, TrialStatus status) {
                TrialJob ended = trials.get(trialId).ended(status, Instant.now(), "");
                trials.put(trialId, ended);
                running.remove(ended.handle());
                context.trialChanged(ended);
            }

            @Override
            public synchronized void cancel(String trialId, boolean earlyStopped) {
                TrialJob trial = trials.get(trialId);
                if (trial == null) {
                    if (breaches.contains(Breach.CANCEL_OF_UNKNOWN_THROWS)) {
                        throw new IllegalArgumentException("no trial " + trialId);
                    }
                    return;
                }
                if (!trial.status().isTerminal()) {
                    end(trialId, TrialStatus.cancelled(earlyStopped));
                }
            }

            @Override
            public synchronized Optional<TrialJob> reattach(TrialJob trial) {
                if (breaches.contains(Breach.REATTACH_INVENTS)) {
                    TrialJob invented = trial.toBuilder().status(TrialStatus.RUNNING).build();
                    trials.put(invented.id(), invented);
                    return Optional.of(invented);
                }
                if (breaches.contains(Breach.REATTACH_FORGETS) || !trial.id().equals(running.get(trial.handle()))) {
                    return Optional.empty();
                }
                TrialJob taken = trial.toBuilder().status(TrialStatus.RUNNING).build();
                trials.put(taken.id(), taken);
                return Optional.of(taken);
            }

            @Override
            public Optional<TrialJob> trial(String trialId) {
                return Optional.ofNullable(trials.get(trialId));
            }

            @Override
            public List<TrialJob> trials() {
                return List.copyOf(trials.values());
            }

            @Override
            public Optional<InputStream> openTrialFile(String trialId, String name) {
                return Optional.empty();
            }

            @Override
            public void close() {
                synchronized (this) {
                    if (closed && breaches.contains(Breach.SECOND_CLOSE_THROWS)) {
                        throw new IllegalStateException("closed already");
                    }
                    closed = true;
                    if (!breaches.contains(Breach.CLOSE_LEAVES_TRIALS)) {
                        trials.keySet().forEach(id -> cancel(id, false));
                    }
                }
                stopThread();
            }

            @Override
            public void detach() {
                synchronized (this) {
                    if (breaches.contains(Breach.DETACH_CANCELS)) {
                        trials.keySet().forEach(id -> cancel(id, false));
                    }
                    if (!detached) {
                        detachedSessions.add(this);
                    }
                    detached = true;
                }
                stopThread();
            }

            /** Ends the session's thread before returning, as a session must: nothing it does comes later. */
            private void stopThread() {
                thread.shutdown();
                try {
                    thread.awaitTermination(5, java.util.concurrent.TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }

            /** The breach REPORTS_AFTER_DETACH: a detached session reports its live trials once more. */
            void reportAgain() {
                trials.values().stream().filter(job -> !job.status().isTerminal())
                        .forEach(job -> context.trialChanged(job.withMessage("detached")));
            }
        }
    }

    @Test
    public void theContextCountsEveryKindOfViolation() {
        RecordingSessionContext context = new RecordingSessionContext("exp00001", Path.of("target"), "memory", Map.of());
        TrialJob job = TrialJob.builder("abcde").hyperParameters(ConformanceTrial.running(0)).build();
        context.trialChanged(job.running(Instant.now()));
        context.trialChanged(job.ended(TrialStatus.SUCCEEDED, Instant.now(), ""));
        context.metricReported("abcde", "{\"trial_job_id\": \"abcde\", \"type\": \"FINAL\", \"sequence\": 0, \"value\": \"1\"}");
        context.trialChanged(job.ended(TrialStatus.FAILED, Instant.now(), ""));
        context.sessionDetached();
        context.trialChanged(job.running(Instant.now()));

        assertEquals(context.violations().toString(), 3, context.violations().size());
        assertTrue(context.violations().get(0), context.violations().get(0).startsWith("metric reported after the terminal status"));
        assertTrue(context.violations().get(1), context.violations().get(1).startsWith("status reported after the terminal status"));
        assertTrue(context.violations().get(2), context.violations().get(2).startsWith("status reported after the session was detached"));
    }
}
