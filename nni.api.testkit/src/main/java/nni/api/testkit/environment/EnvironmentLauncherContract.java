package nni.api.testkit.environment;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;
import static org.junit.Assume.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;

import org.junit.After;
import org.junit.Before;
import org.junit.Test;

import nni.api.environment.EnvironmentLauncher;
import nni.api.environment.EnvironmentListener;
import nni.api.environment.EnvironmentSpec;
import nni.api.environment.EnvironmentState;
import nni.api.environment.KeeperRuntime;
import nni.api.environment.LaunchedEnvironment;
import nni.api.platform.PlatformException;
import nni.api.platform.TransientPlatformException;

/**
 * The contract of an {@link EnvironmentLauncher} (a keeper-based platform's part), as JUnit 4
 * tests. A platform's test extends this class and gives its launcher and the keeper files its
 * workers run; the tests start real keepers through it, with a {@link StandInManager} on loopback
 * playing the manager's side of the keeper protocol, so no runtime is needed. They check:
 * <ul>
 * <li>an environment runs the keeper command of its spec: the keeper shakes hands with the spec's
 *     experiment, keeper id, mode and platform, carrying the spec's token, which reached it in
 *     {@value EnvironmentSpec#TOKEN_VARIABLE} and is on no command line of this machine; the trial
 *     runs from the spec's code archive and its reports (started, metric, ended) arrive
 *     ({@link #anEnvironmentRunsItsSpecsKeeperWhoseReportsArrive});</li>
 * <li>{@link LaunchedEnvironment#ended()} completes normally, with a description, once the keeper
 *     is gone, also when it exits with a failure ({@link #aKeeperExitingWithAFailureEndsTheEnvironmentNormally});</li>
 * <li>{@code start} returns while the environment runs, {@code stop} ends it and may be repeated,
 *     and {@code reattach} of an environment that is gone is empty
 *     ({@link #stopEndsARunningEnvironmentAndMayBeRepeated});</li>
 * <li>a runner keeper ({@code runner} mode) takes trials and ends when the manager stops it
 *     ({@link #aRunnerTakesTrialsAndEndsWhenTheManagerStopsIt});</li>
 * <li>{@code detach} leaves the keeper running and its {@code ended()} never completes; {@code reattach}
 *     with the environment's handle finds it again (and then stops it) or is empty
 *     ({@link #detachLeavesTheKeeperRunningAndReattachFindsItOrNothing});</li>
 * <li>environments started from two threads at once each run their own keeper
 *     ({@link #environmentsStartedFromTwoThreadsAtOnceRunTheirOwnKeepers});</li>
 * <li>a launcher that cannot start an environment at all throws a {@link PlatformException} that is
 *     not transient, one that cannot start it now a {@link TransientPlatformException}, each with a
 *     message (when the test says how to make such a launcher:
 *     {@link #launcherThatCannotStart()}, {@link #launcherThatCannotStartNow()});</li>
 * <li>everywhere: the listener hears nothing after {@code ended()} completed, and no state message,
 *     handle, URL, host, attribute, end description or exception message carries the token.</li>
 * </ul>
 *
 * <h2>Writing a launcher's contract test</h2>
 * <pre>
 * public class AcmeLauncherContractTest extends EnvironmentLauncherContract {
 *     protected EnvironmentLauncher launcher() { return new AcmeLauncher(cluster); }
 *     protected Map&lt;KeeperRuntime, Path&gt; keeperFiles() {
 *         return Map.of(KeeperRuntime.PYTHON, Path.of("target/keeper/nni-trialkeeper.py"));
 *     }
 * }
 * </pre>
 * The keeper files are the real keepers (nni.trialkeeper's jar and Python file). The trials are a
 * small shell script in the code archive (a POSIX shell on the worker). Each test removes what it
 * put in {@link #scratchDirectory()} and stops every keeper it started, through the launcher or, for
 * a detached one, through the manager's side. Waits are bounded by {@link #patience()} and woken
 * by the keepers' reports; nothing here measures time.
 */
public abstract class EnvironmentLauncherContract {

    /** The trial script's file name in the code archive. */
    public static final String TRIAL_SCRIPT = "contract-trial.sh";

    private static final SecureRandom RANDOM = new SecureRandom();

