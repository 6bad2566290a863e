package nni.api.testkit;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;
import static org.junit.Assume.assumeFalse;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;

import org.junit.After;
import org.junit.Before;
import org.junit.Test;

import nni.api.config.ConfigProblem;
import nni.api.config.KeyPaths;
import nni.api.config.SectionCheck;
import nni.api.model.HyperParameters;
import nni.api.model.TrialApplication;
import nni.api.model.TrialJob;
import nni.api.model.TrialStatus;
import nni.api.platform.TrainingPlatform;
import nni.api.platform.TrainingSession;

/**
 * The contract every {@link TrainingPlatform} keeps, as JUnit 4 tests. A platform's test extends
 * this class and says how to reach the platform and how an experiment section for it looks; the
 * tests here then open sessions with a {@link RecordingSessionContext} standing in for the manager,
 * run real trials and check what the platform reported:
 * <ul>
 * <li>every metric of a trial comes before its terminal status, and exactly one terminal status
 *     comes, with no metric lost ({@link #aFinishingTrialReportsEveryMetricBeforeExactlyOneTerminalStatus});</li>
 * <li>{@code submit} returns at once with the trial WAITING or RUNNING, and {@code cancel} ends it
 *     as {@code EARLY_STOPPED} or {@code USER_CANCELED} ({@link #submitReturnsPromptlyAndCancelEndsTheTrial});</li>
 * <li>cancelling an unknown or an ended trial does nothing ({@link #cancelOfAnUnknownOrEndedTrialDoesNothing});</li>
 * <li>{@code close} cancels the live trials and has reported their ends when it returns; {@code close}
 *     and {@code detach} may be called again
 *     and never throw ({@link #closeCancelsTheLiveTrialsAndMayBeRepeated},
 *     {@link #closeAndDetachOfAnIdleSessionMayBeRepeated});</li>
 * <li>{@code detach} leaves a running trial alone and reports nothing more; a new session's
 *     {@code reattach} takes it back from what was reported last, and then controls it
 *     ({@link #detachLeavesTheTrialRunningAndReattachTakesItBack});</li>
 * <li>{@code reattach} of a trial the platform never started is empty and does not throw
 *     ({@link #reattachOfATrialThePlatformNeverStartedIsEmpty});</li>
 * <li>{@code checkSection} accepts the test's section, reads every secret with
 *     {@link nni.api.config.ConfigReader#secret} (listed in {@link SectionCheck#secrets()}, kept real
 *     in the section, never shown in a problem) and reports unknown keys
 *     ({@link #checkSectionAcceptsTheSectionAndListsItsSecrets},
 *     {@link #secretValuesNeverAppearInProblems}, {@link #checkSectionReportsAnUnknownKey}).</li>
 * </ul>
 *
 * <h2>Writing a platform's conformance test</h2>
 * <pre>
 * public class AcmeConformanceTest extends PlatformContract {
 *     protected TrainingPlatform platform() { return new AcmePlatform(config); }
 *     protected Map&lt;String, Object&gt; section(Path codeDirectory) {
 *         return Map.of("platform", "acme", "trialCommand", ConformanceTrial.COMMAND,
 *                 "trialCodeDirectory", codeDirectory.toString(), "token", "s3cret");
 *     }
 *     protected List&lt;String&gt; secretPaths() { return List.of("token"); }
 * }
 * </pre>
 * The trials are {@link ConformanceTrial}'s script unless {@link #finishingTrial} and
 * {@link #runningTrial} are overridden. Each test makes its own experiment (a fresh id and
 * directory below {@link #scratchDirectory()}) and removes it afterwards; sessions it opened are
 * closed, and trials it left running in a detached session are taken back and cancelled. Under
 * Pax Exam, extend {@link nni.api.testkit.paxexam.PlatformBundleContract}, which adds bundle-level
 * checks and finds the platform in the service registry.
 *
 * <p>Waits are bounded by {@link #patience()} and woken by the platform's reports; nothing here
 * measures time. A platform that needs longer (a cluster queue) returns a larger patience.
 */
public abstract class PlatformContract {

    private static final SecureRandom RANDOM = new SecureRandom();
    private static final String LETTERS = "abcdefghijklmnopqrstuvwxyz0123456789";

