package nni.manager.internal.http;

import static org.awaitility.Awaitility.await;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.After;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import nni.api.model.TrialStatus;
import nni.manager.internal.experiment.Experiment;
import nni.manager.internal.experiment.ExperimentStatus;
import nni.manager.internal.experiment.Experiments;
import nni.manager.internal.experiment.ListTuner;
import nni.manager.internal.experiment.LocalExperimentTest;
import nni.manager.internal.experiment.TrialView;
import nni.manager.internal.store.TrialEvent;

/**
 * Why a trial waits reaches {@code GET /trial-jobs} (NNI's {@code TrialJobInfo.message}): the real
 * local platform, told by a fake nvidia-smi that GPU 1 is busy, holds the second trial back and says
 * why; the REST mapping shows that live message while the trial waits, without a stored event for it,
 * and drops it once the trial runs.
 */
public class TrialMessageTest {

    private static final String WAITING = "waiting: needs 1 GPU, 0 free; GPU 0 full (1 trial of this experiment); "
            + "GPU 1 busy (pid 4711)";

    @Rule
    public TemporaryFolder folder = new TemporaryFolder();

    private Experiment experiment;

    @After
    public void stopExperiment() {
        if (experiment != null) {
            experiment.stop(Duration.ofSeconds(10));
        }
    }

    @Test(timeout = 60_000)
    public void aWaitingTrialsReasonIsInTheTrialJobInfo() throws Exception {
        Path code = folder.newFolder("code").toPath();
        Files.writeString(code.resolve("trial.sh"),
                "n=0; while [ ! -e \"$NNI_CODE_DIR/release-$NNI_TRIAL_SEQ_ID\" ] && [ $n -lt 6000 ]; do n=$((n+1)); sleep 0.05; done\n");
        Experiments setup = new Experiments(code, folder.newFolder("experiments").toPath());
        setup.trialCommand = "bash trial.sh";
        setup.concurrency = 2;
        setup.maxTrials = 2;
        setup.gpus = 1;
        setup.section.put("useActiveGpu", false);
        Path fake = folder.newFolder("bin").toPath().resolve("nvidia-smi");
        Path xml = fake.resolveSibling("gpus.xml");
        Files.writeString(xml, LocalExperimentTest.gpuXml("", "4711"));
        Files.writeString(fake, "#!/bin/bash\n[ \"$1 $2\" = \"-q -x\" ] || exit 9\ncat " + xml + "\n");
        assertTrue(fake.toFile().setExecutable(true));
        setup.platformSettings.put("nvidia_smi", fake.toString());
        experiment = setup.start("waitmsg1", new ListTuner(10), null);

        await().atMost(Duration.ofSeconds(20)).until(() -> experiment.trials().size() == 2
                && experiment.trials().get(1).job().message().startsWith("waiting"));
        TrialView first = experiment.trials().get(0);
        TrialView second = experiment.trials().get(1);
        await().atMost(Duration.ofSeconds(20)).until(() -> experiment.trial(first.job().id()).orElseThrow()
                .job().status() == TrialStatus.RUNNING);

        Map<String, Object> waiting = info(second.job().id());
        assertEquals("WAITING", waiting.get("status"));
        assertEquals(WAITING, waiting.get("message"));
        assertFalse(info(first.job().id()).toString(), info(first.job().id()).containsKey("message"));
        // the reason is live state, not a stored event
        for (TrialEvent event : experiment.store().events()) {
            assertNotEquals(event.toString(), WAITING, event.message());
        }

        Files.writeString(code.resolve("release-0"), "");
        await().atMost(Duration.ofSeconds(20)).until(() -> "RUNNING".equals(info(second.job().id()).get("status")));
        assertFalse("a stale reason is shown: " + info(second.job().id()), info(second.job().id()).containsKey("message"));
        Files.writeString(code.resolve("release-1"), "");
        assertEquals(ExperimentStatus.DONE, experiment.settled().get(20, TimeUnit.SECONDS));
    }

    private Map<String, Object> info(String trialId) {
        List<Map<String, Object>> infos = ExperimentRoutes.trialInfos(experiment);
        return infos.stream().filter(i -> i.get("trialJobId").equals(trialId)).findFirst().orElseThrow();
    }
}