    private StandInManager manager;
    private EnvironmentLauncher launcher;
    private Path work;
    private Path codeArchive;
    private String experimentId;
    private final List<Started> started = new CopyOnWriteArrayList<>();
    private final List<String> detachedKeepers = new CopyOnWriteArrayList<>();

    // ------------------------------------------------------------------ what a launcher's test provides

    /** @return the launcher under test, new for each test ({@link #closeLauncher} ends it) */
    protected abstract EnvironmentLauncher launcher() throws Exception;

    /**
     * @return the keepers the launcher's workers may run and their files on this machine, in order of
     *         preference: what the manager offers in {@link EnvironmentSpec#keeperFile}
     */
    protected abstract Map<KeeperRuntime, Path> keeperFiles() throws Exception;

    /** Ends a launcher the test made; by default closes it if it is {@link AutoCloseable}. */
    protected void closeLauncher(EnvironmentLauncher launcher) throws Exception {
        if (launcher instanceof AutoCloseable closeable) {
            closeable.close();
        }
    }

    /** @return the platform name the specs carry (the trials' {@code NNI_PLATFORM}) */
    protected String platform() {
        return "contract";
    }

    /** @return the address the workers reach this machine at; loopback by default */
    protected String managerHost() {
        return "127.0.0.1";
    }

    /**
     * @return a launcher whose {@code start} cannot succeed at all (refused credentials, a cluster that
     *         does not exist), or null when the test cannot make one (that test is then skipped)
     */
    protected EnvironmentLauncher launcherThatCannotStart() throws Exception {
        return null;
    }

    /**
     * @return a launcher whose {@code start} cannot succeed now but may later (a quota, a cluster
     *         answering 503), or null when the test cannot make one (that test is then skipped)
     */
    protected EnvironmentLauncher launcherThatCannotStartNow() throws Exception {
        return null;
    }

    /** @return how long a wait for one keeper's report or end may take at most */
    protected Duration patience() {
        return Duration.ofMinutes(2);
    }

    /** @return where the tests put their code archives (one new folder per test, removed after it) */
    protected Path scratchDirectory() throws IOException {
        return Path.of(System.getProperty("java.io.tmpdir"));
    }

    // ------------------------------------------------------------------ the contract

    @Test
    public void anEnvironmentRunsItsSpecsKeeperWhoseReportsArrive() throws Exception {
        EnvironmentSpec spec = expectTrialKeeper("finish");

        Started environment = start(spec);

        Map<String, Object> hello = manager.awaitHandshake(spec.environmentId(), patience());
        assertEquals("the keeper's mode: " + hello, "trial", hello.get("mode"));
        assertEquals("the keeper's platform: " + hello, spec.platform(), hello.get("platform"));
        Map<String, Object> ended = awaitEnded(spec.environmentId());
        assertEquals("the trial's exit code: " + manager.reports(spec.environmentId()), 0L, ended.get("code"));
        List<String> kinds = manager.reports(spec.environmentId()).stream().map(r -> (String) r.get("kind")).toList();
        assertEquals("the keeper's reports, in order", List.of("started", "metric", "ended"), kinds);
        String metric = (String) manager.reports(spec.environmentId()).get(1).get("line");
        assertTrue("the trial ran from the spec's code archive, seeing the spec's platform and experiment: " + metric,
                metric.contains(spec.platform() + " " + spec.experimentId()));
        String why = awaitGone(environment);
        assertFalse("ended() describes why", why == null || why.isBlank());
        assertEquals("no keeper was refused", List.of(), manager.refusals());
        environment.assertKeepsTheRules(spec);
    }

    @Test
    public void aKeeperExitingWithAFailureEndsTheEnvironmentNormally() throws Exception {
        EnvironmentSpec spec = expectTrialKeeper("fail 3");

        Started environment = start(spec);

        assertEquals(3L, awaitEnded(spec.environmentId()).get("code"));
        String why = awaitGone(environment);
        assertFalse("ended() describes why", why == null || why.isBlank());
        environment.assertKeepsTheRules(spec);
    }

    @Test
    public void stopEndsARunningEnvironmentAndMayBeRepeated() throws Exception {
        EnvironmentSpec spec = expectTrialKeeper("hold");

        Started environment = start(spec);

        assertFalse("start returned while its keeper's trial holds: it cannot have ended",
                environment.launched.ended().toCompletableFuture().isDone());
        manager.awaitReport(spec.environmentId(), r -> "started".equals(r.get("kind")), "its trial's start", patience());
        assertTokenOnNoCommandLine(spec);

        environment.launched.stop();
        awaitGone(environment);
        environment.launched.stop();

        assertEquals("reattach of an environment that is gone", Optional.empty(),
                launcher.reattach(spec.environmentId(), environment.launched.handle()));
        environment.assertKeepsTheRules(spec);
    }