    private Path work;
    private Path codeDirectory;
    private Map<String, Object> checkedSection;
    private ExecutorService calls;
    /** Every session the test opened, with its context; in opening order. */
    private final Map<TrainingSession, RecordingSessionContext> sessions = new LinkedHashMap<>();
    private final List<TrainingSession> detached = new ArrayList<>();
    /** trial id -> the session that last took it (submit or reattach). */
    private final Map<String, TrainingSession> owners = new LinkedHashMap<>();

    // ------------------------------------------------------------------ what a platform's test provides

    /** @return the platform under test, ready to check sections and open sessions */
    protected abstract TrainingPlatform platform() throws Exception;

    /**
     * @param codeDirectory the trials' code directory, holding {@link ConformanceTrial#SCRIPT}
     * @return the platform's section of an experiment file, as a user writes it (the common fields
     *         {@code platform}, {@code trialCommand} and {@code trialCodeDirectory} included), whose
     *         trials are the ones {@link #finishingTrial} and {@link #runningTrial} describe
     */
    protected abstract Map<String, Object> section(Path codeDirectory) throws Exception;

    /** @return the parameters of a trial that reports {@link #metricsPerFinishingTrial()} metrics and succeeds */
    protected HyperParameters finishingTrial(long parameterId) {
        return ConformanceTrial.finishing(parameterId);
    }

    /** @return the parameters of a trial that runs until cancelled */
    protected HyperParameters runningTrial(long parameterId) {
        return ConformanceTrial.running(parameterId);
    }

    /** @return how many distinct metrics a finishing trial reports */
    protected int metricsPerFinishingTrial() {
        return ConformanceTrial.METRICS;
    }

    /**
     * @return the key paths of the secrets in {@link #section}, in canonical spelling
     *         ({@code machineList[0].password}); empty when the platform has none (the secret tests are
     *         then skipped)
     */
    protected List<String> secretPaths() {
        return List.of();
    }

    /** @return how long a wait for one trial's report may take at most */
    protected Duration patience() {
        return Duration.ofMinutes(2);
    }

    /** @return where the tests make their experiments' folders (one new folder per test, removed after it) */
    protected Path scratchDirectory() throws IOException {
        return Path.of(System.getProperty("java.io.tmpdir"));
    }

    // ------------------------------------------------------------------ the contract

    @Test
    public void aFinishingTrialReportsEveryMetricBeforeExactlyOneTerminalStatus() throws Exception {
        RecordingSessionContext context = newContext(newExperimentId());
        TrainingSession session = open(context);
        String first = newTrialId();
        String second = newTrialId();
        submit(session, first, 0, finishingTrial(0));
        submit(session, second, 1, finishingTrial(1));

        for (String trial : List.of(first, second)) {
            TrialJob ended = context.awaitTerminal(trial, patience());
            assertEquals("trial " + trial + ": " + context.changes(trial), TrialStatus.SUCCEEDED, ended.status());
        }
        detach(session);

        for (String trial : List.of(first, second)) {
            assertEquals("terminal statuses of trial " + trial + ": " + context.changes(trial), 1, context.terminalStatuses(trial));
            assertEquals("metrics of trial " + trial + ": " + context.metrics(trial), metricsPerFinishingTrial(),
                    context.storedMetrics(trial).size());
        }
        assertEquals(List.of(), context.violations());
    }

    @Test
    public void submitReturnsPromptlyAndCancelEndsTheTrial() throws Exception {
        RecordingSessionContext context = newContext(newExperimentId());
        TrainingSession session = open(context);
        String trial = newTrialId();

        TrialJob submitted = submit(session, trial, 7, runningTrial(7));

        assertEquals(trial, submitted.id());
        assertEquals(7, submitted.sequenceId());
        assertTrue("submit returns the trial WAITING or RUNNING, not " + submitted,
                submitted.status() == TrialStatus.WAITING || submitted.status() == TrialStatus.RUNNING);
        assertFalse("submit returned only after the trial ended: " + context.changes(trial),
                context.latest(trial).map(job -> job.status().isTerminal()).orElse(false));
        context.awaitStatus(trial, job -> job.status() == TrialStatus.RUNNING, "RUNNING", patience());
        assertEquals(Optional.of(TrialStatus.RUNNING), session.trial(trial).map(TrialJob::status));
        assertTrue(session.trials().stream().anyMatch(job -> job.id().equals(trial)));

        session.cancel(trial, true);

        assertEquals(TrialStatus.EARLY_STOPPED, context.awaitTerminal(trial, patience()).status());
        detach(session);
        assertEquals(1, context.terminalStatuses(trial));
        assertEquals(List.of(), context.violations());
    }

