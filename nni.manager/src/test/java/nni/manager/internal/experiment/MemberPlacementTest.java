package nni.manager.internal.experiment;

import static org.awaitility.Awaitility.await;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.Test;

import nni.api.model.TrialStatus;
import nni.api.platform.Capacity;
import nni.api.platform.PlatformException;

/**
 * Hybrid experiments: each training service of the list is a member with its own context and
 * session; trials go to the member with the most reported room, within the experiment-wide
 * concurrency; a member that cannot open or whose platform leaves does not stop the others; a
 * trial's member is shown and survives a resume.
 */
public class MemberPlacementTest extends ExperimentTestSupport {

    private final Map<String, HeldSession> machines = new ConcurrentHashMap<>();

    private HeldSession machine(MemberContext member, int freeSlots) {
        HeldSession machine = new HeldSession(member);
        machine.capacity = freeSlots < 0 ? Capacity.unknown() : Capacity.freeTrialSlots(freeSlots);
        machines.put(member.platform(), machine);
        return machine;
    }

    @Test
    public void trialsGoToTheMemberWithTheMostRoomAndEachMemberHasItsOwnContext() throws Exception {
        setup.concurrency = 4;
        setup.maxTrials = 6;
        experiment = Experiment.create("hybrid01", setup.hybridConfig("small", "large"));
        experiment.start(JavaRuns.of(experiment, new ListTuner(6), null), member -> machine(member, member.platform().equals("small") ? 1 : 3));
        HeldSession small = machines.get("small");
        HeldSession large = machines.get("large");

        await().atMost(Duration.ofSeconds(10)).until(() -> small.submitted.size() + large.submitted.size() == 4);
        assertEquals("the larger member takes three, the smaller one", 3, large.submitted.size());
        assertEquals(1, small.submitted.size());
        assertEquals("member 0 (small)", 0, ((MemberContext) small.context()).index());
        assertEquals("each member's context gives its own section", "large", large.context().section().get("platform"));
        assertEquals("each trial shows its member's platform", "small", experiment.trial(small.submitted.get(0)).orElseThrow().platform());
        assertEquals("large", experiment.summaries().stream().filter(t -> t.job().id().equals(large.submitted.get(0)))
                .findFirst().orElseThrow().platform());

        // room on the small member only: the next trial goes there
        large.capacity = Capacity.freeTrialSlots(0);
        small.capacity = Capacity.freeTrialSlots(1);
        small.finish(small.submitted.get(0), List.of(), null, TrialStatus.SUCCEEDED);
        await().atMost(Duration.ofSeconds(10)).until(() -> small.submitted.size() == 2);
        assertEquals(3, large.submitted.size());

        // a member's report about another member's trial is not taken
        String largeTrial = large.submitted.get(0);
        small.context().trialChanged(large.trial(largeTrial).orElseThrow().ended(TrialStatus.FAILED, Instant.now(), "wrong member"));
        large.finish(large.submitted.get(1), List.of(), null, TrialStatus.SUCCEEDED);
        await().atMost(Duration.ofSeconds(10)).until(() -> experiment.trial(large.submitted.get(1)).orElseThrow().job().status()
                == TrialStatus.SUCCEEDED);
        assertEquals(TrialStatus.RUNNING, experiment.trial(largeTrial).orElseThrow().job().status());
    }

    @Test
    public void theConcurrencyIsExperimentWideAndMembersThatCannotTellShareIt() throws Exception {
        setup.concurrency = 3;
        setup.maxTrials = 10;
        experiment = Experiment.create("hybrid02", setup.hybridConfig("a", "b"));
        experiment.start(JavaRuns.of(experiment, new ListTuner(10), null), member -> machine(member, -1));
        HeldSession a = machines.get("a");
        HeldSession b = machines.get("b");
        await().atMost(Duration.ofSeconds(10)).until(() -> a.submitted.size() + b.submitted.size() == 3);
        assertEquals("fewest running first: 2 and 1", 1, Math.abs(a.submitted.size() - b.submitted.size()));
        // a member's own limit: b says it is full, so the freed slot goes to a even though b ran fewer
        HeldSession fewer = a.submitted.size() < b.submitted.size() ? a : b;
        HeldSession more = fewer == a ? b : a;
        fewer.capacity = Capacity.freeTrialSlots(0);
        int before = more.submitted.size();
        more.finish(more.submitted.get(0), List.of(), 1.0, TrialStatus.SUCCEEDED);
        await().atMost(Duration.ofSeconds(10)).until(() -> more.submitted.size() == before + 1);
        assertEquals(1, fewer.submitted.size());
        assertEquals("never more than trialConcurrency at once", 3, experiment.trials().stream().filter(t -> !t.job().status()
                .isTerminal()).count());
    }