    @Test
    public void aRunnerTakesTrialsAndEndsWhenTheManagerStopsIt() throws Exception {
        EnvironmentSpec spec = expect("runner", null);

        Started environment = start(spec);

        Map<String, Object> hello = manager.awaitHandshake(spec.environmentId(), patience());
        assertEquals("the keeper's mode: " + hello, "runner", hello.get("mode"));
        manager.awaitReport(spec.environmentId(), r -> "ready".equals(r.get("kind")), "ready", patience());
        String trial = spec.environmentId() + "-t1";
        manager.command(spec.environmentId(), "new-trial", Map.of("trial", trial, "sequenceId", 0L,
                "parameter", Map.of("value", parameters("finish"), "index", 0L)));
        Map<String, Object> ended = manager.awaitReport(spec.environmentId(),
                r -> "ended".equals(r.get("kind")) && trial.equals(r.get("trial")), "the end of trial " + trial, patience());
        assertEquals(0L, ended.get("code"));
        assertFalse("a runner lives on after its trial", environment.launched.ended().toCompletableFuture().isDone());

        manager.command(spec.environmentId(), "stop", Map.of());

        awaitGone(environment);
        environment.assertKeepsTheRules(spec);
    }

    @Test
    public void detachLeavesTheKeeperRunningAndReattachFindsItOrNothing() throws Exception {
        EnvironmentSpec spec = expectTrialKeeper("hold");
        Started environment = start(spec);
        manager.awaitReport(spec.environmentId(), r -> "started".equals(r.get("kind")), "its trial's start", patience());
        String handle = environment.launched.handle();

        environment.detached = true;
        environment.launched.detach();
        environment.launched.detach();
        detachedKeepers.add(spec.environmentId());

        manager.awaitPollsAbove(spec.environmentId(), manager.polls(spec.environmentId()), patience());
        Optional<LaunchedEnvironment> again = launcher.reattach(spec.environmentId(), handle);
        if (again.isPresent()) {
            Started reattached = new Started(spec.environmentId(), again.get(), environment.listened);
            started.add(reattached);
            assertFalse("the reattached environment still runs", again.get().ended().toCompletableFuture().isDone());
            again.get().stop();
            awaitGone(reattached);
            reattached.assertKeepsTheRules(spec);
        } else {
            // nothing to stop it with but the manager's side, as the manager would
            manager.command(spec.environmentId(), "kill", Map.of("trial", spec.environmentId()));
            awaitEnded(spec.environmentId());
        }
        detachedKeepers.remove(spec.environmentId());
        assertFalse("ended() of a detached environment never completes",
                environment.launched.ended().toCompletableFuture().isDone());
        environment.assertKeepsTheRules(spec);
    }