    @Test
    public void cancelOfAnUnknownOrEndedTrialDoesNothing() throws Exception {
        RecordingSessionContext context = newContext(newExperimentId());
        TrainingSession session = open(context);

        session.cancel("nosuch", false);
        session.cancel("nosuch", true);
        assertEquals(List.of(), context.changes());

        String trial = newTrialId();
        submit(session, trial, 0, finishingTrial(0));
        context.awaitTerminal(trial, patience());
        session.cancel(trial, false);
        session.cancel(trial, true);
        detach(session);

        assertEquals("an ended trial stays as it ended: " + context.changes(trial), 1, context.terminalStatuses(trial));
        assertEquals(TrialStatus.SUCCEEDED, context.latest(trial).orElseThrow().status());
        assertEquals(List.of(), context.violations());
    }

    @Test
    public void closeCancelsTheLiveTrialsAndMayBeRepeated() throws Exception {
        RecordingSessionContext context = newContext(newExperimentId());
        TrainingSession session = open(context);
        String trial = newTrialId();
        submit(session, trial, 0, runningTrial(0));
        context.awaitStatus(trial, job -> job.status() == TrialStatus.RUNNING, "RUNNING", patience());

        session.close();
        session.close();

        // "while close runs, the session still reports the trials it cancels": by its return, not later
        assertEquals("reported by the time close returned: " + context.changes(trial), TrialStatus.USER_CANCELED,
                context.latest(trial).map(TrialJob::status).orElse(null));
        assertEquals(1, context.terminalStatuses(trial));
        assertEquals(List.of(), context.violations());
    }

    @Test
    public void closeAndDetachOfAnIdleSessionMayBeRepeated() throws Exception {
        RecordingSessionContext closing = newContext(newExperimentId());
        TrainingSession closed = open(closing);
        closed.close();
        closed.close();

        RecordingSessionContext detaching = newContext(newExperimentId());
        TrainingSession gone = open(detaching);
        detach(gone);
        gone.detach();

        assertEquals(List.of(), closing.changes());
        assertEquals(List.of(), closing.violations());
        assertEquals(List.of(), detaching.violations());
    }

    @Test
    public void detachLeavesTheTrialRunningAndReattachTakesItBack() throws Exception {
        String experiment = newExperimentId();
        RecordingSessionContext before = newContext(experiment);
        TrainingSession first = open(before);
        String trial = newTrialId();
        submit(first, trial, 3, runningTrial(3));
        TrialJob running = before.awaitStatus(trial, job -> job.status() == TrialStatus.RUNNING, "RUNNING", patience());

        detach(first);
        first.detach();
        RecordingSessionContext after = newContext(experiment);
        TrainingSession second = open(after);
        Optional<TrialJob> taken = second.reattach(before.latest(trial).orElseThrow());
        if (taken.isPresent()) {
            owners.put(trial, second);
        }

        assertTrue("the new session must take back the trial the detached one left running: " + running, taken.isPresent());
        assertEquals(trial, taken.get().id());
        assertEquals(3, taken.get().sequenceId());
        assertFalse("the trial still runs: " + taken.get(), taken.get().status().isTerminal());
        assertEquals(List.of(), before.violations());

        second.cancel(trial, false);

        assertEquals(TrialStatus.USER_CANCELED, after.awaitTerminal(trial, patience()).status());
        detach(second);
        assertEquals(1, after.terminalStatuses(trial));
        assertEquals(List.of(), after.violations());
    }

    @Test
    public void reattachOfATrialThePlatformNeverStartedIsEmpty() throws Exception {
        RecordingSessionContext context = newContext(newExperimentId());
        TrainingSession session = open(context);
        String trial = newTrialId();
        TrialJob stranger = TrialJob.builder(trial).sequenceId(0).hyperParameters(runningTrial(0)).status(TrialStatus.RUNNING)
                .handle("nni-testkit:never-started").build();

        Optional<TrialJob> taken = session.reattach(stranger);

        assertEquals("reattach of a trial that never ran here: " + taken, Optional.empty(), taken);
        detach(session);
        assertEquals(List.of(), context.violations());
    }

