package nni.itest;

import static org.awaitility.Awaitility.await;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.After;
import org.junit.Before;
import org.junit.Test;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.osgi.framework.Bundle;

import nni.api.environment.KeeperOptions;
import nni.api.environment.KeeperSessions;
import nni.api.environment.KeeperTransport;
import nni.api.model.HyperParameters;
import nni.api.model.Placement;
import nni.api.model.TrialApplication;
import nni.api.model.TrialJob;
import nni.api.model.TrialStatus;
import nni.api.platform.PlatformException;
import nni.api.platform.TrainingSession;
import nni.itest.keeper.FakeManager;
import nni.itest.keeper.KeeperKind;
import nni.itest.keeper.ProcessKeeperLauncher;
import nni.itest.keeper.RecordingContext;
import nni.itest.keeper.TarBuilder;
import nni.itest.keeper.TrialScripts;

/**
 * The keeper conformance suite: the same tests, at process level, for every keeper the manager
 * ships ({@link JavaKeeperConformanceIT}, {@link PythonKeeperConformanceIT}). Keepers are started
 * as platforms start them, against the real runtime's endpoint through the manager's
 * {@link KeeperSessions}; the answers no real manager gives (5xx, bodies that are not JSON, a
 * refusal mid-run) come from a {@link FakeManager}.
 */
public abstract class KeeperConformance extends RuntimeTestSupport {

    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final String VERSION_LINE = "nni-trialkeeper 1.0.0 (trial protocol 1)";

    private Path root;
    private Path keeperFile;
    /** Where the keepers' channel folders go when a test runs over the file transport; null: HTTP. */
    private Path channels;

    /** @return the keeper under test */
    protected abstract KeeperKind kind();

    @Configuration
    public Option[] config() {
        return new Option[] {baseOptions()};
    }

    /** A fixed port, so that the endpoint comes back on the same one after an outage. */
    @Override
    protected String httpPort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return Integer.toString(socket.getLocalPort());
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    @Before
    public void keeper() throws Exception {
        root = scratch("keeper-" + kind().name().toLowerCase(java.util.Locale.ROOT));
        await().atMost(WAIT).until(() -> service(KeeperSessions.class, null) != null);
        keeperFile = service(KeeperSessions.class, null).keeperFile(kind().runtime());
    }

    @After
    public void cleanUp() throws IOException {
        if (root != null) {
            try (Stream<Path> walk = Files.walk(root)) {
                walk.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
            }
        }
    }

    // ------------------------------------------------------------------------------------------
    // against the real runtime

    @Test(timeout = 120_000)
    public void aReuseRunnerRunsTrialsOneAfterAnotherOnOneEnvironmentAndSurvivesAFailingOne() throws Exception {
        aReuseRunnerRunsTrialsOneAfterAnotherOnOneEnvironmentAndSurvivesAFailingOneBody();
    }

    /** The same over the file transport: handshake, reports, new-trial commands through the channel folder. */
    @Test(timeout = 120_000)
    public void overSharedFilesAReuseRunnerRunsTrialsOneAfterAnotherAndSurvivesAFailingOne() throws Exception {
        overSharedFiles();
        aReuseRunnerRunsTrialsOneAfterAnotherOnOneEnvironmentAndSurvivesAFailingOneBody();
    }

    private void aReuseRunnerRunsTrialsOneAfterAnotherOnOneEnvironmentAndSurvivesAFailingOneBody() throws Exception {
        RecordingContext context = context("reuse", true, "./trial.sh");
        ProcessKeeperLauncher launcher = launcher();
        try (TrainingSession session = open(context, launcher, true, 1, Duration.ofMinutes(1))) {
            String[] ids = {"Ra001", "Ra002", "Ra003"};
            int[] exits = {0, 3, 0};
            for (int i = 0; i < ids.length; i++) {
                TrialJob submitted = session.submit(trial(ids[i], i, TrialScripts.parameters(100 + i, 20, 20, null, exits[i])));
                assertEquals(TrialStatus.WAITING, submitted.status());
                awaitEnded(context, ids[i]);
            }
            assertEquals(TrialStatus.SUCCEEDED, context.status("Ra001"));
            assertEquals(TrialStatus.FAILED, context.status("Ra002"));
            // the end of its stderr says why (issue 17), as both keepers report it
            assertEquals("exit code 3: failing with 3 on purpose", context.latest("Ra002").message());
            assertEquals(TrialStatus.SUCCEEDED, context.status("Ra003"));
            for (String id : ids) {
                assertAllOnce(context, id, 40);
                assertTrue(context.changes.stream().anyMatch(j -> j.id().equals(id) && j.status() == TrialStatus.RUNNING));
            }
            assertTrue(context.lines("Ra002").stream().anyMatch(l -> l.contains("\"FINAL\"") && l.contains("\"101\"")));
            assertEquals("one environment ran all three", 1, launcher.processes.size());
            Path environment = launcher.directory(launcher.processes.keySet().iterator().next());
            for (String id : ids) {
                assertEquals(environment.resolve("trials").resolve(id).toString(), context.latest(id).workingDirectory());
                assertTrue(Files.isDirectory(environment.resolve("trials").resolve(id).resolve("nnioutput")));
            }
            try (var stdout = session.openTrialFile("Ra001", "stdout").orElseThrow()) {
                assertTrue(new String(stdout.readAllBytes(), StandardCharsets.UTF_8).contains("phase2-done"));
            }
        }
    }

    @Test(timeout = 120_000)
    public void aTrialKeeperRunsOneTrialReportsEverythingAndExitsWithItsCode() throws Exception {
        aTrialKeeperRunsOneTrialReportsEverythingAndExitsWithItsCodeBody();
    }

    /** The same over the file transport. */
    @Test(timeout = 120_000)
    public void overSharedFilesATrialKeeperRunsOneTrialReportsEverythingAndExitsWithItsCode() throws Exception {
        overSharedFiles();
        aTrialKeeperRunsOneTrialReportsEverythingAndExitsWithItsCodeBody();
    }

    private void aTrialKeeperRunsOneTrialReportsEverythingAndExitsWithItsCodeBody() throws Exception {
        RecordingContext context = context("pertrial", false, "./trial.sh");
        ProcessKeeperLauncher launcher = launcher();
        try (TrainingSession session = open(context, launcher, false, 4, Duration.ofMinutes(1))) {
            // 3 is also the keeper's own code for "refused": the trial's 3 must still be delivered in full
            session.submit(trial("Pt001", 0, TrialScripts.parameters(7, 30, 30, null, 3)));
            awaitEnded(context, "Pt001");
            assertEquals(TrialStatus.FAILED, context.status("Pt001"));
            assertAllOnce(context, "Pt001", 60);
            Process keeper = launcher.processes.get("Pt001");
            assertTrue(keeper.waitFor(30, TimeUnit.SECONDS));
            assertEquals("the keeper exits with the trial's code", 3, keeper.exitValue());
            if (channels != null) {
                try (Stream<Path> left = Files.list(channels.resolve("Pt001").resolve("reports"))) {
                    assertEquals("the keeper deletes its report files once acknowledged", List.of(), left.toList());
                }
            }
            Path trialDirectory = launcher.directory("Pt001");
            assertEquals(TrialScripts.parameters(7, 30, 30, null, 3), Files.readString(trialDirectory.resolve("parameter.cfg")));
            assertFalse("parameter.cfg is written to a temporary file and renamed", Files.exists(trialDirectory.resolve("parameter.cfg.tmp")));
            assertTrue(Files.readString(trialDirectory.resolve("stdout")).contains("phase2-done"));
        }
    }

    @Test(timeout = 120_000)
    public void anIdleEnvironmentEndsAfterItsTimeoutAndANewOneTakesTheNextTrial() throws Exception {
        anIdleEnvironmentEndsAfterItsTimeoutAndANewOneTakesTheNextTrialBody();
    }

