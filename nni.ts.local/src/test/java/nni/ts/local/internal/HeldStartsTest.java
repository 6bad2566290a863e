package nni.ts.local.internal;

import static org.awaitility.Awaitility.await;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.junit.After;
import org.junit.Before;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import nni.api.model.HyperParameters;
import nni.api.model.TrialApplication;
import nni.api.model.TrialJob;
import nni.api.model.TrialStatus;
import nni.api.testkit.RecordingSessionContext;

/**
 * Trial starts are pipelined: the session hands every start to its nursery and returns, so that
 * many starts are in flight at once. The nursery here sources a hook before each launch script
 * that records the start in {@code in-flight} and then holds it, blocked reading a FIFO, until the
 * test writes lines into the FIFO (every held start goes on at once). Nothing is timed: the
 * record of held starts shows how many were in flight together.
 */
public class HeldStartsTest {

    private static final Duration PATIENCE = Duration.ofSeconds(60);
    /** A trial whose parameters say {@code stay} sleeps until killed; the others end at once. */
    private static final String STAYS_OR_ENDS = "if grep -q stay \"$NNI_SYS_DIR/parameter.cfg\"; then sleep 600; fi";

    @Rule
    public final TemporaryFolder temporary = new TemporaryFolder();

    private Path held;
    private Path release;
    private RecordingSessionContext context;
    private LocalSession session;
    private final ExecutorService submitter = Executors.newSingleThreadExecutor();

    @Before
    public void holdStarts() throws Exception {
        held = temporary.newFolder("held").toPath();
        release = held.resolve("release");
        assertEquals(0, new ProcessBuilder("mkfifo", release.toString()).start().waitFor());
        Path hook = held.resolve("hold.sh");
        // sourced by the nursery before each launch, $1 its request id. The FIFO is opened (read-write:
        // never blocks) before the start is recorded, so a line the test writes once it saw the record
        // waits there for it; held until then, or 5 minutes: a hook never waits for ever
        Files.writeString(hook, "exec 3<> '" + release + "'\n"
                + "echo \"$1\" >> '" + held.resolve("in-flight") + "'\n"
                + "read -r -t 300 _ <&3\n"
                + "exec 3<&-\n");
        Path code = temporary.newFolder("code").toPath();
        Path experiment = temporary.newFolder("experiment").toPath();
        context = new RecordingSessionContext("held", experiment, "local",
                Map.of("platform", "local", "trialCommand", STAYS_OR_ENDS, "trialCodeDirectory", code.toString()));
        session = new LocalSession(context, "/bin/bash", 1, null, "nvidia-smi", "localhost", hook);
    }

    @After
    public void letGo() throws Exception {
        releaseTheStarts(); // a failed test leaves no hook waiting
        session.close();
        submitter.shutdownNow();
    }

    @Test
    public void startsAreInFlightTogetherAndEveryStartedTrialIsSeenRunningAndEnded() throws Exception {
        int trials = 8;
        List<Future<TrialJob>> submitted = new ArrayList<>();
        for (int i = 0; i < trials; i++) {
            TrialApplication trial = application("held" + i, i == 1);
            // one thread submits in a row, as the experiment does
            submitted.add(submitter.submit(() -> session.submit(trial)));
        }

        await("every start in flight at once").atMost(PATIENCE).until(() -> inFlight().size() == trials);
        for (Future<TrialJob> trial : submitted) {
            assertEquals("submit returned while the start was held", TrialStatus.WAITING, trial.get(0, TimeUnit.SECONDS).status());
        }
        assertTrue("nothing reported RUNNING before the starts were released: " + context.changes(),
                context.changes().stream().noneMatch(job -> job.status() == TrialStatus.RUNNING));

        releaseTheStarts();

        for (int i = 0; i < trials; i++) {
            context.awaitStatus("held" + i, job -> job.status() == TrialStatus.RUNNING || job.status().isTerminal(), "started", PATIENCE);
        }
        session.cancel("held1", false); // the others end by themselves
        for (int i = 0; i < trials; i++) {
            String id = "held" + i;
            TrialJob ended = context.awaitTerminal(id, PATIENCE);
            assertEquals(context.changes(id).toString(), i == 1 ? TrialStatus.USER_CANCELED : TrialStatus.SUCCEEDED, ended.status());
            assertEquals("RUNNING, then its end: " + context.changes(id),
                    List.of(TrialStatus.RUNNING, ended.status()), context.changes(id).stream().map(TrialJob::status).toList());
        }
        assertEquals(List.of(), context.violations());
    }