    @Test
    public void aMemberThatKnowsItsRoomIsNotStarvedByOneThatCannotTellAndGetsNoMoreThanItsRoom() throws Exception {
        setup.concurrency = 4;
        setup.maxTrials = 8;
        experiment = Experiment.create("hybrid06", setup.hybridConfig("cluster", "machine"));
        experiment.start(JavaRuns.of(experiment, new ListTuner(8), null), member -> machine(member, member.platform().equals("cluster") ? -1 : 1));
        HeldSession cluster = machines.get("cluster");
        HeldSession machine = machines.get("machine");
        await().atMost(Duration.ofSeconds(10)).until(() -> cluster.submitted.size() + machine.submitted.size() == 4);
        assertEquals("the machine's one slot is used", 1, machine.submitted.size());
        assertEquals(3, cluster.submitted.size());
    }

    @Test
    public void aMemberThatCannotOpenLeavesTheOthersRunningAndOpensWhenItsPlatformArrives() throws Exception {
        setup.concurrency = 2;
        setup.maxTrials = 4;
        AtomicBoolean brokenOpens = new AtomicBoolean();
        experiment = Experiment.create("hybrid03", setup.hybridConfig("good", "broken"));
        experiment.start(JavaRuns.of(experiment, new ListTuner(4), null), member -> {
            if (member.platform().equals("broken") && !brokenOpens.get()) {
                throw new PlatformException("host 192.0.2.1 does not answer");
            }
            return machine(member, 1);
        });
        HeldSession good = machines.get("good");
        await().atMost(Duration.ofSeconds(10)).until(() -> good.submitted.size() == 1);
        assertEquals(ExperimentStatus.RUNNING, experiment.status());
        assertEquals("trainingService[1] (broken) could not be opened: host 192.0.2.1 does not answer",
                experiment.waitingForPlatform().orElseThrow());

        brokenOpens.set(true);
        experiment.platformArrived("broken");
        await().atMost(Duration.ofSeconds(10)).until(() -> machines.containsKey("broken") && machines.get("broken").submitted.size() == 1);
        await().atMost(Duration.ofSeconds(10)).until(() -> experiment.waitingForPlatform().isEmpty());
        assertEquals("broken", experiment.trial(machines.get("broken").submitted.get(0)).orElseThrow().platform());
    }

    /**
     * A platform may be registered before it can open a session (the local platform back before the
     * keeper bundle being updated, a component still activating), and no further arrival may come:
     * the member is asked again (Backoff) until it opens, then takes trials.
     */
    @Test
    public void aPlatformThatIsBackButRefusesTheSessionIsAskedAgainUntilItOpens() throws Exception {
        setup.concurrency = 2;
        setup.maxTrials = 4;
        AtomicBoolean opens = new AtomicBoolean(true);
        AtomicInteger refusals = new AtomicInteger();
        experiment = Experiment.create("hybrid07", setup.hybridConfig("good", "returning"));
        experiment.start(JavaRuns.of(experiment, new ListTuner(4), null), member -> {
            if (member.platform().equals("returning") && !opens.get()) {
                refusals.incrementAndGet();
                throw new PlatformException("reuseMode needs the keeper sessions of bundle nni.keeper, which is not active");
            }
            return machine(member, 1);
        });
        HeldSession returning = machines.get("returning");
        await().atMost(Duration.ofSeconds(10)).until(() -> returning.submitted.size() == 1);
        String onReturning = returning.submitted.get(0);

        opens.set(false);
        machines.remove("returning");
        experiment.platformLost(1, "platform 'returning' is away: bundle updated");
        await().atMost(Duration.ofSeconds(10)).until(() -> experiment.waitingForPlatform().isPresent());
        experiment.platformArrived("returning");
        await().atMost(Duration.ofSeconds(30)).until(() -> refusals.get() >= 1);
        opens.set(true); // no arrival tells of this
        await().atMost(Duration.ofSeconds(60)).until(() -> machines.containsKey("returning"));
        await().atMost(Duration.ofSeconds(30)).until(() -> experiment.waitingForPlatform().isEmpty());
        // HeldSession cannot re-attach: the new session was asked for the trial and did not have it
        await().atMost(Duration.ofSeconds(10)).until(() -> experiment.trial(onReturning).orElseThrow().job().status().isTerminal());
        assertTrue(experiment.trial(onReturning).orElseThrow().job().message(), experiment.trial(onReturning).orElseThrow().job()
                .message().startsWith("platform 'returning' came back without this trial"));
        await().atMost(Duration.ofSeconds(10)).until(() -> machines.get("returning").submitted.size() == 1);
    }

