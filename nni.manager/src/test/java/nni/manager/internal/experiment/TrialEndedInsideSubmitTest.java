package nni.manager.internal.experiment;

import static org.awaitility.Awaitility.await;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.junit.Test;

import nni.api.model.TrialStatus;

/**
 * A platform may answer a submit with the trial already ended (a process that exited before the
 * submit returned). That end asks for the next fill while the fill that submitted is still running:
 * the experiment must neither leave DONE for NO_MORE_TRIAL (an experiment ending within its create
 * under load stayed NO_MORE_TRIAL for good) nor run more trials than its concurrency.
 */
public class TrialEndedInsideSubmitTest extends ExperimentTestSupport {

    /** The experiment's statuses, as its listeners heard them, on its thread. */
    private final List<ExperimentStatus> statuses = new CopyOnWriteArrayList<>();
    private HeldSession session;

    private void start(int concurrency, int maxTrials, int endingInsideSubmit) throws Exception {
        setup.concurrency = concurrency;
        setup.maxTrials = maxTrials;
        experiment = Experiment.create("inside01", setup.config());
        experiment.listen(new ExperimentManager.Listener() {
            @Override
            public void opened(Experiment opened) {
            }

            @Override
            public void changed(Experiment changed) {
                statuses.add(changed.status());
            }

            @Override
            public void closed(Experiment closed, boolean stopped) {
            }
        });
        experiment.start(JavaRuns.of(experiment, new ListTuner(maxTrials), null), member -> {
            session = new HeldSession(member);
            session.endingInsideSubmit = endingInsideSubmit;
            return session;
        });
    }

    @Test(timeout = 30_000)
    public void anExperimentWhoseLastTrialEndsInsideItsSubmitStaysDone() throws Exception {
        start(1, 1, 1);
        assertEquals(ExperimentStatus.DONE, experiment.settled().get(20, TimeUnit.SECONDS));
        experiment.detach(); // waits for the experiment's thread: whatever followed the DONE has happened
        assertEquals(statuses.toString(), ExperimentStatus.DONE, statuses.get(statuses.size() - 1));
        assertEquals(ExperimentStatus.DONE, experiment.status());
        assertEquals(1, session.submitted.size());
    }

    @Test(timeout = 30_000)
    public void aTrialEndingInsideItsSubmitLeavesNoMoreThanTheConcurrencyRunning() throws Exception {
        start(2, 4, 1);
        await().atMost(Duration.ofSeconds(20)).until(() -> session.submitted.size() >= 3);
        session.finish(session.submitted.get(1), List.of(), 1.0, TrialStatus.SUCCEEDED);
        session.finish(session.submitted.get(2), List.of(), 1.0, TrialStatus.SUCCEEDED);
        await().atMost(Duration.ofSeconds(20)).until(() -> session.submitted.size() == 4);
        session.finish(session.submitted.get(3), List.of(), 1.0, TrialStatus.SUCCEEDED);
        assertEquals(ExperimentStatus.DONE, experiment.settled().get(20, TimeUnit.SECONDS));
        assertTrue("at most 2 trials run at once, the session had " + session.mostRunning(), session.mostRunning() <= 2);
        assertEquals(4, session.submitted.size());
    }
}