    @Test
    public void aTrialCancelledWhileItsStartIsInFlightIsKilledOnceItStartsAndEndsCancelled() throws Exception {
        Future<TrialJob> submitted = submitter.submit(() -> session.submit(application("cancelled", true)));
        await("the start in flight").atMost(PATIENCE).until(() -> inFlight().size() == 1);
        assertEquals(TrialStatus.WAITING, submitted.get(0, TimeUnit.SECONDS).status());

        session.cancel("cancelled", false);
        releaseTheStarts();

        TrialJob ended = context.awaitTerminal("cancelled", PATIENCE);
        assertEquals(context.changes("cancelled").toString(), TrialStatus.USER_CANCELED, ended.status());
        Optional<ProcessHandle> trial = processOf("cancelled");
        trial.ifPresent(process -> assertTrue("its process group is killed, not left sleeping",
                process.onExit().completeOnTimeout(null, PATIENCE.toSeconds(), TimeUnit.SECONDS).join() != null));
        assertEquals(1, context.terminalStatuses("cancelled"));
        assertEquals(List.of(), context.violations());
    }

    @Test
    public void closeWithStartsInFlightEndsEveryTrialCancelledAndLeavesNoProcess() throws Exception {
        for (int i = 0; i < 3; i++) {
            TrialApplication trial = application("closed" + i, true);
            submitter.submit(() -> session.submit(trial));
        }
        await("the starts in flight").atMost(PATIENCE).until(() -> inFlight().size() == 3);
        Future<?> closing = submitter.submit(() -> session.close()); // after the submits, on their thread

        releaseTheStarts();
        closing.get(PATIENCE.toSeconds(), TimeUnit.SECONDS);

        for (int i = 0; i < 3; i++) {
            String id = "closed" + i;
            assertEquals("reported by the time close returned: " + context.changes(id), TrialStatus.USER_CANCELED,
                    context.latest(id).map(TrialJob::status).orElse(null));
            assertEquals(1, context.terminalStatuses(id));
            processOf(id).ifPresent(process -> assertFalse("trial " + id + " still runs after close", process.isAlive()));
        }
        assertEquals(List.of(), context.violations());
    }

    /** Writes a line into the FIFO for each start it may hold (opened read-write: never blocks): every held start goes on. */
    private void releaseTheStarts() throws IOException {
        try (RandomAccessFile fifo = new RandomAccessFile(release.toFile(), "rw")) {
            fifo.write("\n".repeat(64).getBytes(StandardCharsets.US_ASCII));
        }
    }

    private List<String> inFlight() throws IOException {
        Path file = held.resolve("in-flight");
        return Files.exists(file) ? Files.readAllLines(file) : List.of();
    }

    /** @return the trial's process as its {@code .nni/pid} names it, if it still exists */
    private Optional<ProcessHandle> processOf(String trialId) throws IOException {
        Path pid = context.experimentDirectory().resolve("trials").resolve(trialId).resolve(".nni").resolve("pid");
        if (!Files.exists(pid)) {
            return Optional.empty();
        }
        return ProcessHandle.of(Long.parseLong(Files.readString(pid).trim().split("\\s+")[0]));
    }

    /** @param stays whether the trial sleeps until killed (else it ends at once) */
    private static TrialApplication application(String id, boolean stays) {
        return TrialApplication.builder(id).hyperParameters(HyperParameters.of(stays ? "{\"stay\": 1}" : "{}", 0)).build();
    }
}