    @Test
    public void environmentsStartedFromTwoThreadsAtOnceRunTheirOwnKeepers() throws Exception {
        EnvironmentSpec first = expectTrialKeeper("finish");
        EnvironmentSpec second = expectTrialKeeper("finish");
        CyclicBarrier together = new CyclicBarrier(2);
        CompletableFuture<Started> other = CompletableFuture.supplyAsync(() -> {
            try {
                together.await(patience().toMillis(), TimeUnit.MILLISECONDS);
                return start(second);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        together.await(patience().toMillis(), TimeUnit.MILLISECONDS);
        Started one = start(first);
        Started two = other.get(patience().toMillis(), TimeUnit.MILLISECONDS);

        for (EnvironmentSpec spec : List.of(first, second)) {
            assertEquals("trial " + spec.environmentId(), 0L, awaitEnded(spec.environmentId()).get("code"));
        }
        awaitGone(one);
        awaitGone(two);
        assertEquals("no keeper was refused", List.of(), manager.refusals());
        one.assertKeepsTheRules(first);
        two.assertKeepsTheRules(second);
    }

    @Test
    public void aLauncherThatCannotStartThrowsAPlatformException() throws Exception {
        EnvironmentLauncher refusing = launcherThatCannotStart();
        assumeTrue("the test says how to make a launcher that cannot start", refusing != null);
        try {
            EnvironmentSpec spec = expectTrialKeeper("finish");
            try {
                LaunchedEnvironment launched = refusing.start(spec, (state, message) -> { });
                launched.stop();
                fail("start returned an environment: " + launched);
            } catch (TransientPlatformException e) {
                throw new AssertionError("a launcher that cannot start at all threw a transient exception", e);
            } catch (PlatformException e) {
                assertMessageWithoutToken(e, spec);
            }
        } finally {
            closeLauncher(refusing);
        }
    }

    @Test
    public void aLauncherThatCannotStartNowThrowsATransientPlatformException() throws Exception {
        EnvironmentLauncher busy = launcherThatCannotStartNow();
        assumeTrue("the test says how to make a launcher that cannot start now", busy != null);
        try {
            EnvironmentSpec spec = expectTrialKeeper("finish");
            try {
                LaunchedEnvironment launched = busy.start(spec, (state, message) -> { });
                launched.stop();
                fail("start returned an environment: " + launched);
            } catch (TransientPlatformException e) {
                assertMessageWithoutToken(e, spec);
            }
        } finally {
            closeLauncher(busy);
        }
    }

    // ------------------------------------------------------------------ the manager's side

    @Before
    public final void standInManagerAndLauncher() throws Exception {
        work = Files.createTempDirectory(scratchDirectory(), "nni-launcher-contract-");
        codeArchive = CodeArchive.write(work.resolve("nni-code.tar.gz"), Map.of(TRIAL_SCRIPT, String.join("\n",
                "#!/bin/sh",
                "# nni.api.testkit launcher contract trial: finish | fail CODE | hold",
                "case \"$1\" in",
                "  hold) n=0; while [ $n -lt 600 ]; do sleep 1; n=$((n+1)); done; exit 0;;",
                "  fail) echo \"failing with $2 on purpose\" >&2; exit \"$2\";;",
                "esac",
                "echo \"NNISDK_MEb'{\\\"parameter_id\\\": 0, \\\"trial_job_id\\\": \\\"$NNI_TRIAL_JOB_ID\\\", \\\"type\\\": \\\"FINAL\\\","
                        + " \\\"sequence\\\": 0, \\\"value\\\": \\\"$NNI_PLATFORM $NNI_EXP_ID\\\"}'\"",
                "exit 0",
                "")));
        experimentId = "lc" + word(6);
        manager = new StandInManager();
        launcher = launcher();
    }

    /**
     * Stops every environment the test started that still runs (through the launcher), ends the
     * keepers of environments left detached (through the manager's side), ends the launcher and the
     * stand-in manager, and removes the test's folder.
     */
    @After
    public final void stopEverythingAndRemoveTheFolder() throws Exception {
        List<Throwable> failures = new ArrayList<>();
        try {
            for (String keeper : detachedKeepers) { // a test that failed after detaching: the manager ends its keeper
                run(failures, () -> {
                    manager.command(keeper, "stop", Map.of());
                    awaitEnded(keeper);
                });
            }
            for (Started environment : started) {
                if (!environment.detached) {
                    run(failures, environment.launched::stop);
                }
            }
            for (Started environment : started) {
                if (!environment.detached) {
                    run(failures, () -> awaitGone(environment));
                }
            }
        } finally {
            if (launcher != null) {
                run(failures, () -> closeLauncher(launcher));
            }
            if (manager != null) {
                run(failures, manager::close);
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

    private EnvironmentSpec expectTrialKeeper(String trial) throws Exception {
        return expect("trial", trial);
    }

    /** A spec for one new keeper, which the stand-in manager then expects. */
    private EnvironmentSpec expect(String mode, String trial) throws Exception {
        String keeperId = "e" + word(8);
        byte[] secret = new byte[16];
        RANDOM.nextBytes(secret);
        String token = HexFormat.of().formatHex(secret);
        EnvironmentSpec.Builder spec = EnvironmentSpec.builder(keeperId).mode(mode).platform(platform()).experimentId(experimentId)
                .managerUrl(manager.url(managerHost())).token(token).codeArchive(codeArchive)
                .trialCommand("sh " + TRIAL_SCRIPT + " " + (trial == null ? "finish" : trial));
        keeperFiles().forEach(spec::keeperFile);
        manager.expect(experimentId, keeperId, token, trial == null ? null : parameters(trial));
        return spec.build();
    }

    private static String parameters(String trial) {
        return "{\"parameter_id\": 0, \"parameter_source\": \"algorithm\", \"parameters\": {\"contract\": \"" + trial
                + "\"}, \"parameter_index\": 0}";
    }

    private Started start(EnvironmentSpec spec) throws PlatformException {
        List<String> heard = new CopyOnWriteArrayList<>();
        Started[] holder = new Started[1];
        EnvironmentListener listener = (state, message) -> {
            Started self = holder[0];
            boolean afterEnd = self != null && self.launched.ended().toCompletableFuture().isDone();
            heard.add((afterEnd ? "AFTER END " : "") + state + ": " + message);
        };
        LaunchedEnvironment launched = launcher.start(spec, listener);
        assertNotNull("start returned no environment", launched);
        Started environment = new Started(spec.environmentId(), launched, heard);
        holder[0] = environment;
        started.add(environment);
        return environment;
    }

    private Map<String, Object> awaitEnded(String keeperId) throws InterruptedException {
        return manager.awaitReport(keeperId, r -> "ended".equals(r.get("kind")), "its trial's end", patience());
    }

    /** @return the description {@code ended()} completed with */
    private String awaitGone(Started environment) throws InterruptedException, ExecutionException {
        try {
            return environment.launched.ended().toCompletableFuture().get(patience().toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new AssertionError("environment " + environment.environmentId + " did not end within " + patience().toSeconds()
                    + " s; its keeper's reports: " + manager.reports(environment.environmentId));
        } catch (ExecutionException e) {
            throw new AssertionError("ended() of environment " + environment.environmentId
                    + " completed exceptionally; it completes normally, whatever the reason", e.getCause());
        }
    }

    /**
     * The token is never on a command line: checked on this machine's processes while the keeper
     * runs, which covers launchers whose workers are local processes (emulators, local keepers).
     */
    private static void assertTokenOnNoCommandLine(EnvironmentSpec spec) {
        List<String> carrying = ProcessHandle.allProcesses()
                .filter(p -> p.info().commandLine().map(line -> line.contains(spec.token())).orElse(false))
                .map(p -> "pid " + p.pid()).toList();
        assertEquals("processes with the keeper's token on their command line", List.of(), carrying);
    }

    private static void assertMessageWithoutToken(PlatformException e, EnvironmentSpec spec) {
        assertFalse("the exception says why", e.getMessage() == null || e.getMessage().isBlank());
        assertFalse("the exception's message carries the token: " + e.getMessage(), e.getMessage().contains(spec.token()));
    }

    /** One environment the test started, with what its listener heard. */
    private static final class Started {
        final String environmentId;
        final LaunchedEnvironment launched;
        final List<String> listened;
        /** Detached by the test: its {@code ended()} never completes, nothing stops it through it. */
        volatile boolean detached;

        Started(String environmentId, LaunchedEnvironment launched, List<String> listened) {
            this.environmentId = environmentId;
            this.launched = launched;
            this.listened = listened;
        }

        /** Nothing heard after the end; nothing it tells carries the token. */
        void assertKeepsTheRules(EnvironmentSpec spec) {
            for (String heard : listened) {
                assertFalse("the listener heard something after ended() completed: " + listened, heard.startsWith("AFTER END"));
            }
            Map<String, String> told = new LinkedHashMap<>();
            told.put("handle", launched.handle());
            told.put("url", launched.url());
            told.put("host", launched.host());
            told.put("attributes", String.valueOf(launched.attributes()));
            told.put("state messages", String.valueOf(listened));
            CompletableFuture<String> end = launched.ended().toCompletableFuture();
            if (end.isDone() && !end.isCompletedExceptionally()) {
                told.put("end", end.join());
            }
            told.forEach((what, text) -> assertFalse("the environment's " + what + " carries the token",
                    text != null && text.contains(spec.token())));
            assertTrue("states are those of EnvironmentState", listened.stream()
                    .allMatch(heard -> Stream.of(EnvironmentState.values()).anyMatch(s -> heard.startsWith(s + ": "))));
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

    private static String word(int length) {
        String letters = "abcdefghijklmnopqrstuvwxyz0123456789";
        StringBuilder word = new StringBuilder();
        for (int i = 0; i < length; i++) {
            word.append(letters.charAt(RANDOM.nextInt(letters.length())));
        }
        return word.toString();
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
}