    /** The same over the file transport: the stop command arrives as a file. */
    @Test(timeout = 120_000)
    public void overSharedFilesAnIdleEnvironmentIsStoppedByACommandFile() throws Exception {
        overSharedFiles();
        anIdleEnvironmentEndsAfterItsTimeoutAndANewOneTakesTheNextTrialBody();
    }

    private void anIdleEnvironmentEndsAfterItsTimeoutAndANewOneTakesTheNextTrialBody() throws Exception {
        RecordingContext context = context("idle", true, "./trial.sh");
        ProcessKeeperLauncher launcher = launcher();
        try (TrainingSession session = open(context, launcher, true, 2, Duration.ofSeconds(1))) {
            session.submit(trial("Id001", 0, TrialScripts.parameters(1, 3, 0, null, 0)));
            awaitEnded(context, "Id001");
            assertEquals(1, launcher.processes.size());
            Process first = launcher.processes.values().iterator().next();
            assertTrue("the idle environment ends by itself", first.waitFor(30, TimeUnit.SECONDS));
            assertEquals("it was asked to stop, not killed", 0, first.exitValue());
            session.submit(trial("Id002", 1, TrialScripts.parameters(2, 3, 0, null, 0)));
            awaitEnded(context, "Id002");
            assertEquals(TrialStatus.SUCCEEDED, context.status("Id001"));
            assertEquals(TrialStatus.SUCCEEDED, context.status("Id002"));
            assertEquals("a new environment took the second trial", 2, launcher.processes.size());
            assertAllOnce(context, "Id002", 3);
        }
    }

    @Test(timeout = 120_000)
    public void cancelKillsTheTrialsWholeProcessTreeAndKeepsWhatItReported() throws Exception {
        cancelKillsTheTrialsWholeProcessTreeAndKeepsWhatItReportedBody();
    }

    /** The same over the file transport: the kill command arrives as a file. */
    @Test(timeout = 120_000)
    public void overSharedFilesCancelKillsTheTrialsWholeProcessTree() throws Exception {
        overSharedFiles();
        cancelKillsTheTrialsWholeProcessTreeAndKeepsWhatItReportedBody();
    }

    private void cancelKillsTheTrialsWholeProcessTreeAndKeepsWhatItReportedBody() throws Exception {
        RecordingContext context = context("cancel", true, "./trial.sh");
        Path never = context.experimentDirectory().resolve("never");
        try (TrainingSession session = open(context, launcher(), true, 1, Duration.ofMinutes(1))) {
            session.submit(trial("Can01", 0, TrialScripts.parameters(1, 5, 5, never.toString(), 0, true)));
            await().atMost(WAIT).until(() -> context.calls("Can01") == 5);
            long child = childPid(Path.of(context.latest("Can01").workingDirectory()));
            assertTrue(ProcessHandle.of(child).map(ProcessHandle::isAlive).orElse(false));
            session.cancel("Can01", true);
            awaitEnded(context, "Can01");
            assertEquals(TrialStatus.EARLY_STOPPED, context.status("Can01"));
            await().atMost(WAIT).until(() -> !ProcessHandle.of(child).map(ProcessHandle::isAlive).orElse(false));
            assertEquals(5, context.calls("Can01"));
            assertEquals(1, context.terminalChanges("Can01"));
        }
    }

    @Test(timeout = 180_000)
    public void theEndpointStoppedAndRestartedMidTrialLosesNothingAndStoresNothingTwice() throws Exception {
        RecordingContext context = context("outage", true, "./trial.sh");
        Path go = context.experimentDirectory().resolve("go");
        Bundle jetty = bundle("org.apache.felix.http.jetty12");
        try (TrainingSession session = open(context, launcher(), true, 1, Duration.ofMinutes(1))) {
            session.submit(trial("Out01", 0, TrialScripts.parameters(1, 150, 150, go.toString(), 0)));
            await().atMost(WAIT).until(() -> context.calls("Out01") == 150);
            jetty.stop();
            Files.writeString(go, "go");
            Path stdout = Path.of(context.latest("Out01").workingDirectory(), "stdout");
            await().atMost(WAIT).until(() -> Files.readString(stdout).contains("phase2-done"));
            // the trial has written everything while the endpoint is down: nothing arrived meanwhile
            assertEquals(150, context.calls("Out01"));
            assertEquals(TrialStatus.RUNNING, context.status("Out01"));
            jetty.start();
            awaitEnded(context, "Out01");
            assertEquals(TrialStatus.SUCCEEDED, context.status("Out01"));
            assertAllOnce(context, "Out01", 300);
        } finally {
            if (jetty.getState() != Bundle.ACTIVE) {
                jetty.start();
            }
        }
    }