    @Test
    public void checkSectionAcceptsTheSectionAndListsItsSecrets() throws Exception {
        SectionCheck check = platform().checkSection(section(codeDirectory), work);

        assertEquals(List.of(), check.problems());
        assertTrue("secrets read with ConfigReader.secret: " + check.secrets() + ", expected at least " + secretPaths(),
                check.secrets().containsAll(secretPaths()));
        for (String secret : secretPaths()) {
            assertEquals("the session gets the real " + secret, KeyPaths.get(section(codeDirectory), secret),
                    KeyPaths.get(check.section(), secret));
        }
    }

    @Test
    public void secretValuesNeverAppearInProblems() throws Exception {
        assumeFalse("the platform reads no secrets", secretPaths().isEmpty());
        String marker = "918273645";
        Map<String, Object> markers = new LinkedHashMap<>();
        for (String secret : secretPaths()) {
            markers.put(secret, Long.parseLong(marker)); // not a string: a problem, which must not show it
        }
        Map<String, Object> section = KeyPaths.replaced(section(codeDirectory), markers);

        SectionCheck check = platform().checkSection(section, work);

        for (String secret : secretPaths()) {
            assertTrue("no problem names " + secret + ": " + check.problems(),
                    check.problems().stream().anyMatch(problem -> problem.path().equals(secret)));
        }
        for (ConfigProblem problem : check.problems()) {
            assertFalse("a problem shows a secret's value: " + problem, problem.toString().contains(marker));
        }
    }

    @Test
    public void checkSectionReportsAnUnknownKey() throws Exception {
        Map<String, Object> section = KeyPaths.copy(section(codeDirectory));
        section.put("nniTestkitUnknownKey", 1);

        SectionCheck check = platform().checkSection(section, work);

        assertTrue("unknown keys are problems (NNI's rule): " + check.problems(),
                check.problems().stream().anyMatch(problem -> problem.toString().contains("nniTestkitUnknownKey")));
    }

    // ------------------------------------------------------------------ helpers for subclasses' own tests

    /** @return a new experiment id, eight lower-case letters and digits as NNI makes them */
    protected static String newExperimentId() {
        return random(LETTERS, 8);
    }

    /** @return a new trial id, five letters and digits as NNI makes them */
    protected static String newTrialId() {
        return random(LETTERS + "ABCDEFGHIJKLMNOPQRSTUVWXYZ", 5);
    }

    private static String random(String alphabet, int length) {
        StringBuilder id = new StringBuilder();
        for (int i = 0; i < length; i++) {
            id.append(alphabet.charAt(RANDOM.nextInt(alphabet.length())));
        }
        return id.toString();
    }

    /** @return a context for a member of experiment {@code experimentId}, its folder below this test's folder, holding the checked section */
    protected final RecordingSessionContext newContext(String experimentId) throws IOException {
        Path directory = Files.createDirectories(work.resolve("experiments").resolve(experimentId));
        Object platform = checkedSection.get("platform");
        return new RecordingSessionContext(experimentId, directory, platform == null ? "" : platform.toString(), checkedSection);
    }

    /** Opens a session the test's end closes (or cleans up after, when it was detached). */
    protected final TrainingSession open(RecordingSessionContext context) throws Exception {
        TrainingSession session = call("open", () -> platform().open(context));
        sessions.put(session, context);
        return session;
    }

    /**
     * Submits a trial as the manager does, on another thread, and fails if {@code submit} does not
     * return within {@link #patience()}: submit must queue, not wait for the trial.
     */
    protected final TrialJob submit(TrainingSession session, String trialId, long sequenceId, HyperParameters parameters)
            throws Exception {
        TrialApplication application = TrialApplication.builder(trialId).sequenceId(sequenceId).hyperParameters(parameters).build();
        owners.put(trialId, session);
        return call("submit", () -> session.submit(application));
    }

    /** Detaches a session and tells its context, so that anything it reports later is a violation. */
    protected final void detach(TrainingSession session) {
        session.detach();
        detached.add(session);
        RecordingSessionContext context = sessions.get(session);
        if (context != null) {
            context.sessionDetached();
        }
    }

