package nni.manager.internal.experiment;

import static org.awaitility.Awaitility.await;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.InputStream;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.After;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import nni.api.experiment.ExperimentUpdate;
import nni.api.model.TrialApplication;
import nni.api.model.TrialJob;
import nni.api.model.TrialStatus;
import nni.api.platform.Capacity;
import nni.api.platform.PlatformException;
import nni.api.platform.SessionContext;
import nni.api.platform.TrainingSession;
import nni.api.platform.TransientPlatformException;
import nni.api.platform.Backoff;

/**
 * What the manager does with a platform's outcomes (issue 10): a transient refusal keeps the trial
 * WAITING with its reason and submits it again (same id and sequence id); a permanent one fails it;
 * a passing problem of a running trial is shown as its message; platform facts are kept; a
 * capacity signal makes the experiment submit; detach leaves the trials to the platform.
 */
public class SessionOutcomesTest {

    @Rule
    public TemporaryFolder folder = new TemporaryFolder();

    private Experiment experiment;

    @After
    public void tearDown() {
        if (experiment != null) {
            experiment.detach();
        }
    }

    /** A platform that refuses as told and otherwise keeps its trials RUNNING until the test ends them. */
    private static final class ScriptedSession implements TrainingSession {
        final SessionContext context;
        final List<TrialApplication> submitted = new CopyOnWriteArrayList<>();
        final AtomicInteger transientRefusals = new AtomicInteger();
        volatile boolean permanentRefusal;
        volatile Capacity capacity = Capacity.unknown();
        volatile boolean detached;
        volatile boolean closed;

        ScriptedSession(SessionContext context) {
            this.context = context;
        }

        @Override
        public TrialJob submit(TrialApplication application) throws PlatformException {
            submitted.add(application);
            if (permanentRefusal) {
                throw new PlatformException("needs 9 GPUs, the platform has 8");
            }
            if (transientRefusals.getAndDecrement() > 0) {
                throw new TransientPlatformException("quota exceeded", Duration.ofMillis(50));
            }
            TrialJob running = TrialJob.waiting(application, "", "").toBuilder().handle("job-" + application.trialId())
                    .host("node-7").attribute("queue", "default").build().running(Instant.now());
            context.trialChanged(running);
            return running;
        }

        void end(TrialJob trial) {
            context.trialChanged(trial.ended(TrialStatus.SUCCEEDED, Instant.now(), ""));
        }

        @Override
        public void cancel(String trialId, boolean earlyStopped) {
        }

        @Override
        public Optional<TrialJob> trial(String trialId) {
            return Optional.empty();
        }

        @Override
        public List<TrialJob> trials() {
            return List.of();
        }

        @Override
        public Optional<InputStream> openTrialFile(String trialId, String name) {
            return Optional.empty();
        }

        @Override
        public Capacity capacity() {
            return capacity;
        }

        @Override
        public void close() {
            closed = true;
        }

        @Override
        public void detach() {
            detached = true;
        }
    }

    private ScriptedSession start(int concurrency, int maxTrials) throws Exception {
        Path code = folder.newFolder("code").toPath();
        Experiments setup = new Experiments(code, folder.newFolder("work").toPath());
        setup.concurrency = concurrency;
        setup.maxTrials = maxTrials;
        ScriptedSession[] session = new ScriptedSession[1];
        experiment = Experiment.create("outcome1", setup.config());
        experiment.start(JavaRuns.of(experiment, new ListTuner(maxTrials), null), member -> session[0] = new ScriptedSession(member));
        return session[0];
    }

    private TrialView only() {
        List<TrialView> trials = experiment.trials();
        assertEquals(trials.toString(), 1, trials.size());
        return trials.get(0);
    }

    @Test(timeout = 30_000)
    public void aTransientRefusalKeepsTheTrialWaitingAndSubmitsItAgain() throws Exception {
        Path code = folder.newFolder("code").toPath();
        Experiments setup = new Experiments(code, folder.newFolder("work").toPath());
        setup.maxTrials = 1;
        ScriptedSession[] session = new ScriptedSession[1];
        experiment = Experiment.create("outcome2", setup.config());
        // what the trial went through, as the manager's listeners (the web UI's live stream) are told of it
        List<String> seen = new CopyOnWriteArrayList<>();
        experiment.listen(new ExperimentManager.Listener() {
            @Override
            public void opened(Experiment experiment) {
            }

            @Override
            public void changed(Experiment experiment) {
            }

            @Override
            public void closed(Experiment experiment, boolean stopped) {
            }

            @Override
            public void trialChanged(Experiment experiment, String trialId) {
                experiment.trial(trialId).map(TrialView::job).ifPresent(job -> seen.add(job.status() + " " + job.message()));
            }
        });
        experiment.start(JavaRuns.of(experiment, new ListTuner(1), null), member -> {
            session[0] = new ScriptedSession(member);
            session[0].transientRefusals.set(3);
            return session[0];
        });
        await().atMost(Duration.ofSeconds(20)).until(() -> seen.contains("RUNNING "));
        // each refusal was shown as the trial's reason while it waited, and the reason went when it ran
        String refused = "WAITING retrying in 1 s: quota exceeded";
        assertEquals(seen.toString(), 3, seen.stream().filter(refused::equals).count());
        int running = seen.indexOf("RUNNING ");
        assertTrue(seen.toString(), running > seen.lastIndexOf(refused));
        assertTrue("before it ran, it waited: " + seen, seen.subList(0, running).stream().allMatch(s -> s.startsWith("WAITING ")));
        assertEquals(List.of(), experiment.trials().stream().filter(t -> t.job().status().isTerminal()).toList());
        List<TrialApplication> tries = session[0].submitted;
        assertEquals(4, tries.size());
        assertEquals("the same trial each time", 1, tries.stream().map(TrialApplication::trialId).distinct().count());
        assertEquals(0, tries.get(3).sequenceId());
        assertEquals("", only().job().message());
        // the platform's facts are kept with the trial and in the store
        assertEquals("node-7", only().job().host());
        assertEquals("job-" + only().job().id(), experiment.store().trialPlatforms().get(only().job().id()).handle());
    }

