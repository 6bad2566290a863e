package nni.itest;

import static org.awaitility.Awaitility.await;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;
import org.osgi.framework.Bundle;

import nni.api.environment.EnvironmentLauncher;
import nni.api.environment.EnvironmentSpec;
import nni.api.environment.EnvironmentState;
import nni.api.environment.KeeperChoice;
import nni.api.environment.KeeperOptions;
import nni.api.environment.KeeperRuntime;
import nni.api.environment.KeeperSessions;
import nni.api.environment.LaunchedEnvironment;
import nni.api.model.HyperParameters;
import nni.api.model.Placement;
import nni.api.model.TrialApplication;
import nni.api.model.TrialJob;
import nni.api.model.TrialStatus;
import nni.api.platform.PlatformException;
import nni.api.platform.TrainingPlatform;
import nni.api.platform.TrainingSession;
import nni.api.platform.TransientPlatformException;
import nni.itest.keeper.CapturingLauncher;
import nni.itest.keeper.ProcessKeeperLauncher;
import nni.itest.keeper.RecordingContext;
import nni.itest.keeper.TrialScripts;

/**
 * Trials through real keeper processes against the runtime's one endpoint: local reuse mode end
 * to end, one keeper per trial, an endpoint outage in the middle of a trial, a refused protocol
 * version, refused tokens and bodies, and an unsafe code archive.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class TrialReportIT extends RuntimeTestSupport {

    private static final Duration WAIT = Duration.ofSeconds(60);
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @Configuration
    public Option[] config() {
        return new Option[] {baseOptions()};
    }

    /** A fixed port, so that the endpoint comes back on the same one after the outage. */
    @Override
    protected String httpPort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return Integer.toString(socket.getLocalPort());
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private RecordingContext context(String experimentId, boolean reuse) throws IOException {
        Path experiment = scratch("report-" + experimentId);
        Path code = experiment.resolve("code");
        TrialScripts.write(code);
        Map<String, Object> section = new HashMap<>();
        section.put("platform", "local");
        section.put("trialCommand", "./trial.sh");
        section.put("trialCodeDirectory", code.toString());
        section.put("reuseMode", reuse);
        return new RecordingContext(experimentId, experiment, section);
    }

    private static TrialApplication trial(String id, long sequence, String parameters) {
        return TrialApplication.builder(id).sequenceId(sequence).hyperParameters(HyperParameters.of(parameters, 0))
                .placement(Placement.none()).build();
    }

    private TrainingSession openLocal(RecordingContext context) throws Exception {
        await().atMost(WAIT).until(() -> service(TrainingPlatform.class, "(nni.platform=local)") != null
                && service(KeeperSessions.class, null) != null);
        return service(TrainingPlatform.class, "(nni.platform=local)").open(context);
    }

    private void awaitEnded(RecordingContext context, String trialId) {
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

    @Test(timeout = 120_000)
    public void localReuseRunsTrialsOneAfterAnotherOnOneEnvironmentAndSurvivesAFailingOne() throws Exception {
        RecordingContext context = context("reuse1", true);
        try (TrainingSession session = openLocal(context)) {
            String[] ids = {"Ra001", "Ra002", "Ra003"};
            int[] exits = {0, 3, 0};
            for (int i = 0; i < ids.length; i++) {
                TrialJob submitted = session.submit(trial(ids[i], i, TrialScripts.parameters(100 + i, 20, 20, null, exits[i])));
                assertEquals(TrialStatus.WAITING, submitted.status());
                awaitEnded(context, ids[i]);
            }
            assertEquals(TrialStatus.SUCCEEDED, context.status("Ra001"));
            assertEquals(TrialStatus.FAILED, context.status("Ra002"));
            assertEquals("exit code 3", context.latest("Ra002").message());
            assertEquals(TrialStatus.SUCCEEDED, context.status("Ra003"));
            for (String id : ids) {
                assertAllOnce(context, id, 40);
                assertTrue(context.changes.stream().anyMatch(j -> j.id().equals(id) && j.status() == TrialStatus.RUNNING));
            }
            assertTrue(context.lines("Ra002").stream().anyMatch(l -> l.contains("\"FINAL\"") && l.contains("\"101\"")));
            // one environment ran all three: the trial directories share it
            Path environment = Path.of(context.latest("Ra001").workingDirectory()).getParent().getParent();
            for (String id : ids) {
                assertEquals(environment.resolve("trials").resolve(id).toString(), context.latest(id).workingDirectory());
            }
            assertEquals(1, Files.list(context.experimentDirectory().resolve("environments")).filter(Files::isDirectory).count());
            try (var stdout = session.openTrialFile("Ra001", "stdout").orElseThrow()) {
                assertTrue(new String(stdout.readAllBytes()).contains("phase2-done"));
            }
        }
    }

    /**
     * The keeper session's side of the SPI 1.0 outcomes: a launcher refusing for now is asked again
     * and the trial shows why it waits; the environment's progress is the waiting reason; where the
     * environment runs is copied into the trial; only the keepers this build ships are offered.
     */
    @Test(timeout = 120_000)
    public void transientRefusalsAndProgressAreWaitingReasonsAndTheEnvironmentsFactsReachTheTrial() throws Exception {
        RecordingContext context = context("outcomes", false);
        ProcessKeeperLauncher processes = new ProcessKeeperLauncher(context.experimentDirectory().resolve("keepers"), List.of());
        List<EnvironmentSpec> specs = new java.util.concurrent.CopyOnWriteArrayList<>();
        java.util.concurrent.atomic.AtomicInteger refusals = new java.util.concurrent.atomic.AtomicInteger(2);
        EnvironmentLauncher launcher = (spec, listener) -> {
            specs.add(spec);
            if (refusals.getAndDecrement() > 0) {
                throw new TransientPlatformException("quota exceeded", Duration.ofMillis(100));
            }
            listener.stateChanged(EnvironmentState.PULLING_IMAGE, "waiting: pulling image test:1");
            LaunchedEnvironment started = processes.start(spec, listener);
            return new LaunchedEnvironment() {
                @Override
                public java.util.concurrent.CompletionStage<String> ended() {
                    return started.ended();
                }

                @Override
                public void stop() {
                    started.stop();
                }

                @Override
                public String handle() {
                    return "pid-" + processes.processes.get(spec.environmentId()).pid();
                }

                @Override
                public String host() {
                    return "keeper-host";
                }

                @Override
                public Map<String, String> attributes() {
                    return Map.of("keeper", "java");
                }
            };
        };
        KeeperSessions keepers = service(KeeperSessions.class, null);
        IllegalStateException noPython = assertThrows(IllegalStateException.class, () -> keepers.keeperFile(KeeperRuntime.PYTHON));
        assertEquals("this build has no Python keeper", noPython.getMessage());
        PlatformException refused = assertThrows(PlatformException.class, () -> keepers.open(context, launcher,
                KeeperOptions.builder("remote").keeper(KeeperChoice.PYTHON).build()));
        assertEquals("keeper = python: this build has no Python keeper", refused.getMessage());

        try (TrainingSession session = keepers.open(context, launcher, KeeperOptions.builder("remote").build())) {
            session.submit(trial("Ts001", 0, TrialScripts.parameters(3, 2, 0, null, 0)));
            awaitEnded(context, "Ts001");
        }
        assertEquals(TrialStatus.SUCCEEDED, context.status("Ts001"));
        List<String> waitingReasons = context.changes.stream().filter(j -> j.status() == TrialStatus.WAITING)
                .map(TrialJob::message).distinct().toList();
        assertTrue(waitingReasons.toString(), waitingReasons.containsAll(List.of("retrying in 1 s: quota exceeded",
                "waiting: pulling image test:1")));
        assertEquals("asked twice more after the refusals", 3, specs.size());
        TrialJob running = context.changes.stream().filter(j -> j.status() == TrialStatus.RUNNING).findFirst().orElseThrow();
        assertEquals("keeper-host", running.host());
        assertEquals(Map.of("keeper", "java"), running.attributes());
        assertEquals("Ts001 pid-" + processes.processes.get("Ts001").pid(), running.handle());
        EnvironmentSpec spec = specs.get(0);
        assertEquals(Set.of(KeeperRuntime.JAVA), spec.keepers());
        assertEquals(List.of("java", "-jar", "/w/k.jar", "trial"),
                spec.command(KeeperRuntime.JAVA, "/w/k.jar", "/w/c.tgz", "/w").subList(0, 4));
        assertTrue(spec.toString(), !spec.toString().contains(spec.token()));
    }

    @Test(timeout = 120_000)
    public void aTrialKeeperRunsOneTrialReportsEverythingAndExitsWithItsCode() throws Exception {
        RecordingContext context = context("pertrial", false);
        ProcessKeeperLauncher launcher = new ProcessKeeperLauncher(context.experimentDirectory().resolve("keepers"), List.of());
        KeeperSessions keepers = service(KeeperSessions.class, null);
        try (TrainingSession session = keepers.open(context, launcher,
                KeeperOptions.builder("remote").reuse(false).maxEnvironments(4).idleTimeout(Duration.ofMinutes(1)).build())) {
            session.submit(trial("Pt001", 0, TrialScripts.parameters(7, 30, 30, null, 5)));
            awaitEnded(context, "Pt001");
            assertEquals(TrialStatus.FAILED, context.status("Pt001"));
            assertAllOnce(context, "Pt001", 60);
            Process keeper = launcher.processes.get("Pt001");
            assertTrue(keeper.waitFor(30, TimeUnit.SECONDS));
            assertEquals("the keeper exits with the trial's code", 5, keeper.exitValue());
            Path trialDirectory = launcher.directory("Pt001");
            assertEquals(TrialScripts.parameters(7, 30, 30, null, 5), Files.readString(trialDirectory.resolve("parameter.cfg")));
            assertTrue(Files.readString(trialDirectory.resolve("stdout")).contains("phase2-done"));
        }
    }

    @Test(timeout = 120_000)
    public void anIdleEnvironmentEndsAfterItsTimeoutAndANewOneTakesTheNextTrial() throws Exception {
        RecordingContext context = context("idle", true);
        ProcessKeeperLauncher launcher = new ProcessKeeperLauncher(context.experimentDirectory().resolve("keepers"), List.of());
        KeeperSessions keepers = service(KeeperSessions.class, null);
        try (TrainingSession session = keepers.open(context, launcher,
                KeeperOptions.builder("remote").reuse(true).maxEnvironments(2).idleTimeout(Duration.ofSeconds(1)).build())) {
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
    public void cancelKillsTheTrialsWholeProcessGroupAndKeepsWhatItReported() throws Exception {
        RecordingContext context = context("cancel", true);
        Path never = context.experimentDirectory().resolve("never");
        try (TrainingSession session = openLocal(context)) {
            session.submit(trial("Can01", 0, TrialScripts.parameters(1, 5, 5, never.toString(), 0, true)));
            await().atMost(WAIT).until(() -> context.calls("Can01") == 5);
            Path pidFile = Path.of(context.latest("Can01").workingDirectory(), "child.pid");
            await().atMost(WAIT).until(() -> Files.exists(pidFile) && !Files.readString(pidFile).isBlank());
            long child = Long.parseLong(Files.readString(pidFile).trim());
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
        RecordingContext context = context("outage", true);
        Path go = context.experimentDirectory().resolve("go");
        Bundle jetty = bundle("org.apache.felix.http.jetty12");
        try (TrainingSession session = openLocal(context)) {
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

    @Test(timeout = 120_000)
    public void aKeeperOfAnotherProtocolIsRefusedOnBothSidesNamingBothVersions() throws Exception {
        RecordingContext context = context("version", false);
        ProcessKeeperLauncher launcher = new ProcessKeeperLauncher(context.experimentDirectory().resolve("keepers"),
                List.of("-Dnni.keeper.protocol=2"));
        KeeperSessions keepers = service(KeeperSessions.class, null);
        try (TrainingSession session = keepers.open(context, launcher,
                KeeperOptions.builder("remote").reuse(false).maxEnvironments(4).idleTimeout(Duration.ofMinutes(1)).build())) {
            session.submit(trial("Ver01", 0, TrialScripts.parameters(1, 1, 0, null, 0)));
            awaitEnded(context, "Ver01");
            assertEquals(TrialStatus.FAILED, context.status("Ver01"));
            String managerSide = context.latest("Ver01").message();
            String managerVersion = bundle("nni.manager").getVersion().toString();
            assertTrue(managerSide, managerSide.contains("manager " + managerVersion) && managerSide.contains("trial keeper 1.0.0")
                    && managerSide.contains("protocol 2") && managerSide.contains("[1]")
                    && managerSide.contains("run the trial keeper this manager ships"));
            Process keeper = launcher.processes.get("Ver01");
            assertTrue(keeper.waitFor(30, TimeUnit.SECONDS));
            assertEquals(3, keeper.exitValue());
            String keeperSide = Files.readString(launcher.directory("Ver01").resolve("keeper.stderr"));
            assertTrue(keeperSide, keeperSide.contains("refused trial keeper 1.0.0 (protocol 2)") && keeperSide.contains("manager " + managerVersion));
            assertEquals(0, context.callsTotal());
            PlatformException later = assertThrows(PlatformException.class,
                    () -> session.submit(trial("Ver02", 1, TrialScripts.parameters(1, 1, 0, null, 0))));
            assertTrue(later.getMessage(), later.getMessage().contains("protocol 2"));
        }
    }

    @Test(timeout = 120_000)
    public void reportsWithoutTheRightTokenAreRefusedAndNothingIsStoredTwice() throws Exception {
        RecordingContext context = context("token", true);
        CapturingLauncher launcher = new CapturingLauncher();
        KeeperSessions keepers = service(KeeperSessions.class, null);
        try (TrainingSession session = keepers.open(context, launcher,
                KeeperOptions.builder("remote").reuse(true).maxEnvironments(1).idleTimeout(Duration.ofMinutes(1)).build())) {
            session.submit(trial("Tok01", 0, TrialScripts.parameters(1, 1, 0, null, 0)));
            await().atMost(WAIT).until(() -> launcher.specs.size() == 1);
            EnvironmentSpec spec = launcher.specs.get(0);
            assertTrue(spec.managerUrl(), spec.managerUrl().startsWith("http://127.0.0.1:"));
            String base = "api/v1/nni-trial/token/" + spec.environmentId() + "/";
            String hello = "{\"keeperVersion\":\"1.0.0\",\"protocol\":1}";
            String wrong = spec.token().substring(1) + "x";
            assertEquals(401, post(base + "handshake", hello, null).statusCode());
            assertEquals(401, post(base + "handshake", hello, wrong).statusCode());
            assertEquals(401, post("api/v1/nni-trial/token/nosuch/handshake", hello, spec.token()).statusCode());
            HttpResponse<String> accepted = post(base + "handshake", hello, spec.token());
            assertEquals(accepted.body(), 200, accepted.statusCode());
            assertEquals(200, post(base + "reports", "{\"reports\":[{\"seq\":1,\"kind\":\"ready\"}]}", spec.token()).statusCode());
            HttpResponse<String> commands = send(HttpRequest.newBuilder(endpoint().resolve(base + "commands?after=0&waitMillis=5000"))
                    .header("Authorization", "Bearer " + spec.token()).GET());
            assertTrue(commands.body(), commands.body().contains("\"new-trial\"") && commands.body().contains("\"Tok01\""));
            String metric = "{\\\"parameter_id\\\": 1, \\\"trial_job_id\\\": \\\"Tok01\\\", \\\"type\\\": \\\"PERIODICAL\\\", \\\"sequence\\\": 0, \\\"value\\\": \\\"0.5\\\"}";
            String batch = "{\"reports\":[{\"seq\":2,\"kind\":\"started\",\"trial\":\"Tok01\",\"time\":1},"
                    + "{\"seq\":3,\"kind\":\"metric\",\"trial\":\"Tok01\",\"line\":\"" + metric + "\"}]}";
            assertEquals(401, post(base + "reports", batch, wrong).statusCode());
            assertEquals(401, post(base + "reports", batch, null).statusCode());
            assertEquals("nothing stored from refused reports", 0, context.callsTotal());
            assertEquals(TrialStatus.WAITING, context.status("Tok01") == null ? TrialStatus.WAITING : context.status("Tok01"));
            HttpResponse<String> first = post(base + "reports", batch, spec.token());
            assertEquals(first.body(), "{\"acked\":3}", first.body());
            HttpResponse<String> again = post(base + "reports", batch, spec.token());
            assertEquals("{\"acked\":3}", again.body());
            assertEquals("a batch sent twice is applied once", 1, context.calls("Tok01"));
            assertEquals(TrialStatus.RUNNING, context.status("Tok01"));
            assertEquals(400, post(base + "reports", "{not json", spec.token()).statusCode());
            assertEquals(400, post(base + "reports", "{\"reports\":[{\"kind\":\"metric\"}]}", spec.token()).statusCode());
            // 413 comes from the declared length before any of the body is read, and closes the connection. Sent by hand
            // as headers only: a client writing all 5 MiB races that close.
            try (java.net.Socket socket = socketTo(endpoint())) {
                String refused = exchange(socket, requestHead("POST", base + "reports", spec.token(), 5 << 20), new byte[0]);
                assertTrue(refused, refused.startsWith("HTTP/1.1 413") && refused.contains("over the limit"));
                assertTrue(refused, refused.toLowerCase(java.util.Locale.ROOT).contains("connection: close"));
            }
            assertEquals(200, get("api/v1/nni/check-status").statusCode());
            // a log the manager cannot read itself is asked from the keeper
            java.util.concurrent.CompletableFuture<String> log = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
                try (var in = session.openTrialFile("Tok01", "stdout").orElseThrow()) {
                    return new String(in.readAllBytes());
                } catch (IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            });
            HttpResponse<String> tail = send(HttpRequest.newBuilder(endpoint().resolve(base + "commands?after=1&waitMillis=10000"))
                    .header("Authorization", "Bearer " + spec.token()).GET());
            java.util.regex.Matcher request = java.util.regex.Pattern.compile("\"request\":\"(\\d+)\"").matcher(tail.body());
            assertTrue(tail.body(), tail.body().contains("\"log-tail\"") && request.find());
            assertEquals(200, post(base + "reports", "{\"reports\":[{\"seq\":4,\"kind\":\"log\",\"trial\":\"Tok01\",\"file\":\"stdout\","
                    + "\"request\":\"" + request.group(1) + "\",\"text\":\"epoch 1\\n\"}]}", spec.token()).statusCode());
            assertEquals("epoch 1\n", log.get(30, TimeUnit.SECONDS));
            assertEquals(200, post(base + "reports", "{\"reports\":[{\"seq\":5,\"kind\":\"ended\",\"trial\":\"Tok01\",\"code\":0,\"time\":2}]}",
                    spec.token()).statusCode());
            awaitEnded(context, "Tok01");
            assertEquals(TrialStatus.SUCCEEDED, context.status("Tok01"));
            // an environment that dies while running a trial fails that trial
            session.submit(trial("Tok02", 1, TrialScripts.parameters(1, 1, 0, null, 0)));
            HttpResponse<String> next = send(HttpRequest.newBuilder(endpoint().resolve(base + "commands?after=2&waitMillis=5000"))
                    .header("Authorization", "Bearer " + spec.token()).GET());
            assertTrue(next.body(), next.body().contains("\"Tok02\""));
            launcher.ends.get(0).complete("machine lost");
            awaitEnded(context, "Tok02");
            assertEquals(TrialStatus.FAILED, context.status("Tok02"));
            assertTrue(context.latest("Tok02").message(), context.latest("Tok02").message().contains("machine lost"));
            assertEquals("the gone environment's token no longer works", 401, post(base + "reports", "{\"reports\":[]}", spec.token()).statusCode());
        }
    }

    @Test(timeout = 60_000)
    public void aReportRefusedBeforeItsBodyIsReadLeavesTheConnectionUsable() throws Exception {
        // the token is checked before the body is read; the body still arriving is read and dropped, so the client
        // gets its 401 rather than a broken pipe, and its connection stays open for the next request
        byte[] body = ("{\"reports\":[],\"pad\":\"" + "x".repeat(256 << 10) + "\"}").getBytes(java.nio.charset.StandardCharsets.UTF_8);
        try (java.net.Socket socket = socketTo(endpoint())) {
            for (int round = 1; round <= 3; round++) {
                String answer = exchange(socket, requestHead("POST", "api/v1/nni-trial/nosuch/keeper/reports", "wrong", body.length), body);
                assertTrue("round " + round + ": " + answer, answer.startsWith("HTTP/1.1 401") && answer.contains("wrong token"));
                assertTrue(answer, !answer.toLowerCase(java.util.Locale.ROOT).contains("connection: close"));
            }
        }
    }

    @Test(timeout = 120_000)
    public void aCodeArchiveWithALinkLeavingItFailsTheTrial() throws Exception {
        RecordingContext context = context("unsafe", true);
        Path link = Files.createSymbolicLink(Path.of(String.valueOf(context.section().get("trialCodeDirectory"))).resolve("escape"),
                Path.of("/tmp"));
        try (TrainingSession session = openLocal(context)) {
            session.submit(trial("Bad01", 0, TrialScripts.parameters(1, 1, 0, null, 0)));
            awaitEnded(context, "Bad01");
            assertEquals(TrialStatus.FAILED, context.status("Bad01"));
            String message = context.latest("Bad01").message();
            assertTrue(message, message.contains("'escape'") && message.contains("absolute"));
            assertEquals(0, context.calls("Bad01"));
        } finally {
            Files.delete(link); // the build walks target/: a link out of it would take it through /tmp
        }
    }

    private Bundle bundle(String symbolicName) {
        for (Bundle bundle : context.getBundles()) {
            if (bundle.getSymbolicName().equals(symbolicName)) {
                return bundle;
            }
        }
        throw new AssertionError("no bundle " + symbolicName);
    }

    private HttpResponse<String> post(String path, String body, String token) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(endpoint().resolve(path)).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        return send(request);
    }

    private static java.net.Socket socketTo(java.net.URI endpoint) throws IOException {
        java.net.Socket socket = new java.net.Socket(endpoint.getHost(), endpoint.getPort());
        socket.setSoTimeout(20_000);
        return socket;
    }

    private String requestHead(String method, String path, String token, long contentLength) {
        java.net.URI uri = endpoint().resolve(path);
        return method + " " + uri.getRawPath() + " HTTP/1.1\r\nHost: " + uri.getHost() + ":" + uri.getPort()
                + "\r\nContent-Type: application/json\r\nAuthorization: Bearer " + token
                + "\r\nContent-Length: " + contentLength + "\r\n\r\n";
    }

    /**
     * One HTTP/1.1 exchange written by hand, as a slow client would: the head, then the body in small flushed pieces,
     * then the whole answer (status line, headers, body) as text.
     */
    private static String exchange(java.net.Socket socket, String head, byte[] body) throws IOException {
        java.io.OutputStream out = socket.getOutputStream();
        out.write(head.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        out.flush();
        for (int at = 0; at < body.length; at += 16 << 10) {
            out.write(body, at, Math.min(16 << 10, body.length - at));
            out.flush();
        }
        java.io.InputStream in = socket.getInputStream();
        StringBuilder answer = new StringBuilder();
        long length = 0;
        boolean chunked = false;
        for (String line = readLine(in); !line.isEmpty(); line = readLine(in)) {
            answer.append(line).append('\n');
            String lower = line.toLowerCase(java.util.Locale.ROOT);
            if (lower.startsWith("content-length:")) {
                length = Long.parseLong(line.substring("content-length:".length()).trim());
            } else if (lower.startsWith("transfer-encoding:") && lower.contains("chunked")) {
                chunked = true;
            }
        }
        answer.append('\n');
        if (chunked) {
            for (int size = Integer.parseInt(readLine(in).trim(), 16); size > 0; size = Integer.parseInt(readLine(in).trim(), 16)) {
                answer.append(new String(in.readNBytes(size), java.nio.charset.StandardCharsets.UTF_8));
                readLine(in); // the CRLF that ends each chunk
            }
            readLine(in); // the empty line after the last chunk
        } else {
            answer.append(new String(in.readNBytes((int) length), java.nio.charset.StandardCharsets.UTF_8));
        }
        return answer.toString();
    }

    private static String readLine(java.io.InputStream in) throws IOException {
        java.io.ByteArrayOutputStream line = new java.io.ByteArrayOutputStream();
        for (int c = in.read(); c != '\n'; c = in.read()) {
            if (c < 0) {
                throw new java.io.EOFException("the server closed the connection; read so far: " + line);
            }
            if (c != '\r') {
                line.write(c);
            }
        }
        return line.toString(java.nio.charset.StandardCharsets.US_ASCII);
    }

    private HttpResponse<String> send(HttpRequest.Builder request) throws Exception {
        return http.send(request.timeout(Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.ofString());
    }

}
