package nni.ts.local.internal;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.After;
import org.junit.Before;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import nni.api.model.HyperParameters;
import nni.api.model.Placement;
import nni.api.model.TrialApplication;
import nni.api.model.TrialJob;
import nni.api.model.TrialStatus;
import nni.api.testkit.RecordingSessionContext;

/**
 * A trial waiting for a GPU that a process outside the runtime holds starts once that process is
 * gone, with nothing else happening in the session: the session reads {@code nvidia-smi} again
 * while trials wait (issue 26 item 6). The fake {@code nvidia-smi} answers from a file the test
 * rewrites and logs every call, so the test changes the answer only after the session has read
 * the old one more than once.
 */
public class GpuWaitTest {

    @Rule
    public TemporaryFolder folder = new TemporaryFolder();

    private Path answer;
    private Path calls;
    private String nvidiaSmi;
    private LocalSession session;

    @Before
    public void fakeNvidiaSmi() throws IOException {
        Path bin = folder.newFolder("bin").toPath();
        answer = bin.resolve("answer");
        calls = bin.resolve("calls");
        Files.createFile(calls);
        Path script = bin.resolve("nvidia-smi");
        // exit code 3 when the answer file says "fail": nvidia-smi failing for a moment (a driver reload)
        Files.writeString(script, "#!/bin/bash\n[ \"$1 $2\" = \"-q -x\" ] || exit 9\necho called >> " + calls + "\n"
                + "if [ \"$(cat " + answer + ")\" = fail ]; then echo 'NVIDIA-SMI has failed'; exit 3; fi\ncat " + answer + "\n");
        assertTrue(script.toFile().setExecutable(true));
        nvidiaSmi = script.toString();
    }

    @After
    public void close() {
        if (session != null) {
            session.close();
        }
    }

    private void answer(String content) throws IOException {
        Path temporary = answer.resolveSibling("answer.tmp");
        Files.writeString(temporary, content);
        Files.move(temporary, answer, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    private static String gpus(String pidOnGpu0) {
        return "<?xml version=\"1.0\" ?>\n<nvidia_smi_log><attached_gpus>1</attached_gpus><gpu id=\"00000000:00:00.0\">"
                + "<minor_number>0</minor_number><processes>"
                + (pidOnGpu0.isEmpty() ? "" : "<process_info><pid>" + pidOnGpu0 + "</pid><type>C</type></process_info>")
                + "</processes></gpu></nvidia_smi_log>\n";
    }

    private long callsSoFar() throws IOException {
        return Files.readAllLines(calls).size();
    }

    /** Waits until nvidia-smi's log of calls has {@code more} more lines than {@code before} (the session's own re-reading). */
    private void awaitCalls(long before, int more) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        try (var watch = calls.getFileSystem().newWatchService()) {
            calls.getParent().register(watch, java.nio.file.StandardWatchEventKinds.ENTRY_MODIFY);
            while (callsSoFar() < before + more) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new AssertionError("nvidia-smi was called " + (callsSoFar() - before) + " time(s) more, not " + more
                            + ", within 60 s: the waiting trial's GPUs are not read again");
                }
                var key = watch.poll(Math.min(left, TimeUnit.SECONDS.toNanos(1)), TimeUnit.NANOSECONDS);
                if (key != null) {
                    key.pollEvents();
                    key.reset();
                }
            }
        }
    }

    @Test(timeout = 180_000)
    public void aTrialWaitingForABusyGpuStartsOnceItFreesAndItsReasonFollowsTheGpu() throws Exception {
        answer(gpus("4711"));
        Path code = folder.newFolder("code").toPath();
        Map<String, Object> section = new LinkedHashMap<>();
        section.put("platform", "local");
        section.put("trialCommand", "echo \"$CUDA_VISIBLE_DEVICES\" > \"$NNI_OUTPUT_DIR/gpus\"");
        section.put("trialCodeDirectory", code.toString());
        section.put("useActiveGpu", false);
        RecordingSessionContext context = new RecordingSessionContext("gpuwait1", folder.newFolder("exp").toPath(), "local", section);
        session = new LocalSession(context, "/bin/bash", 1, null, nvidiaSmi, "localhost");

        TrialApplication application = TrialApplication.builder("trial").sequenceId(0)
                .hyperParameters(HyperParameters.of("{\"parameter_id\":0,\"parameters\":{}}", 0))
                .placement(Placement.gpus(1)).build();
        TrialJob submitted = session.submit(application);
        assertEquals(TrialStatus.WAITING, submitted.status());
        context.awaitStatus("trial", job -> job.message().contains("GPU 0 busy (pid 4711)"), "waiting for the busy GPU 0",
                Duration.ofSeconds(30));

        // the session reads the GPUs again by itself (twice: not a single late retry), and the reason follows
        awaitCalls(callsSoFar(), 2);
        answer(gpus("4712"));
        context.awaitStatus("trial", job -> job.message().contains("GPU 0 busy (pid 4712)"), "waiting for GPU 0 held by 4712",
                Duration.ofSeconds(60));

        // nvidia-smi failing for a while neither ends the re-reading nor the trial; the reason says so
        answer("fail");
        awaitCalls(callsSoFar(), 2);
        context.awaitStatus("trial", job -> job.message().contains("exit code 3"), "waiting with the GPUs unreadable",
                Duration.ofSeconds(60));

        Instant freed = Instant.now();
        answer(gpus(""));
        TrialJob running = context.awaitStatus("trial", job -> job.status() != TrialStatus.WAITING, "started", Duration.ofSeconds(60));
        System.out.println("GpuWaitTest: the trial left WAITING " + Duration.between(freed, Instant.now()).toMillis()
                + " ms after GPU 0 freed");
        assertTrue(running.toString(), running.status() == TrialStatus.RUNNING || running.status().isTerminal());
        assertEquals(TrialStatus.SUCCEEDED, context.awaitTerminal("trial", Duration.ofSeconds(60)).status());
        // from the record, not a sample: a trial this short may have ended by the time it is looked at
        assertEquals(context.changes("trial").toString(), TrialStatus.RUNNING, context.changes("trial").stream()
                .map(TrialJob::status).filter(status -> status != TrialStatus.WAITING).findFirst().orElse(null));
        assertEquals("0", Files.readString(context.experimentDirectory().resolve("trials/trial/gpus")).strip());

        List<String> reasons = context.changes("trial").stream().filter(job -> job.status() == TrialStatus.WAITING)
                .map(TrialJob::message).toList();
        assertTrue(reasons.toString(), reasons.stream().anyMatch(reason -> reason.contains("GPU 0 busy (pid 4711)")));
        assertTrue(reasons.toString(), reasons.stream().anyMatch(reason -> reason.contains("GPU 0 busy (pid 4712)")));
        assertEquals(List.of(), context.violations());
    }
}
