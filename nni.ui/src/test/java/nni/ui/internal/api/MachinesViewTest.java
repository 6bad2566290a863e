package nni.ui.internal.api;

import static org.awaitility.Awaitility.await;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.junit.After;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import nni.api.model.TrialApplication;
import nni.api.model.TrialJob;
import nni.api.platform.SessionView;
import nni.api.platform.TrainingSession;
import nni.manager.internal.experiment.Experiment;
import nni.manager.internal.experiment.Experiments;
import nni.manager.internal.experiment.HeldSession;
import nni.manager.internal.experiment.ListTuner;
import nni.manager.internal.experiment.MemberState;
import nni.manager.internal.service.Readings;

/**
 * The machines page's answer from a real experiment whose session shows its machines: each GPU
 * with utilisation, memory and the trials on it, the session's own state line; a member whose
 * platform is away shows why, and a session whose view fails shows that on its row alone.
 */
public class MachinesViewTest {

    @Rule
    public TemporaryFolder folder = new TemporaryFolder();

    private Experiment experiment;

    @After
    public void stop() {
        if (experiment != null) {
            experiment.stop(Duration.ofSeconds(5));
        }
    }

    @Test
    public void showsEachGpuWithTheTrialsPlacedOnIt() throws Exception {
        Experiments setup = new Experiments(folder.newFolder("code").toPath(), folder.newFolder("work").toPath());
        setup.concurrency = 2;
        setup.maxTrials = 2;
        Instant readAt = Instant.ofEpochMilli(1_700_000_000_000L);
        ShowingSession[] session = new ShowingSession[1];
        experiment = setup.startWith("mach0001", new ListTuner(2), context -> session[0] = new ShowingSession(
                new HeldSession(context), readAt));
        await().atMost(Duration.ofSeconds(30)).until(() -> session[0] != null && session[0].trials().size() == 2);
        List<String> trials = session[0].trials().stream().map(TrialJob::id).toList();

        Map<String, Object> answer = MachinesView.of(List.of(Readings.ofOpen(experiment)));

        List<?> sessions = (List<?>) answer.get("sessions");
        assertEquals(answer.toString(), 1, sessions.size());
        Map<?, ?> row = (Map<?, ?>) sessions.get(0);
        assertEquals("mach0001", row.get("experiment"));
        assertEquals("local", row.get("platform"));
        assertEquals("open", row.get("state"));
        assertEquals("2 running", row.get("detail"));
        Map<?, ?> machine = (Map<?, ?>) ((List<?>) row.get("machines")).get(0);
        assertEquals("gpu-box", machine.get("name"));
        assertEquals(readAt.toEpochMilli(), machine.get("readAt"));
        List<?> gpus = (List<?>) machine.get("gpus");
        assertEquals(2, gpus.size());
        Map<?, ?> first = (Map<?, ?>) gpus.get(0);
        assertEquals(0, first.get("index"));
        assertEquals(87, first.get("utilization"));
        assertEquals(1024L, first.get("memoryUsedMiB"));
        assertEquals(16384L, first.get("memoryTotalMiB"));
        assertEquals(trials, first.get("trials"));
        Map<?, ?> second = (Map<?, ?>) gpus.get(1);
        assertEquals(List.of(), second.get("trials"));
        assertNull(second.get("utilization"));
    }

    @Test
    public void anAwayPlatformAndAFailingViewShowOnTheirOwnRows() {
        Map<String, Object> away = MachinesView.session("mach0002", "named", Readings.member(new MemberState(1, "remote", Optional.empty(),
                Optional.of("platform 'remote' is away: its bundle stopped"))));
        assertEquals("away", away.get("state"));
        assertEquals("platform 'remote' is away: its bundle stopped", away.get("detail"));
        assertEquals(List.of(), away.get("machines"));

        TrainingSession failing = new ShowingSession(null, Instant.now()) {
            @Override
            public Optional<SessionView> view() {
                throw new IllegalStateException("broken view");
            }
        };
        Map<String, Object> broken = MachinesView.session("mach0002", "named", Readings.member(new MemberState(0, "local",
                Optional.of(failing), Optional.empty())));
        assertEquals("open", broken.get("state"));
        assertTrue(String.valueOf(broken.get("detail")), String.valueOf(broken.get("detail")).contains("broken view"));
    }

    /** A held session that shows one machine of two GPUs, every trial on GPU 0. */
    private static class ShowingSession implements TrainingSession {
        private final HeldSession held;
        private final Instant readAt;

        ShowingSession(HeldSession held, Instant readAt) {
            this.held = held;
            this.readAt = readAt;
        }

        @Override
        public Optional<SessionView> view() {
            SessionView.GpuBuilder busy = SessionView.Gpu.builder(0).utilization(87).memoryMiB(1024, 16384);
            trials().forEach(trial -> busy.trial(trial.id()));
            return Optional.of(SessionView.builder().state(trials().size() + " running")
                    .machine(SessionView.Machine.builder("gpu-box").readAt(readAt).gpu(busy.build())
                            .gpu(SessionView.Gpu.builder(1).build()).build())
                    .build());
        }

        @Override
        public TrialJob submit(TrialApplication application) {
            return held.submit(application);
        }

        @Override
        public void cancel(String trialId, boolean earlyStopped) {
            held.cancel(trialId, earlyStopped);
        }

        @Override
        public Optional<TrialJob> trial(String trialId) {
            return held.trial(trialId);
        }

        @Override
        public List<TrialJob> trials() {
            return held.trials();
        }

        @Override
        public Optional<InputStream> openTrialFile(String trialId, String name) throws IOException {
            return held.openTrialFile(trialId, name);
        }

        @Override
        public void close() {
            held.close();
        }

        @Override
        public void detach() {
            held.detach();
        }
    }
}