    @Test(timeout = 180_000)
    public void aFullSpoolPausesTheTrialsOutputAndNothingIsDropped() throws Exception {
        int lines = 3000;
        RecordingContext context = context("spool", false, "./flood.sh " + lines);
        Path code = Path.of(String.valueOf(context.section().get("trialCodeDirectory")));
        Path go = context.experimentDirectory().resolve("go");
        // each metric carries 900 bytes of padding: 3000 of them are about three times the 1 MiB spool
        Files.writeString(code.resolve("flood.sh"), String.join("\n",
                "#!/bin/bash",
                "n=0; while [ ! -e " + go + " ]; do n=$((n+1)); [ $n -lt 1200 ] || exit 93; sleep 0.05; done",
                "pad=$(printf '%0900d' 0)",
                "for ((i=0; i<$1; i++)); do",
                "  printf \"NNISDK_MEb'{\\\"parameter_id\\\": 1, \\\"trial_job_id\\\": \\\"$NNI_TRIAL_JOB_ID\\\", \\\"type\\\": \\\"PERIODICAL\\\","
                        + " \\\"sequence\\\": %d, \\\"value\\\": \\\"%d$pad\\\"}'\\n\" $i $i",
                "done",
                "frame() { local data=\"$1\"$'\\n'; printf 'ME%06d%s' \"${#data}\" \"$data\" >> \"$NNI_SYS_DIR/.nni/metrics\"; }",
                "frame \"{\\\"parameter_id\\\": 1, \\\"trial_job_id\\\": \\\"$NNI_TRIAL_JOB_ID\\\", \\\"type\\\": \\\"FINAL\\\", \\\"sequence\\\": 0, \\\"value\\\": \\\"1\\\"}\"",
                "touch \"$NNI_SYS_DIR/flood-done\"",
                ""));
        Files.setPosixFilePermissions(code.resolve("flood.sh"), PosixFilePermissions.fromString("rwxr-xr-x"));
        ProcessKeeperLauncher launcher = launcher().arguments("--spool-limit-mb", "1");
        Bundle jetty = bundle("org.apache.felix.http.jetty12");
        try (TrainingSession session = open(context, launcher, false, 1, Duration.ofMinutes(1))) {
            session.submit(trial("Sp001", 0, TrialScripts.parameters(1, 0, 0, null, 0)));
            await().atMost(WAIT).until(() -> context.status("Sp001") == TrialStatus.RUNNING);
            Path directory = launcher.directory("Sp001");
            Path spool = directory.resolve(".keeper").resolve("Sp001").resolve("reports.spool");
            // the `started` report is acknowledged, so the spool file has started over
            await().atMost(WAIT).until(() -> Files.size(spool) == 0);
            jetty.stop();
            Files.writeString(go, "go");
            long limit = 1 << 20;
            long report = 1100;
            await().atMost(WAIT).until(() -> Files.size(spool) > limit - 2 * report);
            // output reading has paused: the spool holds at most one report over its limit (the limit counts the
            // reports, the file also their newlines), and the trial cannot finish
            long most = limit + limit / 1000 + report;
            await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(10))
                    .until(() -> Files.size(spool) <= most && !Files.exists(directory.resolve("flood-done")));
            assertEquals(TrialStatus.RUNNING, context.status("Sp001"));
            jetty.start();
            awaitEnded(context, "Sp001");
            assertEquals(TrialStatus.SUCCEEDED, context.status("Sp001"));
            assertAllOnce(context, "Sp001", lines);
        } finally {
            if (jetty.getState() != Bundle.ACTIVE) {
                jetty.start();
            }
        }
    }

    @Test(timeout = 120_000)
    public void aKeeperOfAnotherProtocolIsRefusedOnBothSidesNamingBothVersions() throws Exception {
        aKeeperOfAnotherProtocolIsRefusedOnBothSidesNamingBothVersionsBody();
    }

    /** The same over the file transport: the refusal is the welcome file. */
    @Test(timeout = 120_000)
    public void overSharedFilesAKeeperOfAnotherProtocolIsRefusedOnBothSides() throws Exception {
        overSharedFiles();
        aKeeperOfAnotherProtocolIsRefusedOnBothSidesNamingBothVersionsBody();
    }

    private void aKeeperOfAnotherProtocolIsRefusedOnBothSidesNamingBothVersionsBody() throws Exception {
        RecordingContext context = context("version", false, "./trial.sh");
        ProcessKeeperLauncher launcher = launcher().environment("NNI_KEEPER_TEST_PROTOCOL", "2");
        try (TrainingSession session = open(context, launcher, false, 4, Duration.ofMinutes(1))) {
            session.submit(trial("Ver01", 0, TrialScripts.parameters(1, 1, 0, null, 0)));
            awaitEnded(context, "Ver01");
            assertEquals(TrialStatus.FAILED, context.status("Ver01"));
            String managerSide = context.latest("Ver01").message();
            String managerVersion = bundle("nni.keeper").getVersion().toString(); // the bundle that answers keepers
            assertTrue(managerSide, managerSide.contains("manager " + managerVersion) && managerSide.contains("trial keeper 1.0.0")
                    && managerSide.contains("protocol 2") && managerSide.contains("[1]")
                    && managerSide.contains("run the trial keeper this manager ships"));
            Process keeper = launcher.processes.get("Ver01");
            assertTrue(keeper.waitFor(30, TimeUnit.SECONDS));
            assertEquals(3, keeper.exitValue());
            String keeperSide = Files.readString(launcher.directory("Ver01").resolve("keeper.stderr"));
            assertTrue(keeperSide, keeperSide.contains("refused trial keeper 1.0.0 (protocol 2)") && keeperSide.contains("manager " + managerVersion));
            assertEquals(0, context.callsTotal());
            PlatformException later = org.junit.Assert.assertThrows(PlatformException.class,
                    () -> session.submit(trial("Ver02", 1, TrialScripts.parameters(1, 1, 0, null, 0))));
            assertTrue(later.getMessage(), later.getMessage().contains("protocol 2"));
        }
    }

    @Test(timeout = 120_000)
    public void aKeeperWithTheWrongTokenIsRefusedExitsAtOnceAndRunsNothing() throws Exception {
        aKeeperWithTheWrongTokenIsRefusedExitsAtOnceAndRunsNothingBody();
    }

    /** The same over the file transport: the hello carries the token. */
    @Test(timeout = 120_000)
    public void overSharedFilesAKeeperWithTheWrongTokenIsRefused() throws Exception {
        overSharedFiles();
        aKeeperWithTheWrongTokenIsRefusedExitsAtOnceAndRunsNothingBody();
    }

    private void aKeeperWithTheWrongTokenIsRefusedExitsAtOnceAndRunsNothingBody() throws Exception {
        RecordingContext context = context("token", false, "./trial.sh");
        ProcessKeeperLauncher launcher = launcher().token("not-the-token");
        try (TrainingSession session = open(context, launcher, false, 4, Duration.ofMinutes(1))) {
            session.submit(trial("Tok01", 0, TrialScripts.parameters(1, 1, 0, null, 0)));
            await().atMost(WAIT).until(() -> launcher.processes.containsKey("Tok01"));
            Process keeper = launcher.processes.get("Tok01");
            assertTrue(keeper.waitFor(30, TimeUnit.SECONDS));
            assertEquals(3, keeper.exitValue());
            String stderr = Files.readString(launcher.directory("Tok01").resolve("keeper.stderr"));
            assertTrue(stderr, stderr.contains("refused") && stderr.contains("wrong token"));
            assertFalse(stderr, stderr.contains("not-the-token"));
            awaitEnded(context, "Tok01");
            assertEquals(TrialStatus.FAILED, context.status("Tok01"));
            assertFalse("the trial never ran", Files.exists(launcher.directory("Tok01").resolve("stdout")));
            assertEquals(0, context.callsTotal());
        }
    }

    @Test(timeout = 180_000)
    public void hostileArchivesAreRefusedNamingTheEntryAndNothingLandsOutside() throws Exception {
        RecordingContext context = context("archives", false, "./trial.sh");
        ProcessKeeperLauncher launcher = launcher().arguments("--max-code-entries", "50");
        Path archives = Files.createDirectories(root.resolve("archives"));
        String chain = "a/b/c/d/e/f/g/h";
        String up = "../../../../../../../..";
        Map<String, Path> cases = new java.util.LinkedHashMap<>();
        cases.put("Ar01", new TarBuilder().directory(chain + "/").symlink(chain + "/l", up).symlink(chain + "/l/rootlink", up)
                .file("rootlink/tmp/escaped", "bad").write(archives.resolve("chain.tar.gz")));
        cases.put("Ar02", bomb());
        TarBuilder many = new TarBuilder();
        for (int i = 0; i < 60; i++) {
            many.file("f" + i, "x");
        }
        cases.put("Ar03", many.write(archives.resolve("many.tar.gz")));
        cases.put("Ar04", new TarBuilder().pax("50 path=x\n").file("x", "x").write(archives.resolve("pax.tar.gz")));
        cases.put("Ar05", new TarBuilder().file("ok.txt", "fine").file("../../escaped", "bad").write(archives.resolve("dotdot.tar.gz")));
        cases.put("Ar06", new TarBuilder().file(root.resolve("absolute-escaped").toString(), "bad").write(archives.resolve("absolute.tar.gz")));
        cases.put("Ar07", new TarBuilder().symlink("etc", "/etc").write(archives.resolve("abslink.tar.gz")));
        cases.put("Ar08", new TarBuilder().symlink("up", "../..").file("up/escaped", "bad").write(archives.resolve("uplink.tar.gz")));
        cases.put("Ar09", new TarBuilder().hardlink("passwd", "/etc/passwd").write(archives.resolve("hard.tar.gz")));
        cases.put("Ar10", new TarBuilder().device("null", '3').write(archives.resolve("device.tar.gz")));
        Map<String, String> expected = Map.of("Ar01", "'" + chain + "/l/rootlink'", "Ar02", "over 512 MiB", "Ar03", "more than 50 entries",
                "Ar04", "malformed pax", "Ar05", "'../../escaped'", "Ar06", "absolute path", "Ar07", "absolute path '/etc'",
                "Ar08", "'up'", "Ar09", "hard link", "Ar10", "device");
        cases.forEach(launcher::archive);
        try (TrainingSession session = open(context, launcher, false, 4, Duration.ofMinutes(1))) {
            int sequence = 0;
            for (String id : cases.keySet()) {
                session.submit(trial(id, sequence++, TrialScripts.parameters(1, 1, 0, null, 0)));
            }
            for (String id : cases.keySet()) {
                awaitEnded(context, id);
                String message = context.latest(id).message();
                assertEquals(id + ": " + message, TrialStatus.FAILED, context.status(id));
                assertTrue(id + ": " + message, message.contains(expected.get(id)) && message.contains("could not start the trial"));
                assertFalse(id + " ran", Files.exists(launcher.directory(id).resolve("stdout")));
            }
            assertEquals(0, context.callsTotal());
        }
        try (Stream<Path> everything = Files.walk(root)) {
            List<Path> escaped = everything.filter(p -> p.getFileName().toString().contains("escaped")).toList();
            assertEquals("nothing was written outside a code directory", List.of(), escaped);
        }
        assertFalse(Files.exists(launcher.directory("Ar01").resolve("code").resolve("rootlink")));
        try (Stream<Path> files = Files.walk(launcher.directory("Ar02"))) {
            long bytes = files.filter(Files::isRegularFile).mapToLong(p -> p.toFile().length()).sum();
            assertTrue("the bomb was refused before it was written: " + bytes, bytes < 1 << 20);
        }
    }

    @Test(timeout = 120_000)
    public void whatGnuTarWritesIsUnpacked() throws Exception {
        RecordingContext context = context("gnutar", false, "./check.sh");
        Path code = Path.of(String.valueOf(context.section().get("trialCodeDirectory")));
        String longName = "x".repeat(120) + ".txt";
        Files.createDirectories(code.resolve("a/b"));
        Files.writeString(code.resolve("a/b/" + longName), "long name");
        Files.createSymbolicLink(code.resolve("latest"), Path.of("a/b/" + longName));
        Files.writeString(code.resolve("check.sh"), "#!/bin/bash\n[ \"$(cat latest)\" = 'long name' ] && [ -L latest ] || exit 7\n");
        Files.setPosixFilePermissions(code.resolve("check.sh"), PosixFilePermissions.fromString("rwxr-xr-x"));
        Path gnu = root.resolve("gnu.tar.gz");
        Path pax = root.resolve("pax.tar.gz");
        tar("czf", gnu.toString(), "-C", code.toString(), ".");
        tar("--format=pax", "-czf", pax.toString(), "-C", code.toString(), ".");
        ProcessKeeperLauncher launcher = launcher().archive("Gt001", gnu).archive("Gt002", pax);
        try (TrainingSession session = open(context, launcher, false, 2, Duration.ofMinutes(1))) {
            session.submit(trial("Gt001", 0, TrialScripts.parameters(1, 0, 0, null, 0)));
            session.submit(trial("Gt002", 1, TrialScripts.parameters(1, 0, 0, null, 0)));
            awaitEnded(context, "Gt001");
            awaitEnded(context, "Gt002");
            assertEquals(context.latest("Gt001").message(), TrialStatus.SUCCEEDED, context.status("Gt001"));
            assertEquals(context.latest("Gt002").message(), TrialStatus.SUCCEEDED, context.status("Gt002"));
        }
    }

    // ------------------------------------------------------------------------------------------
    // against a manager that answers what no real one should

    @Test(timeout = 120_000)
    public void answersItCannotUseAreRetriedAfterGrowingPausesNotAtOnce() throws Exception {
        List<FakeManager.Answer> unusable = List.of(new FakeManager.Answer(200, "{\"acked\":0}"),
                new FakeManager.Answer(400, "{\"error\":\"bad batch\"}"), new FakeManager.Answer(200, "<html>proxy</html>"),
                new FakeManager.Answer(503, ""), new FakeManager.Answer(200, "{\"acked\":999999}"),
                new FakeManager.Answer(500, "{\"error\":\"store failed\"}"), new FakeManager.Answer(413, "{\"error\":\"too big\"}"));
        AtomicInteger reports = new AtomicInteger();
        AtomicInteger polls = new AtomicInteger();
        Path never = root.resolve("never");
        try (FakeManager manager = new FakeManager(request -> {
            if (request.path().endsWith("/handshake")) {
                return handshakeWithTrial("Bo001", TrialScripts.parameters(1, 3, 0, never.toString(), 0));
            }
            if (request.path().contains("/reports")) {
                int n = reports.getAndIncrement();
                return n < unusable.size() ? unusable.get(n) : new FakeManager.Answer(200, "{\"acked\":" + lastSeq(request.body()) + "}");
            }
            int n = polls.getAndIncrement();
            return n < unusable.size() ? unusable.get((n + 2) % unusable.size()) : noCommands();
        })) {
            Process keeper = startKeeper(manager, "trial", "Bo001", packedTrialCode(), List.of());
            await().atMost(WAIT).until(() -> manager.requests("/reports").size() > unusable.size());
            assertTrue("the keeper keeps trying", keeper.isAlive());
            assertGrowingPauses(manager.requests("/reports").subList(0, unusable.size()));
            assertGrowingPauses(manager.requests("/commands").subList(0, unusable.size()));
            // usable answers again: everything spooled meanwhile arrives
            await().atMost(WAIT).until(() -> manager.requests("/reports").stream().anyMatch(r -> r.body().contains("\"FINAL\"")
                    || countMetrics(r.body()) >= 3));
            keeper.destroyForcibly();
        }
    }

    /**
     * Over the file transport against a manager played by the test: the keeper's first report file
     * shows torn (a storage that made the rename visible before the data) and is not acknowledged;
     * the keeper writes the unacknowledged reports again, and every report arrives exactly once
     * (counted by sequence from every whole file the keeper wrote), the trial's end last.
     */
    @Test(timeout = 120_000)
    public void overSharedFilesATornReportFileIsWrittenAgainAndEveryReportArrivesOnce() throws Exception {
        Path folder = root.resolve("channel-Tf001");
        Path reports = Files.createDirectories(folder.resolve("reports"));
        Files.createDirectories(folder.resolve("commands"));
        Path go = root.resolve("go-Tf001");
        List<String> command = keeperCommand("trial", "--channel", folder.toString(), "--experiment", "fake", "--trial", "Tf001",
                "--platform", "dlc", "--code", packedTrialCode().toString(), "--command", "./trial.sh", "--work-dir",
                root.resolve("Tf001").toString());
        ProcessBuilder builder = new ProcessBuilder(command).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(root.resolve("Tf001.stderr").toFile());
        builder.environment().put("NNI_KEEPER_TOKEN", "files-token");
        Process keeper = builder.start();
        try {
            await().atMost(WAIT).until(() -> Files.exists(folder.resolve("hello.json")));
            Map<String, Object> hello = json(folder.resolve("hello.json"));
            assertEquals("files-token", hello.get("token"));
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(folder.resolve("hello.json"))));
            String parameters = TrialScripts.parameters(1, 4, 4, go.toString(), 0).replace("\\", "\\\\").replace("\"", "\\\"");
            Files.writeString(folder.resolve(".welcome.json.tmp"), "{\"nonce\":\"" + hello.get("nonce") + "\",\"managerVersion\":\"test\","
                    + "\"protocol\":1,\"trial\":{\"trial\":\"Tf001\",\"sequenceId\":0,\"parameter\":{\"value\":\"" + parameters
                    + "\",\"index\":0}}}");
            Files.move(folder.resolve(".welcome.json.tmp"), folder.resolve("welcome.json"), java.nio.file.StandardCopyOption.ATOMIC_MOVE);
            // the first report file: torn as the storage shows it, and never acknowledged
            await().atMost(WAIT).until(() -> reportFiles(reports).size() > 0);
            Path first = reportFiles(reports).get(0);
            String whole = Files.readString(first);
            Files.writeString(first, whole.substring(0, whole.length() / 2));
            Files.writeString(go, "go");
            // the keeper writes what is unacknowledged again, from sequence 1, as a whole file
            Map<Long, String> received = new java.util.TreeMap<>();
            await().atMost(WAIT).until(() -> {
                collect(reports, received);
                return received.containsKey(1L);
            });
            // from now on the test acknowledges what it has, in order, until the trial's end
            await().atMost(WAIT).until(() -> {
                collect(reports, received);
                long upTo = 0;
                while (received.containsKey(upTo + 1)) {
                    upTo++;
                }
                if (upTo > 0) {
                    Files.writeString(folder.resolve(".acked.tmp"), Long.toString(upTo));
                    Files.move(folder.resolve(".acked.tmp"), folder.resolve("acked"), java.nio.file.StandardCopyOption.ATOMIC_MOVE,
                            java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                }
                return received.values().stream().anyMatch(r -> r.contains("\"kind\":\"ended\""));
            });
            assertTrue(keeper.waitFor(60, TimeUnit.SECONDS));
            assertEquals(Files.readString(root.resolve("Tf001.stderr")), 0, keeper.exitValue());
            List<Long> sequences = List.copyOf(received.keySet());
            assertEquals("sequences 1..n, each once", java.util.stream.LongStream.rangeClosed(1, sequences.size()).boxed().toList(), sequences);
            long metrics = received.values().stream().filter(r -> r.contains("\"kind\":\"metric\"")).count();
            assertEquals("4 + 4 intermediate results and the final one", 9, metrics);
            assertTrue(received.get((long) sequences.size()).contains("\"kind\":\"ended\""));
            assertEquals("the keeper deletes its report files once acknowledged", List.of(), reportFiles(reports));
        } finally {
            keeper.destroyForcibly();
        }
    }

    private static List<Path> reportFiles(Path reports) throws IOException {
        try (Stream<Path> files = Files.list(reports)) {
            return files.filter(f -> f.getFileName().toString().matches("\\d{20}-\\d{20}\\.json")).sorted().toList();
        }
    }

    /** Adds the reports of every whole report file by sequence; a report seen twice must be the same text. */
    private static void collect(Path reports, Map<Long, String> received) throws IOException {
        for (Path file : reportFiles(reports)) {
            Map<String, Object> body;
            try {
                body = json(file);
            } catch (IOException | RuntimeException tornOrGone) {
                continue;
            }
            for (Object report : (List<?>) body.get("reports")) {
                Map<?, ?> map = (Map<?, ?>) report;
                long seq = ((Number) map.get("seq")).longValue();
                String text = new com.fasterxml.jackson.databind.ObjectMapper().writeValueAsString(map);
                String before = received.putIfAbsent(seq, text);
                assertTrue("report " + seq + " changed between files", before == null || before.equals(text));
            }
        }
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> json(Path file) throws IOException {
        return new com.fasterxml.jackson.databind.ObjectMapper().readValue(Files.readAllBytes(file), Map.class);
    }

    @Test(timeout = 120_000)
    public void aKeeperRefusedForGoodExitsAtOnceAndKillsItsTrialsProcessGroup() throws Exception {
        AtomicBoolean refuse = new AtomicBoolean();
        Path never = root.resolve("never");
        Path work = root.resolve("refused");
        try (FakeManager manager = new FakeManager(request -> {
            if (request.path().endsWith("/handshake")) {
                return handshakeWithTrial("Rf001", TrialScripts.parameters(1, 2, 0, never.toString(), 0, true));
            }
            if (refuse.get()) {
                return unknownKeeper("Rf001");
            }
            if (request.path().contains("/reports")) {
                return new FakeManager.Answer(200, "{\"acked\":" + lastSeq(request.body()) + "}");
            }
            return noCommands();
        })) {
            Process keeper = startKeeper(manager, "trial", "Rf001", packedTrialCode(), List.of("--work-dir", work.toString(),
                    "--kill-grace-seconds", "1"));
            long[] child = new long[1];
            Ending ending = refusedAt(keeper, refuse, NO_LINE, reader -> {
                child[0] = childPid(work);
                assertTrue(ProcessHandle.of(child[0]).map(ProcessHandle::isAlive).orElse(false));
            }, manager);
            assertEquals(ending.said(), 3, ending.exitCode());
            await().atMost(WAIT).until(() -> !ProcessHandle.of(child[0]).map(ProcessHandle::isAlive).orElse(false));
            assertTrue(ending.said(), ending.said().contains("unknown keeper or wrong token"));
        }
    }

    /**
     * The order that used to leave a refused keeper waiting out its give-up time, made to happen
     * every time: the trial ends by itself while the manager answers the reports with 503, so the
     * keeper takes the orderly path and says it waits for acknowledgements (its own line, read
     * here); only then is it refused. It must exit 3 at once, not after {@code --give-up-seconds}.
     */
    @Test(timeout = 120_000)
    public void aRefusalWhileTheKeeperWaitsForAcknowledgementsEndsItAtOnce() throws Exception {
        AtomicBoolean refuse = new AtomicBoolean();
        try (FakeManager manager = new FakeManager(request -> {
            if (request.path().endsWith("/handshake")) {
                return handshakeWithTrial("Rw001", TrialScripts.parameters(1, 2, 0, null, 0));
            }
            if (refuse.get()) {
                return unknownKeeper("Rw001");
            }
            return request.path().contains("/reports") ? new FakeManager.Answer(503, "") : noCommands();
        })) {
            Process keeper = startKeeper(manager, "trial", "Rw001", packedTrialCode(), List.of("--give-up-seconds", "900"));
            Ending ending = refusedWhileAwaitingAcknowledgements(keeper, refuse, manager);
            assertEquals(ending.said(), 3, ending.exitCode());
        }
    }

    /**
     * A session may end as soon as it has applied a trial's end, before the keeper running that trial
     * sees the acknowledgement (over shared files the watcher applies the report, the session closes and
     * writes {@code gone.json} before the acknowledgement): refused with 410 then, the keeper has run its
     * trial to its end, and exits with the trial's code, not 3 (a cluster would count the job failed).
     * The order is made certain here: the batch holding the trial's end is answered with the refusal.
     */
    @Test(timeout = 120_000)
    public void aTrialKeeperWhoseSessionIsGoneAfterItsTrialEndedExitsWithTheTrialsCode() throws Exception {
        Pattern trialEnd = Pattern.compile("\"kind\"\\s*:\\s*\"ended\"");
        AtomicBoolean gone = new AtomicBoolean();
        try (FakeManager manager = new FakeManager(request -> {
            if (request.path().endsWith("/handshake")) {
                return handshakeWithTrial("Sg001", TrialScripts.parameters(1, 2, 0, null, 5));
            }
            if (gone.get() || request.path().contains("/reports") && trialEnd.matcher(request.body()).find()) {
                gone.set(true);
                return new FakeManager.Answer(410, "{\"error\":\"the experiment's session has ended\"}");
            }
            return request.path().contains("/reports") ? new FakeManager.Answer(200, "{\"acked\":" + lastSeq(request.body()) + "}")
                    : noCommands();
        })) {
            Process keeper = startKeeper(manager, "trial", "Sg001", packedTrialCode(), List.of("--give-up-seconds", "900"));
            StringBuilder said = new StringBuilder();
            StderrReader reader = readStderr(keeper, said, NO_LINE);
            boolean exited = keeper.waitFor(60, TimeUnit.SECONDS);
            reader.thread().join(exited ? 10_000 : 0);
            synchronized (said) {
                assertTrue("the keeper did not exit within 60 s; it said:\n" + said, exited);
                assertTrue("the manager never saw the trial's end; the keeper said:\n" + said, gone.get());
                assertEquals(said.toString(), 5, keeper.exitValue());
                assertTrue(said.toString(), said.toString().contains("the experiment's session has ended"));
            }
        }
    }

    /**
     * A restarted manager cannot know whether a runner keeper got the new-trial command the runtime
     * before the crash queued for it (its link file lists the trial as the keeper's), so it sends
     * the command again: a keeper given a trial it has already started runs it once, whether the
     * trial still runs or has ended, and takes the next trial as usual.
     */
    @Test(timeout = 120_000)
    public void aRunnerGivenATrialItAlreadyStartedDoesNotRunItAgain() throws Exception {
        Path release = root.resolve("release-Rn001");
        String first = newTrialCommand(1, "Rn001", TrialScripts.parameters(1, 2, 0, release.toString(), 0));
        String again = newTrialCommand(2, "Rn001", TrialScripts.parameters(1, 2, 0, null, 0));
        String afterEnd = newTrialCommand(3, "Rn001", TrialScripts.parameters(1, 2, 0, null, 0));
        String next = newTrialCommand(4, "Rn002", TrialScripts.parameters(2, 2, 0, null, 0));
        String stop = "{\"id\":5,\"type\":\"stop\"}";
        List<Map<String, Object>> reports = new java.util.concurrent.CopyOnWriteArrayList<>();
        try (FakeManager manager = new FakeManager(request -> {
            if (request.path().endsWith("/handshake")) {
                return new FakeManager.Answer(200, "{\"managerVersion\":\"fake\",\"protocol\":1}");
            }
            if (request.path().contains("/reports")) {
                reports.addAll(reportsOf(request.body()));
                return new FakeManager.Answer(200, "{\"acked\":" + lastSeq(request.body()) + "}");
            }
            Matcher after = Pattern.compile("after=(\\d+)").matcher(request.path());
            long seen = after.find() ? Long.parseLong(after.group(1)) : 0;
            // the same trial again while it runs, again once it has ended, then the next trial, then stop
            List<String> queue = new ArrayList<>(List.of(first));
            if (reported(reports, "started", "Rn001")) {
                queue.add(again);
            }
            if (reported(reports, "ended", "Rn001")) {
                queue.add(afterEnd);
                queue.add(next);
            }
            if (reported(reports, "ended", "Rn002")) {
                queue.add(stop);
            }
            List<String> fresh = queue.subList((int) Math.min(seen, queue.size()), queue.size());
            return fresh.isEmpty() ? noCommands() : new FakeManager.Answer(200, "{\"commands\":[" + String.join(",", fresh) + "]}");
        })) {
            Process keeper = startKeeper(manager, "runner", "Rn000", packedTrialCode(), List.of());
            // the repeated command reached the keeper while the trial still ran: only then may it end
            await().atMost(WAIT).until(() -> manager.requests("after=2").size() > 0);
            Files.writeString(release, "go");
            assertTrue("the keeper did not stop after the second trial", keeper.waitFor(60, TimeUnit.SECONDS));
            assertEquals(0, keeper.exitValue());
            assertEquals(reports.toString(), 1, count(reports, "started", "Rn001"));
            assertEquals(reports.toString(), 1, count(reports, "ended", "Rn001"));
            assertEquals(reports.toString(), 1, count(reports, "started", "Rn002"));
            assertEquals(reports.toString(), 1, count(reports, "ended", "Rn002"));
        }
    }

    /**
     * A session that ends stops its environments and forgets their keepers at once, so a keeper
     * that has taken the stop may be refused before it is done (its last reports): that is the end
     * it was told to make, not a failure. Made to happen every time: the runner's first report is
     * answered 503 until the keeper, having taken the stop, says it waits for acknowledgements (its
     * own line, read here); only then is it refused. It must exit 0 (a job that ends non-zero counts
     * as failed on a cluster), and still say what it could not deliver.
     */
    @Test(timeout = 120_000)
    public void aKeeperRefusedAfterTakingTheStopExitsZero() throws Exception {
        AtomicBoolean refuse = new AtomicBoolean();
        AtomicBoolean stopSent = new AtomicBoolean();
        try (FakeManager manager = new FakeManager(request -> {
            if (request.path().endsWith("/handshake")) {
                return new FakeManager.Answer(200, "{\"managerVersion\":\"fake\",\"protocol\":1}");
            }
            if (refuse.get()) {
                return unknownKeeper("St000");
            }
            if (request.path().contains("/reports")) {
                return new FakeManager.Answer(503, "");
            }
            return stopSent.getAndSet(true) ? noCommands() : new FakeManager.Answer(200, "{\"commands\":[{\"id\":1,\"type\":\"stop\"}]}");
        })) {
            Process keeper = startKeeper(manager, "runner", "St000", packedTrialCode(), List.of("--give-up-seconds", "900"));
            Ending ending = refusedWhileAwaitingAcknowledgements(keeper, refuse, manager);
            assertEquals(ending.said(), 0, ending.exitCode());
        }
    }

    /**
     * The same session's end with the other order: the keeper asks again before it has taken the
     * stop, and is refused. The manager's refusal says that it had sent a stop ({@code "stopped":
     * true}), and the keeper ends as that stop would have ended it: its trial killed, exit 0.
     * Made certain here: the stop is never delivered; once the runner's trial runs, every request
     * is refused so.
     */
    @Test(timeout = 120_000)
    public void aKeeperRefusedBeforeTakingTheStopExitsZeroWhenTheRefusalSaysItWasStopped() throws Exception {
        AtomicBoolean refuse = new AtomicBoolean();
        Path never = root.resolve("never");
        Path work = root.resolve("Sb000");
        String trial = newTrialCommand(1, "Sb001", TrialScripts.parameters(1, 2, 0, never.toString(), 0, true));
        try (FakeManager manager = new FakeManager(request -> {
            if (request.path().endsWith("/handshake")) {
                return new FakeManager.Answer(200, "{\"managerVersion\":\"fake\",\"protocol\":1}");
            }
            if (refuse.get()) {
                return new FakeManager.Answer(410, "{\"error\":\"the manager ended the session of keeper Sb000 of experiment fake"
                        + " after telling it to stop\",\"stopped\":true}");
            }
            if (request.path().contains("/reports")) {
                return new FakeManager.Answer(200, "{\"acked\":" + lastSeq(request.body()) + "}");
            }
            return request.path().contains("after=0") ? new FakeManager.Answer(200, "{\"commands\":[" + trial + "]}") : noCommands();
        })) {
            Process keeper = startKeeper(manager, "runner", "Sb000", packedTrialCode(), List.of("--work-dir", work.toString(),
                    "--kill-grace-seconds", "1"));
            long[] child = new long[1];
            Ending ending = refusedAt(keeper, refuse, NO_LINE, reader -> {
                child[0] = childPid(work.resolve("trials").resolve("Sb001"));
                assertTrue(ProcessHandle.of(child[0]).map(ProcessHandle::isAlive).orElse(false));
            }, manager);
            assertEquals(ending.said(), 0, ending.exitCode());
            assertTrue(ending.said(), ending.said().contains("after telling it to stop"));
            await().atMost(WAIT).until(() -> !ProcessHandle.of(child[0]).map(ProcessHandle::isAlive).orElse(false));
        }
    }

    /**
     * Over the file transport a session that ends writes its keepers' stop, then {@code gone.json}:
     * a keeper may see the second before it takes the first. Made certain here: a torn command file
     * ahead of the stop keeps the keeper from taking it (commands are taken in order), the runner's
     * first report is left unacknowledged, and then the stop and {@code gone.json} are written. The
     * refusal is the end the keeper was asked for: exit 0, with what it could not deliver said.
     */
    @Test(timeout = 120_000)
    public void overSharedFilesTheSessionGoneBeforeTheKeeperTookItsStopEndsItWithZero() throws Exception {
        Path folder = root.resolve("channel-Sg000");
        Path reports = Files.createDirectories(folder.resolve("reports"));
        Path commands = Files.createDirectories(folder.resolve("commands"));
        List<String> command = keeperCommand("runner", "--channel", folder.toString(), "--experiment", "fake", "--environment",
                "Sg000", "--platform", "dlc", "--code", packedTrialCode().toString(), "--command", "./trial.sh", "--work-dir",
                root.resolve("Sg000").toString(), "--give-up-seconds", "900");
        ProcessBuilder builder = new ProcessBuilder(command).redirectOutput(ProcessBuilder.Redirect.DISCARD);
        builder.environment().put("NNI_KEEPER_TOKEN", "files-token");
        Process keeper = builder.start();
        StringBuilder said = new StringBuilder();
        StderrReader reader = readStderr(keeper, said, NO_LINE);
        try {
            await().atMost(WAIT).until(() -> Files.exists(folder.resolve("hello.json")));
            Map<String, Object> hello = json(folder.resolve("hello.json"));
            Files.writeString(folder.resolve(".welcome.json.tmp"), "{\"nonce\":\"" + hello.get("nonce")
                    + "\",\"managerVersion\":\"test\",\"protocol\":1}");
            Files.move(folder.resolve(".welcome.json.tmp"), folder.resolve("welcome.json"), java.nio.file.StandardCopyOption.ATOMIC_MOVE);
            await().atMost(WAIT).until(() -> reportFiles(reports).size() > 0); // its "ready", never acknowledged
            Files.writeString(commands.resolve("%020d.json".formatted(1)), "{\"id\":1,\"ty");
            Files.writeString(commands.resolve("%020d.json".formatted(2)), "{\"id\":2,\"type\":\"stop\"}");
            Files.writeString(folder.resolve("gone.json"), "{\"status\":410,\"error\":\"the experiment's session has ended\"}");
            boolean exited = keeper.waitFor(60, TimeUnit.SECONDS);
            reader.thread().join(exited ? 10_000 : 0);
            synchronized (said) {
                assertTrue("the keeper did not exit within 60 s; it said:\n" + said, exited);
                assertEquals(said.toString(), 0, keeper.exitValue());
                assertTrue(said.toString(), said.toString().contains("the experiment's session has ended"));
                assertTrue(said.toString(), said.toString().contains("reports were not delivered"));
            }
        } finally {
            keeper.destroyForcibly();
        }
    }

    /** What the keeper prints once it has ended in order and waits for its last reports to be acknowledged. */
    private static final String WAITING_FOR_ACKNOWLEDGEMENTS = "waiting up to 900 s for the manager to acknowledge";
    /** For a refusal test whose moment is not a line the keeper says. */
    private static final String NO_LINE = "(no line awaited)";

    /** The order a refusal test makes certain before the manager refuses the keeper. */
    @FunctionalInterface
    private interface Moment {
        /** Returns once the order is there; fails the test if it never comes. */
        void await(StderrReader reader) throws Exception;
    }

    /** How a refused keeper ended: its exit code and all it said on stderr. */
    private record Ending(int exitCode, String said) {
    }

    /**
     * The shape of the HTTP refusal tests: reads the keeper's stderr ({@code heard} opens at
     * {@code awaited}), waits for the {@code moment} the test makes certain, then sets
     * {@code refuse} (from then on the manager refuses the keeper). Fails, with what the keeper said,
     * its threads (a Java keeper's) and the manager's last requests, when it does not exit within 60 s.
     */
    private static Ending refusedAt(Process keeper, AtomicBoolean refuse, String awaited, Moment moment, FakeManager manager)
            throws Exception {
        StringBuilder said = new StringBuilder();
        StderrReader reader = readStderr(keeper, said, awaited);
        try {
            moment.await(reader);
            refuse.set(true);
            boolean exited = keeper.waitFor(60, TimeUnit.SECONDS);
            String threads = exited ? "" : threadsOf(keeper);
            if (!exited) {
                keeper.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
            reader.thread().join(10_000);
            List<FakeManager.Request> requests = manager.requests("/");
            synchronized (said) {
                assertTrue("the refused keeper did not exit within 60 s; it said:\n" + said + "\nlast requests: "
                        + requests.stream().skip(Math.max(0, requests.size() - 10)).map(r -> r.method() + " " + r.path()).toList()
                        + "\nits threads:\n" + threads, exited);
                return new Ending(keeper.exitValue(), said.toString());
            }
        } finally {
            keeper.destroyForcibly();
        }
    }

    /**
     * {@link #refusedAt} once the keeper says it waits for acknowledgements (its reports answered
     * 503), refused as unknown: it must say what it could not deliver.
     */
    private static Ending refusedWhileAwaitingAcknowledgements(Process keeper, AtomicBoolean refuse, FakeManager manager)
            throws Exception {
        Ending ending = refusedAt(keeper, refuse, WAITING_FOR_ACKNOWLEDGEMENTS,
                reader -> assertTrue("the keeper never said it waits for acknowledgements", reader.heard().await(60, TimeUnit.SECONDS)),
                manager);
        assertTrue(ending.said(), ending.said().contains("unknown keeper or wrong token"));
        assertTrue(ending.said(), ending.said().contains("reports were not delivered"));
        return ending;
    }

    private static String threadsOf(Process keeper) throws IOException, InterruptedException {
        Process dump = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
                Long.toString(keeper.pid()), "Thread.print").redirectErrorStream(true).start();
        String threads = new String(dump.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        dump.waitFor(10, TimeUnit.SECONDS);
        return threads;
    }

    /** A keeper's stderr being read: {@code heard} opens at the awaited line; the thread ends with the stream. */
    private record StderrReader(java.util.concurrent.CountDownLatch heard, Thread thread) {
    }

    /** Collects what the keeper says on stderr into {@code said} (synchronized on it) on a thread of its own. */
    private static StderrReader readStderr(Process keeper, StringBuilder said, String awaited) {
        java.util.concurrent.CountDownLatch heard = new java.util.concurrent.CountDownLatch(1);
        Thread reader = new Thread(() -> {
            try (java.io.BufferedReader lines = new java.io.BufferedReader(
                    new java.io.InputStreamReader(keeper.getErrorStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = lines.readLine()) != null; ) {
                    synchronized (said) {
                        said.append(line).append('\n');
                    }
                    if (line.startsWith(awaited)) {
                        heard.countDown();
                    }
                }
            } catch (IOException ignored) {
                // the keeper is gone
            }
        }, "keeper-stderr");
        reader.setDaemon(true);
        reader.start();
        return new StderrReader(heard, reader);
    }

    private static String newTrialCommand(long id, String trial, String parameters) {
        String value = parameters.replace("\\", "\\\\").replace("\"", "\\\"");
        return "{\"id\":" + id + ",\"type\":\"new-trial\",\"trial\":\"" + trial
                + "\",\"sequenceId\":0,\"parameter\":{\"value\":\"" + value + "\",\"index\":0}}";
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> reportsOf(String body) {
        try {
            Map<String, Object> batch = new com.fasterxml.jackson.databind.ObjectMapper().readValue(body, Map.class);
            return (List<Map<String, Object>>) batch.getOrDefault("reports", List.of());
        } catch (IOException e) {
            throw new IllegalStateException("a report batch that is not JSON: " + body, e);
        }
    }

    private static boolean reported(List<Map<String, Object>> reports, String kind, String trial) {
        return count(reports, kind, trial) > 0;
    }

    private static long count(List<Map<String, Object>> reports, String kind, String trial) {
        // a batch sent again after a lost answer repeats sequences: count each sequence once
        return reports.stream().filter(r -> kind.equals(r.get("kind")) && trial.equals(r.get("trial")))
                .map(r -> r.get("seq")).distinct().count();
    }

    @Test(timeout = 60_000)
    public void versionAndHelpExitZeroAndABadCommandLineTwo() throws Exception {
        Process version = new ProcessBuilder(keeperCommand("--version")).start();
        String versionText = new String(version.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(version.waitFor(30, TimeUnit.SECONDS));
        assertEquals(0, version.exitValue());
        assertEquals(VERSION_LINE + "\n", versionText);
        Process help = new ProcessBuilder(keeperCommand("--help")).start();
        String helpText = new String(help.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(help.waitFor(30, TimeUnit.SECONDS));
        assertEquals(0, help.exitValue());
        assertTrue(helpText, helpText.startsWith("usage: ") && helpText.contains("--token-file FILE") && helpText.contains("--max-code-mb N")
                && helpText.contains("3 (refused by the manager"));
        Process bad = new ProcessBuilder(keeperCommand("trial", "--manager")).redirectErrorStream(true).start();
        String badText = new String(bad.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(bad.waitFor(30, TimeUnit.SECONDS));
        assertEquals(badText, 2, bad.exitValue());
        assertTrue(badText, badText.contains("--manager needs a value"));
    }

    // ------------------------------------------------------------------------------------------

    private List<String> keeperCommand(String... arguments) {
        List<String> command = new ArrayList<>(kind().command(keeperFile));
        command.addAll(List.of(arguments));
        return command;
    }

    private ProcessKeeperLauncher launcher() {
        return new ProcessKeeperLauncher(root.resolve("keepers"), kind());
    }

    private TrainingSession open(RecordingContext context, ProcessKeeperLauncher launcher, boolean reuse, int environments,
                                 Duration idle) throws Exception {
        return service(KeeperSessions.class, null).open(context, launcher, KeeperOptions.builder("remote").reuse(reuse)
                .maxEnvironments(environments).idleTimeout(idle).keeper(kind().choice())
                .transport(channels == null ? KeeperTransport.http() : KeeperTransport.sharedFiles(channels, channels.toString())).build());
    }

    /** The test runs over the file transport: the keepers' channel folders below {@code root/channels}. */
    private void overSharedFiles() throws IOException {
        channels = Files.createDirectories(root.resolve("channels"));
    }

    private RecordingContext context(String experimentId, boolean reuse, String command) throws IOException {
        return RecordingContext.withTrialScripts(experimentId, Files.createDirectories(root.resolve(experimentId)), "remote", command, reuse);
    }

    private static TrialApplication trial(String id, long sequence, String parameters) {
        return TrialApplication.builder(id).sequenceId(sequence).hyperParameters(HyperParameters.of(parameters, 0))
                .placement(Placement.none()).build();
    }

    private static void awaitEnded(RecordingContext context, String trialId) {
        await().atMost(WAIT).until(() -> context.status(trialId) != null && context.status(trialId).isTerminal());
    }

    /** Every PERIODICAL 0..n-1 and the FINAL, each delivered exactly once. */
    private static void assertAllOnce(RecordingContext context, String trialId, int periodical) {
        Set<String> expected = new TreeSet<>();
        for (int i = 0; i < periodical; i++) {
            expected.add(trialId + "|PERIODICAL|" + i);
        }
        expected.add(trialId + "|FINAL|0");
        assertEquals(expected, context.stored(trialId));
        assertEquals("metric calls for " + trialId + " (duplicates?)", periodical + 1, context.calls(trialId));
        assertEquals(1, context.terminalChanges(trialId));
    }

    /** Retries pause at least half of a step that starts at 100 ms and doubles (jitter draws between half and all of it). */
    private static void assertGrowingPauses(List<FakeManager.Request> requests) {
        List<Long> gaps = new ArrayList<>();
        for (int i = 1; i < requests.size(); i++) {
            gaps.add(TimeUnit.NANOSECONDS.toMillis(requests.get(i).nanos() - requests.get(i - 1).nanos()));
        }
        for (int i = 0; i < gaps.size(); i++) {
            long least = Math.min(100L << i, 30_000) / 2;
            assertTrue("pause " + (i + 1) + " of " + gaps + " ms is shorter than " + least + " ms", gaps.get(i) >= least - 5);
        }
    }

    private Process startKeeper(FakeManager manager, String mode, String id, Path archive, List<String> more) throws IOException {
        List<String> command = keeperCommand(mode, "--manager", manager.url(), "--experiment", "fake", mode.equals("runner") ? "--environment" : "--trial",
                id, "--platform", "remote", "--code", archive.toString(), "--command", "./trial.sh");
        if (!more.contains("--work-dir")) {
            command.addAll(List.of("--work-dir", root.resolve(id).toString()));
        }
        command.addAll(more);
        ProcessBuilder builder = new ProcessBuilder(command).redirectOutput(ProcessBuilder.Redirect.DISCARD);
        builder.environment().put("NNI_KEEPER_TOKEN", "fake-token");
        return builder.start();
    }

    private Path packedTrialCode() throws Exception {
        Path archive = root.resolve("trial-code.tar.gz");
        if (!Files.exists(archive)) {
            Path code = TrialScripts.write(root.resolve("trial-code")).getParent();
            tar("czf", archive.toString(), "-C", code.toString(), ".");
        }
        return archive;
    }

    /** An empty long poll, held a little as the manager holds it (answering at once would make the keeper poll in a loop). */
    private static FakeManager.Answer noCommands() {
        try {
            Thread.sleep(200);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return new FakeManager.Answer(200, "{\"commands\":[]}");
    }

    /** The manager's refusal of a keeper it does not know (or whose token is wrong). */
    private static FakeManager.Answer unknownKeeper(String keeperId) {
        return new FakeManager.Answer(401, "{\"error\":\"unknown keeper or wrong token for keeper " + keeperId + "\"}");
    }

    private static FakeManager.Answer handshakeWithTrial(String trialId, String parameters) {
        String value = parameters.replace("\\", "\\\\").replace("\"", "\\\"");
        return new FakeManager.Answer(200, "{\"managerVersion\":\"fake\",\"protocol\":1,\"trial\":{\"trial\":\"" + trialId
                + "\",\"sequenceId\":0,\"parameter\":{\"value\":\"" + value + "\",\"index\":0}}}");
    }

    private static long lastSeq(String body) {
        Matcher seq = Pattern.compile("\"seq\":(\\d+)").matcher(body);
        long last = 0;
        while (seq.find()) {
            last = Long.parseLong(seq.group(1));
        }
        return last;
    }

    private static int countMetrics(String body) {
        Matcher metric = Pattern.compile("\"kind\":\"metric\"").matcher(body);
        int n = 0;
        while (metric.find()) {
            n++;
        }
        return n;
    }

    private static long childPid(Path trialDirectory) throws IOException {
        Path pidFile = trialDirectory.resolve("child.pid");
        await().atMost(WAIT).until(() -> Files.exists(pidFile) && !Files.readString(pidFile).isBlank());
        return Long.parseLong(Files.readString(pidFile).trim());
    }

    private static void tar(String... arguments) throws Exception {
        List<String> command = new ArrayList<>(List.of("tar"));
        command.addAll(List.of(arguments));
        Process tar = new ProcessBuilder(command).inheritIO().start();
        assertTrue(tar.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, tar.exitValue());
    }

    /** A gzip of about 1 MB that unpacks to one 1 GiB file, made once and kept in nni.itest/target. */
    private static Path bomb() throws IOException {
        Path bomb = Path.of(System.getProperty("nni.bundles.dir"), "nni.itest", "target", "bomb-1gib.tar.gz");
        if (!Files.exists(bomb)) {
            Path partial = bomb.resolveSibling("bomb-1gib.tar.gz.tmp");
            TarBuilder.writeZeros(partial, "zeros.bin", 1L << 30);
            Files.move(partial, bomb, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        }
        return bomb;
    }

    private Bundle bundle(String symbolicName) {
        for (Bundle bundle : context.getBundles()) {
            if (bundle.getSymbolicName().equals(symbolicName)) {
                return bundle;
            }
        }
        throw new AssertionError("no bundle " + symbolicName);
    }
}
