package nni.ts.local.internal;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.After;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import nni.api.model.HyperParameters;
import nni.api.model.TrialApplication;
import nni.api.model.TrialJob;
import nni.api.model.TrialStatus;
import nni.api.testkit.RecordingSessionContext;

/**
 * A resume that finds a trial's process gone before its launch script wrote the exit status (the
 * script writes it a moment after the exit; seconds on a loaded machine): the trial ends with the
 * status the script then writes, not FAILED "without an exit status" (ResumeAfterKillTest failed so
 * in fresh-ci with two busy processes).
 */
public class ReattachEndedTest {

    @Rule
    public final TemporaryFolder temporary = new TemporaryFolder();

    private LocalSession session;

    @After
    public void close() {
        if (session != null) {
            session.close();
        }
    }

    @Test(timeout = 120_000)
    public void aTrialWhoseStatusIsWrittenAfterTheResumeLookedEndsWithIt() throws Exception {
        Path code = temporary.newFolder("code").toPath();
        Path experiment = temporary.newFolder("experiment").toPath();
        Path directory = Files.createDirectories(experiment.resolve("trials").resolve("Rea01").resolve(".nni"));
        Path trial = directory.getParent();
        Files.writeString(trial.resolve("run.sh"), "true\n");
        Files.writeString(directory.resolve("launch.sh"), "true\n");
        Files.createFile(directory.resolve("metrics"));
        // the trial's process, started and ended: its pid and start time as the runtime before the kill wrote them
        Process ended = new ProcessBuilder("sleep", "0.5").start();
        long start = ended.toHandle().info().startInstant().orElseThrow().toEpochMilli();
        assertTrue(ended.waitFor(30, TimeUnit.SECONDS));
        Files.writeString(directory.resolve("pid"), ended.pid() + " " + start);

        RecordingSessionContext context = new RecordingSessionContext("reattach", experiment, "local",
                Map.of("platform", "local", "trialCommand", "true", "trialCodeDirectory", code.toString()));
        session = new LocalSession(context, "/bin/bash", 1, null, "nvidia-smi", "localhost");
        TrialApplication application = TrialApplication.builder("Rea01").hyperParameters(HyperParameters.of("{}", 0)).build();
        TrialJob stored = TrialJob.waiting(application, trial.toString(), "file://localhost" + trial)
                .running(Instant.ofEpochMilli(start));
        assertTrue(session.reattach(stored).isPresent());

        // the launch script, late, writes the exit status as it does: whole, by a rename
        Path state = directory.resolve("state");
        Files.writeString(directory.resolve("state.tmp"), "0\n");
        Files.move(directory.resolve("state.tmp"), state, java.nio.file.StandardCopyOption.ATOMIC_MOVE);

        TrialJob end = context.awaitTerminal("Rea01", Duration.ofSeconds(60));
        assertEquals(context.changes("Rea01").toString(), TrialStatus.SUCCEEDED, end.status());
    }
}
