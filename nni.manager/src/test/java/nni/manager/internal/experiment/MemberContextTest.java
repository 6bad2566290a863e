package nni.manager.internal.experiment;

import static org.awaitility.Awaitility.await;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.Test;

import nni.api.model.TrialJob;
import nni.api.model.TrialStatus;

/**
 * The one hop between a platform and the experiment (issue 27): a member's context forwards a
 * platform's reports until its session is detached, then drops statuses and refuses metrics
 * (naming why the platform left), while the context of the member's next session forwards again.
 */
public class MemberContextTest extends ExperimentTestSupport {

    @Test
    public void aDetachedSessionsContextForwardsNothingAndTheNextSessionsContextForwards() throws Exception {
        setup.maxTrials = 1;
        List<HeldSession> sessions = new CopyOnWriteArrayList<>();
        // as the manager opens a member's sessions: each with a context of its own
        experiment = setup.startWith("member01", new ListTuner(1), context -> {
            HeldSession session = new HeldSession(((MemberContext) context).forNextSession());
            sessions.add(session);
            return session;
        });
        await().atMost(Duration.ofSeconds(30)).until(() -> sessions.size() == 1 && sessions.get(0).submitted.size() == 1);
        MemberContext first = (MemberContext) sessions.get(0).context();
        String trialId = sessions.get(0).submitted.get(0);
        TrialJob running = experiment.trial(trialId).orElseThrow().job();

        first.platformLost("platform 'local' is away: bundle nni.ts.local stopped");
        first.detached();

        IllegalStateException refused = assertThrows(IllegalStateException.class,
                () -> first.metricReported(trialId, "{\"type\":\"FINAL\",\"sequence\":0,\"value\":0.5}"));
        assertEquals("the local session of experiment member01 is detached (platform 'local' is away: bundle nni.ts.local stopped)",
                refused.getMessage());
        assertThrows(IllegalStateException.class,
                () -> first.metricsReported(trialId, List.of("{\"type\":\"FINAL\",\"sequence\":0,\"value\":0.5}")));
        first.trialChanged(running.ended(TrialStatus.SUCCEEDED, Instant.now(), ""));
        // the experiment's thread takes its work in order: once this call is answered, a forwarded status would have been taken
        assertThrows(IllegalArgumentException.class, () -> experiment.cancelTrial("no-such-trial"));
        TrialView kept = experiment.trial(trialId).orElseThrow();
        assertEquals("the late status was dropped", TrialStatus.RUNNING, kept.job().status());
        assertEquals("the late metric was not stored", List.of(), experiment.store().metrics(trialId, "FINAL"));
        assertTrue(kept.job().message(), kept.job().message().contains("bundle nni.ts.local stopped"));

        MemberContext next = first.forNextSession();
        next.metricReported(trialId, "{\"type\":\"FINAL\",\"sequence\":0,\"value\":0.5}");
        assertEquals("the next session's metric is stored before the call returns", 1,
                experiment.store().metrics(trialId, "FINAL").size());
    }
}