    @Test(timeout = 30_000)
    public void aPermanentRefusalFailsTheTrialWithTheMessage() throws Exception {
        Path code = folder.newFolder("code").toPath();
        Experiments setup = new Experiments(code, folder.newFolder("work").toPath());
        setup.maxTrials = 1;
        experiment = Experiment.create("outcome3", setup.config());
        experiment.start(JavaRuns.of(experiment, new ListTuner(1), null), member -> {
            ScriptedSession session = new ScriptedSession(member);
            session.permanentRefusal = true;
            return session;
        });
        assertEquals(ExperimentStatus.DONE, experiment.settled().get(10, TimeUnit.SECONDS));
        assertEquals(TrialStatus.FAILED, only().job().status());
        assertEquals("needs 9 GPUs, the platform has 8", only().job().message());
    }

    @Test(timeout = 30_000)
    public void aPassingProblemOfARunningTrialIsShownAndFactsAreKeptWhenAReportLeavesThemOut() throws Exception {
        ScriptedSession session = start(1, 1);
        await().atMost(Duration.ofSeconds(10)).until(() -> only().job().status() == TrialStatus.RUNNING);
        TrialJob running = only().job();
        session.context.trialChanged(running.toBuilder().handle("").host("").attributes(java.util.Map.of())
                .message("node-7 is restarting; the trial resumes when it is back").build());
        await().atMost(Duration.ofSeconds(10)).until(() -> only().job().message().startsWith("node-7 is restarting"));
        assertEquals(TrialStatus.RUNNING, only().job().status());
        assertEquals("node-7", only().job().host());
        assertEquals(running.handle(), only().job().handle());
        session.end(only().job());
        assertEquals(ExperimentStatus.DONE, experiment.settled().get(10, TimeUnit.SECONDS));
    }

    @Test(timeout = 30_000)
    public void aSessionWithoutFreeSlotsGetsNothingUntilItSignalsCapacity() throws Exception {
        Path code = folder.newFolder("code").toPath();
        Experiments setup = new Experiments(code, folder.newFolder("work").toPath());
        setup.concurrency = 4;
        setup.maxTrials = 3;
        ScriptedSession[] session = new ScriptedSession[1];
        experiment = Experiment.create("outcome4", setup.config());
        experiment.start(JavaRuns.of(experiment, new ListTuner(3), null), member -> {
            session[0] = new ScriptedSession(member);
            session[0].capacity = Capacity.freeTrialSlots(1);
            return session[0];
        });
        await().atMost(Duration.ofSeconds(10)).until(() -> experiment.trials().size() == 1);
        session[0].capacity = Capacity.freeTrialSlots(0);
        session[0].end(experiment.trials().get(0).job());
        await().atMost(Duration.ofSeconds(10)).until(() -> experiment.trials().get(0).job().status() == TrialStatus.SUCCEEDED);
        experiment.update(ExperimentUpdate.of(ExperimentUpdate.MAX_TRIAL_NUMBER, 3).value()); // runs on the experiment's thread after the end, and fills again
        assertEquals("no free slot: nothing submitted although the concurrency allows 4", 1, session[0].submitted.size());
        session[0].capacity = Capacity.freeTrialSlots(2);
        session[0].context.capacityChanged();
        await().atMost(Duration.ofSeconds(10)).until(() -> session[0].submitted.size() == 3);
        assertEquals(3, experiment.trials().size());
    }

    @Test(timeout = 30_000)
    public void detachingLeavesTheTrialsToThePlatformAndClosesNothing() throws Exception {
        ScriptedSession session = start(1, 1);
        await().atMost(Duration.ofSeconds(10)).until(() -> only().job().status() == TrialStatus.RUNNING);
        Experiment detached = experiment;
        experiment = null;
        detached.detach();
        assertTrue(session.detached);
        assertTrue("close is for the user's stop only", !session.closed);
    }

    @Test
    public void backoffDoublesFromOneSecondToAMinute() {
        assertEquals(List.of(1L, 2L, 4L, 8L, 16L, 32L, 60L, 60L), java.util.stream.IntStream.rangeClosed(1, 8)
                .mapToObj(failures -> Backoff.delay(failures).toSeconds()).toList());
        assertEquals(Duration.ofSeconds(7), Backoff.delay(1, new TransientPlatformException("busy", Duration.ofSeconds(7))));
        assertEquals("retrying in 2 s: busy", Backoff.message(Duration.ofMillis(1500), "busy"));
    }
}
