package nni.itest;

import static org.awaitility.Awaitility.await;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;

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
import nni.api.platform.TrainingSession;
import nni.api.platform.TransientPlatformException;
import nni.itest.keeper.CapturingLauncher;
import nni.itest.keeper.KeeperKind;
import nni.itest.keeper.ProcessKeeperLauncher;
import nni.itest.keeper.RecordingContext;
import nni.itest.keeper.TrialScripts;

/**
 * The manager's side of the trial routes and of keeper sessions: refused tokens and bodies spoken
 * by the test itself over HTTP, a batch sent twice applied once, log tails, an environment that
 * dies; the SPI 1.0 outcomes of a launcher (transient refusals, progress, where it runs) and the
 * keepers a session offers. What the keepers do is the keeper conformance suite's
 * ({@link KeeperConformance}).
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

    private RecordingContext context(String experimentId, boolean reuse) throws IOException {
        return RecordingContext.withTrialScripts(experimentId, scratch("report-" + experimentId), "local", "./trial.sh", reuse);
    }

    private static TrialApplication trial(String id, long sequence, String parameters) {
        return TrialApplication.builder(id).sequenceId(sequence).hyperParameters(HyperParameters.of(parameters, 0))
                .placement(Placement.none()).build();
    }

    private void awaitEnded(RecordingContext context, String trialId) {
        await().atMost(WAIT).until(() -> context.status(trialId) != null && context.status(trialId).isTerminal());
    }

    /**
     * The keeper session's side of the SPI 1.0 outcomes: a launcher refusing for now is asked again
     * and the trial shows why it waits; the environment's progress is the waiting reason; where the
     * environment runs is copied into the trial. Both keepers ship: {@code auto} offers the Java
     * keeper, then the Python one; a launcher may start either (here the Python one).
     */
    @Test(timeout = 120_000)
    public void transientRefusalsAndProgressAreWaitingReasonsAndTheEnvironmentsFactsReachTheTrial() throws Exception {
        RecordingContext context = context("outcomes", false);
        ProcessKeeperLauncher processes = new ProcessKeeperLauncher(context.experimentDirectory().resolve("keepers"), KeeperKind.PYTHON);
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
                    return Map.of("keeper", "python 3");
                }
            };
        };
        KeeperSessions keepers = service(KeeperSessions.class, null);
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
        assertEquals(Map.of("keeper", "python 3"), running.attributes());
        assertEquals("Ts001 pid-" + processes.processes.get("Ts001").pid(), running.handle());
        assertTrue(Files.readString(processes.directory("Ts001").resolve("stdout")).contains("phase2-done"));
        EnvironmentSpec spec = specs.get(0);
        assertEquals(List.of(KeeperRuntime.JAVA, KeeperRuntime.PYTHON), List.copyOf(spec.keepers()));
        assertEquals(keepers.keeperFile(KeeperRuntime.PYTHON), spec.keeperFile(KeeperRuntime.PYTHON));
        assertEquals(List.of("java", "-jar", "/w/k.jar", "trial"),
                spec.command(KeeperRuntime.JAVA, "/w/k.jar", "/w/c.tgz", "/w").subList(0, 4));
        assertEquals(List.of("python3", "/w/k.py", "trial"), spec.command(KeeperRuntime.PYTHON, "/w/k.py", "/w/c.tgz", "/w").subList(0, 3));
        assertTrue(spec.toString(), !spec.toString().contains(spec.token()));
    }

    /** Both keepers ship in nni.manager; a platform's {@code keeper} setting narrows what its environments are offered. */
    @Test(timeout = 120_000)
    public void bothKeepersShipAndTheKeeperSettingChoosesWhichAreOffered() throws Exception {
        KeeperSessions keepers = service(KeeperSessions.class, null);
        Path jar = keepers.keeperFile(KeeperRuntime.JAVA);
        Path python = keepers.keeperFile(KeeperRuntime.PYTHON);
        assertEquals("nni-trialkeeper.jar", jar.getFileName().toString());
        assertEquals("nni-trialkeeper.py", python.getFileName().toString());
        assertTrue(Files.readString(python).startsWith("#!/usr/bin/env python3"));
        Map<KeeperChoice, Set<KeeperRuntime>> offered = new java.util.EnumMap<>(KeeperChoice.class);
        for (KeeperChoice choice : KeeperChoice.values()) {
            RecordingContext context = context("offer-" + choice, true);
            CapturingLauncher launcher = new CapturingLauncher();
            try (TrainingSession session = keepers.open(context, launcher, KeeperOptions.builder("remote").reuse(true).keeper(choice).build())) {
                session.submit(trial("Of001", 0, TrialScripts.parameters(1, 1, 0, null, 0)));
                await().atMost(WAIT).until(() -> launcher.specs.size() == 1);
                offered.put(choice, launcher.specs.get(0).keepers());
            }
        }
        assertEquals(Map.of(KeeperChoice.AUTO, Set.of(KeeperRuntime.JAVA, KeeperRuntime.PYTHON),
                KeeperChoice.JAVA, Set.of(KeeperRuntime.JAVA), KeeperChoice.PYTHON, Set.of(KeeperRuntime.PYTHON)), offered);
    }

    /**
     * A keeper that never calls back (nothing listens where it was told to call: issue 26 item 5)
     * is named in its trials' waiting reason, with the address it was given and the last line of
     * its {@code keeper.stderr} (a keeper on this machine), instead of leaving them "starting" for ever.
     */
    @Test(timeout = 180_000)
    public void aKeeperThatNeverCallsBackIsNamedInTheWaitingReasonWithTheAddressItWasGiven() throws Exception {
        RecordingContext context = context("overdue", true);
        Path keeperDirectory = scratch("overdue-keeper");
        List<EnvironmentSpec> specs = new java.util.concurrent.CopyOnWriteArrayList<>();
        EnvironmentLauncher launcher = (spec, listener) -> { // starts nothing: no keeper will ever call back
            specs.add(spec);
            try {
                Files.writeString(keeperDirectory.resolve("keeper.stderr"), "handshake: manager not reachable: "
                        + "java.net.ConnectException: Connection refused; retrying\n");
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
            listener.stateChanged(EnvironmentState.STARTING, "waiting: starting a local keeper");
            java.util.concurrent.CompletableFuture<String> ended = new java.util.concurrent.CompletableFuture<>();
            return new LaunchedEnvironment() {
                @Override
                public java.util.concurrent.CompletionStage<String> ended() {
                    return ended;
                }

                @Override
                public void stop() {
                    ended.complete("stopped");
                }

                @Override
                public String url() {
                    return "file://localhost" + keeperDirectory;
                }
            };
        };
        KeeperSessions keepers = service(KeeperSessions.class, null);
        try (TrainingSession session = keepers.open(context, launcher,
                KeeperOptions.builder("remote").reuse(true).maxEnvironments(1).idleTimeout(Duration.ofMinutes(1)).build())) {
            session.submit(trial("Ovr01", 0, TrialScripts.parameters(1, 1, 0, null, 0)));
            await().atMost(WAIT).until(() -> specs.size() == 1);
            EnvironmentSpec spec = specs.get(0);
            String expected = "keeper " + spec.environmentId() + " has not reached the manager at " + spec.managerUrl();
            await().atMost(Duration.ofSeconds(120)).until(() -> context.changes.stream().anyMatch(job -> job.message().contains(expected)));
            TrialJob said = context.changes.stream().filter(job -> job.message().contains(expected)).findFirst().orElseThrow();
            assertEquals("Ovr01", said.id());
            assertEquals(said.toString(), TrialStatus.WAITING, said.status());
            assertTrue(said.message(), said.message().startsWith("waiting: ") && said.message().contains("nniManagerIp")
                    && said.message().contains("its stderr: handshake: manager not reachable: java.net.ConnectException: Connection refused"));
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
            // as strict as every JSON body: what Jackson alone would take (the first value, the last of two keys) is refused
            for (String[] refused : new String[][] {{"{\"reports\":[]} {\"reports\":[]}", "more after its JSON value"},
                    {"{\"reports\":[{\"seq\":9,\"seq\":10,\"kind\":\"ready\"}]}", "the key \\\"seq\\\" twice"},
                    {"\uFEFF{\"reports\":[]}", "byte order mark"}, {"{\"reports\":[]}\u0000", "NUL byte"}}) {
                HttpResponse<String> answer = post(base + "reports", refused[0], spec.token());
                assertEquals(answer.body(), 400, answer.statusCode());
                assertTrue(answer.body(), answer.body().contains(refused[1]));
            }
            assertEquals("nothing applied from refused bodies", 1, context.calls("Tok01"));
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
            HttpResponse<String> gone = post(base + "reports", "{\"reports\":[]}", spec.token());
            assertEquals("the gone environment's token no longer works", 401, gone.statusCode());
            assertFalse("an environment lost, not stopped, is not told it was stopped: " + gone.body(), gone.body().contains("stopped"));
        }
    }

    /**
     * A session that ends sends its keepers a stop and forgets them at once: a keeper asking again
     * before it has taken its stop is told, with its own token only, that a stop was sent (410,
     * {@code "stopped": true}), so that it ends as the stop would have ended it.
     */
    @Test(timeout = 120_000)
    public void aKeeperAskingAfterItsSessionEndedWithAStopIsToldItWasStopped() throws Exception {
        RecordingContext context = context("stopsent", true);
        CapturingLauncher launcher = new CapturingLauncher();
        KeeperSessions keepers = service(KeeperSessions.class, null);
        EnvironmentSpec spec;
        String base;
        try (TrainingSession session = keepers.open(context, launcher,
                KeeperOptions.builder("remote").reuse(true).maxEnvironments(1).idleTimeout(Duration.ofMinutes(1)).build())) {
            session.submit(trial("Stp01", 0, TrialScripts.parameters(1, 1, 0, null, 0)));
            await().atMost(WAIT).until(() -> launcher.specs.size() == 1);
            spec = launcher.specs.get(0);
            base = "api/v1/nni-trial/stopsent/" + spec.environmentId() + "/";
            assertEquals(200, post(base + "handshake", "{\"keeperVersion\":\"1.0.0\",\"protocol\":1}", spec.token()).statusCode());
            assertEquals(200, post(base + "reports", "{\"reports\":[{\"seq\":1,\"kind\":\"ready\"}]}", spec.token()).statusCode());
            HttpResponse<String> commands = send(HttpRequest.newBuilder(endpoint().resolve(base + "commands?after=0&waitMillis=5000"))
                    .header("Authorization", "Bearer " + spec.token()).GET());
            assertTrue(commands.body(), commands.body().contains("\"Stp01\""));
            assertEquals(200, post(base + "reports", "{\"reports\":[{\"seq\":2,\"kind\":\"started\",\"trial\":\"Stp01\",\"time\":1},"
                    + "{\"seq\":3,\"kind\":\"ended\",\"trial\":\"Stp01\",\"code\":0,\"time\":2}]}", spec.token()).statusCode());
            awaitEnded(context, "Stp01");
        }
        // the session sent the stop and, once the platform said the environment ended, forgot the keeper: for good
        await().atMost(WAIT).until(() -> post(base + "reports", "{\"reports\":[]}", spec.token()).statusCode() != 200);
        HttpResponse<String> stopped = post(base + "reports", "{\"reports\":[]}", spec.token());
        assertEquals(stopped.body(), 410, stopped.statusCode());
        assertTrue(stopped.body(), stopped.body().contains("\"stopped\":true") && stopped.body().contains("\"error\":"));
        HttpResponse<String> poll = send(HttpRequest.newBuilder(endpoint().resolve(base + "commands?after=0&waitMillis=5000"))
                .header("Authorization", "Bearer " + spec.token()).GET());
        assertEquals(poll.body(), 410, poll.statusCode());
        HttpResponse<String> wrong = post(base + "reports", "{\"reports\":[]}", spec.token().substring(1) + "x");
        assertEquals(401, wrong.statusCode());
        assertFalse("a wrong token learns nothing: " + wrong.body(), wrong.body().contains("stopped"));
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
        return http.send(request.timeout(Duration.ofSeconds(60)).build(), HttpResponse.BodyHandlers.ofString());
    }

}
