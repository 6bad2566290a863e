package nni.manager.internal.experiment;

import static org.awaitility.Awaitility.await;
import static org.junit.Assert.assertEquals;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.junit.After;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import nni.api.model.TrialStatus;
import nni.api.platform.Capacity;
import nni.manager.internal.config.ExperimentConfig;

/**
 * The experiment does not assume one member: each training service gets its own context and
 * session, and trials go to the member with the most reported room (hybrid experiments are still
 * refused at create; this builds one directly).
 */
public class MemberPlacementTest {

    @Rule
    public TemporaryFolder folder = new TemporaryFolder();

    private Experiment experiment;

    @After
    public void tearDown() {
        if (experiment != null) {
            experiment.detach();
        }
    }

    @Test
    public void trialsGoToTheMemberWithTheMostRoomAndEachMemberHasItsOwnContext() throws Exception {
        Experiments setup = new Experiments(folder.newFolder("code").toPath(), folder.newFolder("work").toPath());
        setup.concurrency = 4;
        setup.maxTrials = 6;
        ExperimentConfig single = setup.config();
        List<Map<String, Object>> services = new ArrayList<>();
        for (String platform : List.of("small", "large")) {
            Map<String, Object> service = new LinkedHashMap<>(single.trainingServices().get(0));
            service.put("platform", platform);
            services.add(service);
        }
        ExperimentConfig hybrid = new ExperimentConfig(single.experimentName(), single.searchSpace(), single.trialCommand(),
                single.trialCodeDirectory(), single.trialConcurrency(), single.trialGpuNumber(), single.maxExperimentDuration(),
                single.maxTrialNumber(), single.maxTrialDuration(), single.nniManagerIp(), single.debug(), single.logLevel(),
                single.experimentWorkingDirectory(), single.tuner(), single.assessor(), services, single.canonical(), single.secrets());
        Map<String, HeldSession> machines = new ConcurrentHashMap<>();
        experiment = Experiment.create("hybrid01", hybrid);
        experiment.start(new ListTuner(6), null, member -> {
            HeldSession machine = new HeldSession(member);
            machine.capacity = Capacity.freeTrialSlots(member.platform().equals("small") ? 1 : 3);
            machines.put(member.platform(), machine);
            return machine;
        });
        HeldSession small = machines.get("small");
        HeldSession large = machines.get("large");

        await().atMost(Duration.ofSeconds(10)).until(() -> small.submitted.size() + large.submitted.size() == 4);
        assertEquals("the larger member takes three, the smaller one", 3, large.submitted.size());
        assertEquals(1, small.submitted.size());
        assertEquals("member 0 (small)", 0, ((MemberContext) small.context()).index());
        assertEquals("each member's context gives its own section", "large", large.context().section().get("platform"));

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
}