    @Test
    public void whenNoMemberOpensTheExperimentFailsNamingEachMemberAndWhy() throws Exception {
        experiment = Experiment.create("hybrid04", setup.hybridConfig("local", "remote"));
        PlatformException refused = assertThrows(PlatformException.class, () -> experiment.start(JavaRuns.of(experiment, new ListTuner(1), null), member -> {
            throw new PlatformException(member.platform().equals("local") ? "no python3" : "authentication failed");
        }));
        assertEquals("no member of the hybrid experiment could be opened: trainingService[0] (local) could not be opened: "
                + "no python3; trainingService[1] (remote) could not be opened: authentication failed", refused.getMessage());
    }

    @Test
    public void aLostMemberLeavesItsTrialsWaitingWhileTheOthersGoOnAndAResumePutsTrialsBackOnTheirMember() throws Exception {
        setup.concurrency = 2;
        setup.maxTrials = 5;
        experiment = Experiment.create("hybrid05", setup.hybridConfig("first", "second"));
        experiment.start(JavaRuns.of(experiment, new ListTuner(5), null), member -> machine(member, 1));
        HeldSession first = machines.get("first");
        HeldSession second = machines.get("second");
        await().atMost(Duration.ofSeconds(10)).until(() -> first.submitted.size() == 1 && second.submitted.size() == 1);
        String onSecond = second.submitted.get(0);

        experiment.platformLost(1, "platform 'second' was removed");
        await().atMost(Duration.ofSeconds(10)).until(() -> experiment.trial(onSecond).orElseThrow().job().message()
                .equals("platform 'second' was removed"));
        first.finish(first.submitted.get(0), List.of(), 0.5, TrialStatus.SUCCEEDED);
        await().atMost(Duration.ofSeconds(10)).until(() -> first.submitted.size() == 2);
        assertEquals("the lost member takes nothing", 1, second.submitted.size());
        assertEquals(TrialStatus.RUNNING, experiment.trial(onSecond).orElseThrow().job().status());
        assertEquals("platform 'second' was removed", experiment.waitingForPlatform(onSecond).orElseThrow());
        assertFalse("a trial of the other member waits for nothing", experiment.waitingForPlatform(first.submitted.get(1)).isPresent());

        // the runtime stops and resumes: each live trial is taken back by its own member's session
        experiment.detach();
        machines.clear();
        experiment = Experiment.reopen("hybrid05", setup.workingDirectory.resolve("hybrid05"));
        assertEquals("second", experiment.trial(onSecond).orElseThrow().platform());
        assertEquals("first", experiment.trial(first.submitted.get(1)).orElseThrow().platform());
        experiment.resume(JavaRuns.of(experiment, new ListTuner(5), null), member -> machine(member, 0));
        // HeldSession cannot re-attach: the running trials are FAILED, each reported by the experiment (not its member)
        await().atMost(Duration.ofSeconds(10)).until(() -> experiment.trial(onSecond).orElseThrow().job().status().isTerminal());
        assertEquals("second", experiment.trial(onSecond).orElseThrow().platform());
        assertFalse(experiment.waitingForPlatform().isPresent());
        assertTrue(experiment.store().trialMembers().containsKey(onSecond));
    }
}