    private interface Call<T> {
        T run() throws Exception;
    }

    private <T> T call(String what, Call<T> call) throws Exception {
        Future<T> result = calls.submit(call::run);
        try {
            return result.get(patience().toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            result.cancel(true);
            throw new AssertionError(what + " did not return within " + patience().toSeconds()
                    + " s: it must return promptly and leave long work to the session's threads");
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Exception exception) {
                throw exception;
            }
            throw e;
        }
    }

    // ------------------------------------------------------------------ set-up and clean-up

    @Before
    public final void prepareTheExperimentFolder() throws Exception {
        work = Files.createTempDirectory(Files.createDirectories(scratchDirectory()), "nni-testkit-");
        codeDirectory = work.resolve("code");
        ConformanceTrial.writeScript(codeDirectory);
        calls = Executors.newCachedThreadPool(r -> {
            Thread thread = new Thread(r, "nni-testkit-call");
            thread.setDaemon(true);
            return thread;
        });
        SectionCheck check = platform().checkSection(section(codeDirectory), work);
        if (!check.valid()) {
            fail("the test's section is not valid for the platform: " + check.problems());
        }
        checkedSection = check.section();
    }

    /**
     * Closes every session the test left open, takes back and cancels every trial a detached session
     * left running, waits for their terminal statuses, and removes the test's folder. A platform
     * that does not end its trials on close fails here.
     */
    @After
    public final void closeSessionsAndRemoveTheFolder() throws Exception {
        List<Throwable> failures = new ArrayList<>();
        try {
            Map<String, List<TrialJob>> leftBehind = new LinkedHashMap<>();
            owners.forEach((trialId, owner) -> {
                RecordingSessionContext context = sessions.get(owner);
                Optional<TrialJob> last = context == null ? Optional.empty() : context.latest(trialId);
                if (detached.contains(owner) && last.isPresent() && !last.get().status().isTerminal()) {
                    leftBehind.computeIfAbsent(context.experimentId(), id -> new ArrayList<>()).add(last.get());
                }
            });
            for (TrainingSession session : sessions.keySet()) {
                if (!detached.contains(session)) {
                    run(failures, session::close);
                }
            }
            for (Map.Entry<String, List<TrialJob>> experiment : leftBehind.entrySet()) {
                run(failures, () -> takeBackAndCancel(experiment.getKey(), experiment.getValue()));
            }
            for (Map.Entry<TrainingSession, RecordingSessionContext> open : sessions.entrySet()) {
                if (!detached.contains(open.getKey())) {
                    for (TrialJob trial : open.getValue().changes()) {
                        run(failures, () -> open.getValue().awaitTerminal(trial.id(), patience()));
                    }
                }
            }
        } finally {
            if (calls != null) {
                calls.shutdownNow();
            }
            if (work != null) {
                run(failures, () -> remove(work));
            }
        }
        if (!failures.isEmpty()) {
            AssertionError error = new AssertionError("cleaning up after the test failed: " + failures.get(0));
            failures.forEach(error::addSuppressed);
            throw error;
        }
    }

    private void takeBackAndCancel(String experimentId, List<TrialJob> trials) throws Exception {
        RecordingSessionContext context = newContext(experimentId);
        TrainingSession session = platform().open(context);
        List<String> taken = new ArrayList<>();
        try {
            for (TrialJob trial : trials) {
                session.reattach(trial).ifPresent(job -> taken.add(job.id()));
            }
        } finally {
            session.close();
        }
        for (String trial : taken) {
            context.awaitTerminal(trial, patience());
        }
    }

    private interface Step {
        void run() throws Exception;
    }

    private static void run(List<Throwable> failures, Step step) {
        try {
            step.run();
        } catch (Throwable e) {
            failures.add(e);
        }
    }

    private static void remove(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(root)) {
            for (Path path : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        }
    }

    /** For subclasses' own tests: the canonical section the sessions get. */
    protected final Map<String, Object> checkedSection() {
        return checkedSection;
    }

    /** For subclasses' own tests: the code directory holding the conformance trial. */
    protected final Path codeDirectory() {
        return codeDirectory;
    }
}
