package nni.ts.local.internal;

import static org.awaitility.Awaitility.await;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

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
 * A runtime killed while a trial's launch was on its way (the launch script written, not yet run):
 * the resume finds no trace of a start, claims it and starts the trial itself. The old launch may
 * still run late, here after the resume's submission and before its own launch: it must not start
 * the trial, and the resume's launch must (ResumeAfterKillTest saw the reverse: the trial FAILED
 * "could not start: the trial was started before", its late first run unwatched). Each session's
 * launches are held by a hook until the test lets them go, so the order is the test's.
 */
public class ResumeStartClaimTest {

    private static final Duration PATIENCE = Duration.ofSeconds(60);

    @Rule
    public final TemporaryFolder temporary = new TemporaryFolder();

    private final List<LocalSession> sessions = new java.util.ArrayList<>();
    private final List<Path> fifos = new java.util.ArrayList<>();

    @After
    public void letGo() throws IOException {
        for (Path fifo : fifos) {
            release(fifo); // a failed test leaves no hook waiting
        }
        sessions.forEach(LocalSession::close);
    }

    /** @return a session whose launches wait in a hook until {@link #release} of its FIFO; each finished launch is logged */
    private LocalSession heldSession(String name, RecordingSessionContext context) throws Exception {
        Path held = temporary.newFolder(name).toPath();
        Path fifo = held.resolve("release");
        assertEquals(0, new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor());
        fifos.add(fifo);
        Path hook = held.resolve("hold.sh");
        // sourced by the nursery before each launch, $1 its request id; the launch's end is logged on exit
        Files.writeString(hook, "trap \"echo '$1' >> '" + held.resolve("finished") + "'\" EXIT\n"
                + "exec 3<> '" + fifo + "'\n"
                + "echo \"$1\" >> '" + held.resolve("in-flight") + "'\n"
                + "read -r -t 300 _ <&3\n"
                + "exec 3<&-\n");
        LocalSession session = new LocalSession(context, "/bin/bash", 1, null, "nvidia-smi", "localhost", hook);
        sessions.add(session);
        return session;
    }

    private static void release(Path fifo) throws IOException {
        try (RandomAccessFile pipe = new RandomAccessFile(fifo.toFile(), "rw")) {
            pipe.write("\n".repeat(8).getBytes(StandardCharsets.US_ASCII));
        }
    }

    private static List<String> lines(Path file) throws IOException {
        return Files.exists(file) ? Files.readAllLines(file) : List.of();
    }

    @Test(timeout = 180_000)
    public void aLateLaunchOfTheKilledRuntimeNeverStartsATrialTheResumeStarted() throws Exception {
        Path code = temporary.newFolder("code").toPath();
        Path runs = code.resolve("runs");
        Path experiment = temporary.newFolder("experiment").toPath();
        Map<String, Object> section = Map.of("platform", "local", "trialCommand", "echo \"$$\" >> runs",
                "trialCodeDirectory", code.toString());
        RecordingSessionContext before = new RecordingSessionContext("claim", experiment, "local", section);
        LocalSession killed = heldSession("killed", before);
        TrialApplication application = TrialApplication.builder("Clm01").hyperParameters(HyperParameters.of("{}", 0)).build();
        TrialJob stored = killed.submit(application);
        Path killedHeld = temporary.getRoot().toPath().resolve("killed");
        await().atMost(PATIENCE).until(() -> lines(killedHeld.resolve("in-flight")).size() == 1);
        killed.detach(); // the runtime is gone; its launch still waits to run

        RecordingSessionContext after = new RecordingSessionContext("claim", experiment, "local", section);
        LocalSession resumed = heldSession("resumed", after);
        Path resumedHeld = temporary.getRoot().toPath().resolve("resumed");
        assertTrue(resumed.reattach(stored).isPresent());
        await().atMost(PATIENCE).until(() -> lines(resumedHeld.resolve("in-flight")).size() == 1);

        // the killed runtime's launch runs now, late: the resume's claim keeps it from starting the trial
        release(killedHeld.resolve("release"));
        await().atMost(PATIENCE).until(() -> lines(killedHeld.resolve("finished")).size() == 1);
        assertEquals("the late launch started the trial", List.of(), lines(runs));

        // the resume's own launch starts it, once
        release(resumedHeld.resolve("release"));
        TrialJob ended = after.awaitTerminal("Clm01", PATIENCE);
        assertEquals(after.changes("Clm01").toString(), TrialStatus.SUCCEEDED, ended.status());
        assertEquals(1, lines(runs).size());
    }
}
