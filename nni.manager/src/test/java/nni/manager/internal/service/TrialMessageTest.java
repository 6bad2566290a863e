package nni.manager.internal.service;

import static org.awaitility.Awaitility.await;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import org.junit.After;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import nni.api.experiment.TrialDetail;
import nni.api.model.TrialStatus;
import nni.manager.internal.experiment.Experiment;
import nni.manager.internal.experiment.ExperimentStatus;
import nni.manager.internal.experiment.Experiments;
import nni.manager.internal.experiment.ListTuner;
import nni.manager.internal.experiment.LocalExperimentTest;
import nni.manager.internal.experiment.TrialView;
import nni.store.TrialEvent;

/**
 * Why a trial waits reaches {@code GET /trial-jobs} (NNI's {@code TrialJobInfo.message}): the real
 * local platform, told by a fake nvidia-smi that GPU 1 is busy, holds the second trial back and says
 * why; the trial's detail (what the REST mapping shows) has that live message while the trial waits, without a stored event for it,
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

        TrialDetail waiting = info(second.job().id());
        assertEquals("WAITING", waiting.status());
        assertEquals(Optional.of(WAITING), waiting.message());
        assertEquals(Optional.empty(), info(first.job().id()).message());
        // the reason is live state, not a stored event
        for (TrialEvent event : experiment.store().events()) {
            assertNotEquals(event.toString(), WAITING, event.message());
        }

        Files.writeString(code.resolve("release-0"), "");
        await().atMost(Duration.ofSeconds(20)).until(() -> "RUNNING".equals(info(second.job().id()).status()));
        assertEquals("a stale reason is shown", Optional.empty(), info(second.job().id()).message());
        Files.writeString(code.resolve("release-1"), "");
        assertEquals(ExperimentStatus.DONE, experiment.settled().get(20, TimeUnit.SECONDS));
    }

    private TrialDetail info(String trialId) {
        return ExperimentViews.details(experiment).stream().filter(t -> t.id().equals(trialId)).findFirst().orElseThrow();
    }
}
