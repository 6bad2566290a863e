package nni.itest;

import static org.awaitility.Awaitility.await;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;
import static org.ops4j.pax.exam.CoreOptions.bundle;
import static org.ops4j.pax.exam.CoreOptions.frameworkProperty;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Hashtable;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import org.junit.Before;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;
import org.osgi.service.cm.ConfigurationAdmin;

import nni.itest.RawClient.Answer;

/**
 * The one HTTP port against clients that are slow, hostile or careless: slow bodies must not take
 * the port's threads, refused requests are answered at once, every body is capped in size and
 * time, numbers are range-checked, bad requests are 400s without a stack trace in the log, and no
 * variant of a path reaches another route.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class HostileClientsIT extends RuntimeTestSupport {

    private static final Duration WAIT = Duration.ofSeconds(60);
    /** The body deadline this class configures, short enough to be waited for. */
    private static final int BODY_DEADLINE_MILLIS = 12_000;
    /** The connections per address this class allows (the default is 256). */
    private static final int CONNECTIONS_PER_ADDRESS = 100;
    private static String experimentId;

    @Configuration
    public Option[] config() throws Exception {
        // under the module's target/, not /tmp: nothing is left behind
        Path root = Files.createTempDirectory(Files.createDirectories(Path.of("target").toAbsolutePath()), "hostile-it");
        return new Option[] {baseOptions(), bundle(reactorBundle("nni.tuners")),
                frameworkProperty("nni.experiments.dir").value(root.resolve("experiments").toString()),
                frameworkProperty("nni.it.root").value(root.toString())};
    }

    /** An open experiment for the PUT routes (its one trial ends at once; it stays open, DONE) and the test's limits. */
    @Before
    public void experimentAndLimits() throws Exception {
        if (experimentId != null) {
            return;
        }
        ConfigurationAdmin admin = service(ConfigurationAdmin.class, null);
        Hashtable<String, Object> limits = new Hashtable<>();
        limits.put("body.deadline.millis", BODY_DEADLINE_MILLIS);
        admin.getConfiguration("nni.manager.http", "?").update(limits);
        Hashtable<String, Object> connections = new Hashtable<>();
        connections.put("max.connections.per.address", CONNECTIONS_PER_ADDRESS);
        admin.getConfiguration("nni.manager.jetty", "?").update(connections);
        Path config = localExperiment(codeFolder(), "true\n", "x: {_type: choice, _value: [1, 2]}", 1, "GridSearch");
        await().atMost(WAIT).until(() -> service(org.apache.felix.service.command.CommandProcessor.class, null) != null);
        String created = (String) command("nni:create " + config);
        experimentId = created.split(" ")[1];
        String[] status = {""};
        try {
            await().atMost(WAIT).until(() -> (status[0] = get("api/v1/nni/check-status").body()).contains("DONE"));
        } catch (RuntimeException e) {
            throw new AssertionError("the experiment did not end: " + status[0] + "\n" + command("nni:trials"), e);
        }
        awaitLimits();
    }

    /** The body limits are a service property of the component that applies them. */
    private void awaitLimits() {
        await().atMost(WAIT).until(() -> context.getServiceReferences("nni.http.RequestBodies",
                "(body.deadline.millis=" + BODY_DEADLINE_MILLIS + ")") != null
                && context.getServiceReferences("org.apache.felix.http.jetty.LoadBalancerCustomizerFactory",
                "(max.connections.per.address=" + CONNECTIONS_PER_ADDRESS + ")") != null);
    }

    private RawClient client(String source) throws IOException {
        return RawClient.connect(endpoint(), source, Duration.ofSeconds(20));
    }

    private static String experimentPut(String updateType) {
        return "api/v1/nni/experiment?update_type=" + updateType;
    }

    // ------------------------------------------------------------------------------ slow bodies

    /**
     * 300 connections send their headers, announce 100,000 bytes of body and then send one byte
     * every 1.5 s (or slower, when the machine is busy), half of them to the keepers' report route
     * without a token (refused), half to {@code PUT /experiment} (read). Meanwhile a fixed number
     * of {@code check-status} probes must each be answered, and no pool thread may wait in a
     * blocking read of a body. How fast the probes are answered is printed, not asserted: it
     * depends on the CPU the test gets.
     */
    @Test(timeout = 300_000)
    public void slowBodiesTakeNoThreadAndCheckStatusKeepsAnswering() throws Exception {
        int connections = 300;
        int rounds = 6;
        int probesPerRound = 4;
        long pauseMillis = 1_500;
        int baseline = jettyThreads();
        List<RawClient> attackers = new ArrayList<>();
        List<Long> latencies = new ArrayList<>();
        int peak = baseline;
        int busiest = 0;
        int held = 0;
        List<String> failed = new ArrayList<>();
        long began = System.nanoTime();
        try {
            for (int i = 0; i < connections; i++) {
                // from five loopback addresses, so that no address is over the per-address limit
                RawClient attacker = client("127.0.0." + (10 + i % 5));
                attackers.add(attacker);
                if (i % 2 == 0) {
                    attacker.head("POST", "api/v1/nni-trial/" + experimentId + "/nokeeper/reports",
                            "Content-Type: application/json", "Content-Length: 100000").write("{");
                } else {
                    attacker.head("PUT", experimentPut("TRIAL_CONCURRENCY"), "Content-Type: application/json",
                            "Content-Length: 100000").write("{");
                }
            }
            for (int round = 0; round < rounds; round++) {
                long nextByte = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(pauseMillis);
                for (int p = 0; p < probesPerRound; p++) {
                    long start = System.nanoTime();
                    // a generous bound for one answer: a loaded machine may take seconds, a held port never answers
                    try (RawClient probe = RawClient.connect(endpoint(), "127.0.0.2", Duration.ofSeconds(60))) {
                        Answer answer = probe.exchange("GET", "api/v1/nni/check-status", "");
                        latencies.add(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
                        if (answer.status() != 200) {
                            failed.add("probe " + (round * probesPerRound + p) + ": " + answer);
                        }
                    } catch (IOException e) {
                        failed.add("probe " + (round * probesPerRound + p) + ": " + e);
                    }
                    peak = Math.max(peak, jettyThreads());
                    busiest = Math.max(busiest, busyJettyThreads());
                    held = Math.max(held, heldJettyThreads());
                }
                // the attackers' pace: a byte every 1.5 s at the fastest (pacing the attack, not waiting for anything)
                long left = TimeUnit.NANOSECONDS.toMillis(nextByte - System.nanoTime());
                if (left > 0) {
                    Thread.sleep(left);
                }
                for (RawClient attacker : attackers) {
                    try {
                        attacker.write(" ");
                    } catch (IOException refusedOrClosed) {
                        // refused requests were answered and their connection closed: that is the point
                    }
                }
            }
        } finally {
            attackers.forEach(RawClient::close);
        }
        List<Long> sorted = new ArrayList<>(latencies);
        Collections.sort(sorted);
        System.out.printf(Locale.ROOT, "slow-body attack: %d connections for %.1f s; check-status answered %d of %d probes, "
                        + "median %d ms, max %d ms; Jetty threads %d before, at most %d during, at most %d of them busy, %d waiting for a body; "
                        + "load average %s%n",
                connections, (System.nanoTime() - began) / 1e9, latencies.size(), rounds * probesPerRound,
                sorted.isEmpty() ? -1 : sorted.get(sorted.size() / 2), sorted.isEmpty() ? -1 : sorted.get(sorted.size() - 1),
                baseline, peak, busiest, held, Files.readString(Path.of("/proc/loadavg")).strip());
        assertEquals("check-status failed during the attack", List.of(), failed);
        assertEquals("every probe was answered", rounds * probesPerRound, latencies.size());
        // no thread waits for a slow client's bytes (a blocking read); threads busy for a moment with the bytes
        // that came are counted above only as a figure: on a loaded machine a snapshot finds many of them
        assertEquals("pool threads were held by the attack, waiting in a blocking read of a body", 0, held);
        int before = baseline;
        await("Jetty's threads back to " + before).atMost(Duration.ofSeconds(90)).until(() -> jettyThreads() <= before + 2);
        System.out.printf(Locale.ROOT, "Jetty threads after the attack: %d%n", jettyThreads());
    }

    /** Jetty's pool threads ({@code qtp...}) in this JVM. */
    private static int jettyThreads() {
        return (int) Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().startsWith("qtp")).count();
    }

    /**
     * The check above sees what it must: a servlet that reads a body the blocking way, sent only its
     * head and one byte, holds a pool thread, and the check counts it; it is let go when the client
     * closes.
     */
    @Test(timeout = 120_000)
    public void theHeldThreadCheckSeesABlockingRead() throws Exception {
        Hashtable<String, Object> properties = new Hashtable<>();
        properties.put("osgi.http.whiteboard.servlet.pattern", "/blocking-read-probe");
        var registration = context.registerService(jakarta.servlet.Servlet.class, new jakarta.servlet.http.HttpServlet() {
            private static final long serialVersionUID = 1L;

            @Override
            protected void doPost(jakarta.servlet.http.HttpServletRequest request, jakarta.servlet.http.HttpServletResponse response)
                    throws IOException {
                request.getInputStream().readAllBytes(); // waits for every byte: what a slow client exploits
                response.setStatus(204);
            }
        }, properties);
        try (RawClient slow = client("127.0.0.4")) {
            await().atMost(Duration.ofSeconds(60)).until(() -> {
                try (RawClient probe = client("127.0.0.4")) {
                    return probe.exchange("POST", "blocking-read-probe", "").status() == 204;
                }
            });
            slow.head("POST", "blocking-read-probe", "Content-Type: application/octet-stream", "Content-Length: 1000").write("x");
            await().atMost(Duration.ofSeconds(60)).until(() -> heldJettyThreads() >= 1);
        } finally {
            registration.unregister();
        }
        await().atMost(Duration.ofSeconds(60)).until(() -> heldJettyThreads() == 0);
    }

    /**
     * Jetty's pool threads waiting in a blocking read of a request body: what a slow client would hold.
     * Such a thread is parked on the content producer's semaphore inside {@code BlockingContentProducer.nextChunk};
     * a thread merely passing through that class (Jetty consumes what is available of an unread body when a
     * request completes, and an input stream is blocking until its read listener is set) waits for nothing,
     * and a snapshot on a loaded machine may catch it there.
     */
    private static int heldJettyThreads() {
        return (int) Thread.getAllStackTraces().entrySet().stream().filter(e -> e.getKey().getName().startsWith("qtp"))
                .filter(e -> waitsForBodyBytes(e.getValue())).count();
    }

    private static boolean waitsForBodyBytes(StackTraceElement[] stack) {
        boolean parkedOnSemaphore = false;
        for (StackTraceElement frame : stack) {
            if (frame.getClassName().endsWith("ContentProducer$LockedSemaphore") && frame.getMethodName().equals("acquire")) {
                parkedOnSemaphore = true;
            } else if (parkedOnSemaphore && frame.getClassName().endsWith("BlockingContentProducer")
                    && frame.getMethodName().equals("nextChunk")) {
                return true;
            }
        }
        return false;
    }

    /** Jetty's pool threads doing something: not idle in the pool, not selecting, not accepting. */
    private static int busyJettyThreads() {
        int busy = 0;
        for (var entry : Thread.getAllStackTraces().entrySet()) {
            if (!entry.getKey().getName().startsWith("qtp")) {
                continue;
            }
            String stack = java.util.Arrays.toString(entry.getValue());
            if (!stack.contains("QueuedThreadPool$Runner.idleJobPoll") && !stack.contains("ReservedThread.waitForTask")
                    && !stack.contains("SelectorImpl.select") && !stack.contains("ServerSocketChannelImpl.accept")) {
                busy++;
            }
        }
        return busy;
    }

    @Test(timeout = 60_000)
    public void aRefusedRequestIsAnsweredAtOnceWithoutWaitingForItsBody() throws Exception {
        try (RawClient client = client("127.0.0.3")) {
            client.head("POST", "api/v1/nni-trial/" + experimentId + "/nokeeper/reports", "Content-Type: application/json",
                    "Content-Length: 100000").write("{\"reports\":");
            Answer answer = client.read(); // a SocketTimeoutException here: the server waits for the body
            assertEquals(answer.toString(), 401, answer.status());
        }
        try (RawClient client = client("127.0.0.3")) {
            client.head("PUT", "api/v1/nni/experiment?update_type=TRIAL_CONCURRENCY&experiment_id=nosuch",
                    "Content-Type: application/json", "Content-Length: 100000").write("{\"params\":");
            Answer answer = client.read();
            assertEquals(answer.toString(), 404, answer.status());
        }
    }

    @Test(timeout = 60_000)
    public void aBodyOverTheLimitIsRefusedOnEveryRouteWithoutBeingRead() throws Exception {
        try (RawClient client = client("127.0.0.3")) {
            client.head("PUT", experimentPut("SEARCH_SPACE"), "Content-Type: application/json",
                    "Content-Length: " + (100L << 20)).write("{\"params\":");
            Answer answer = client.read();
            assertEquals(answer.toString(), 413, answer.status());
            assertTrue(answer.toString(), answer.closes() && answer.body().contains("limit"));
        }
        // no length announced: the body is cut where it passes the limit (at most 12.5 MiB are sent)
        try (RawClient client = client("127.0.0.3")) {
            client.head("PUT", experimentPut("SEARCH_SPACE"), "Content-Type: application/json", "Transfer-Encoding: chunked");
            byte[] chunk = (Integer.toHexString(64 << 10) + "\r\n" + "x".repeat(64 << 10) + "\r\n")
                    .getBytes(java.nio.charset.StandardCharsets.US_ASCII);
            Answer answer = client.readWhileSending(chunk, Duration.ZERO, 200);
            assertEquals(answer.toString(), 413, answer.status());
        }
    }

    @Test(timeout = 60_000)
    public void aBodyThatTakesLongerThanTheDeadlineIsCutWith408() throws Exception {
        try (RawClient client = RawClient.connect(endpoint(), "127.0.0.4", Duration.ofMillis(BODY_DEADLINE_MILLIS + 15_000))) {
            client.head("PUT", experimentPut("TRIAL_CONCURRENCY"), "Content-Type: application/json", "Content-Length: 1000")
                    .write("{");
            // one byte a second keeps the connection busy; the answer comes when the deadline passes, long before the end
            long start = System.nanoTime();
            Answer answer = client.readWhileSending(new byte[] {' '}, Duration.ofSeconds(1), 40);
            long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertEquals(answer.toString(), 408, answer.status());
            assertTrue(answer.toString(), answer.closes());
            assertTrue("answered after " + waited + " ms", waited >= BODY_DEADLINE_MILLIS - 1_000);
        }
    }

    @Test(timeout = 180_000)
    public void oneAddressGetsOnlyItsShareOfTheBodiesBeingRead() throws Exception {
        List<RawClient> slow = new ArrayList<>();
        try {
            int limit = 64;
            for (int i = 0; i < limit; i++) {
                RawClient client = client("127.0.0.5");
                slow.add(client);
                client.head("PUT", experimentPut("TRIAL_CONCURRENCY"), "Content-Type: application/json",
                        "Content-Length: 1000").write("{");
            }
            // the bodies above are being read (no answer yet); one more from the same address is turned away. On a
            // loaded machine the server may not have begun reading all of them when the next one comes: that one is
            // then read too (no answer within a few seconds), is left open as one more body being read, and another
            // is tried. None of them is answered before the body deadline, 12 s after it was sent.
            Answer[] refused = {null};
            await().atMost(WAIT).until(() -> {
                RawClient one = RawClient.connect(endpoint(), "127.0.0.5", Duration.ofSeconds(3));
                slow.add(one);
                one.head("PUT", experimentPut("TRIAL_CONCURRENCY"), "Content-Type: application/json",
                        "Content-Length: 1000").write("{");
                try {
                    refused[0] = one.read();
                    return true;
                } catch (java.net.SocketTimeoutException beingRead) {
                    return false;
                }
            });
            assertEquals(refused[0].toString(), 503, refused[0].status());
            assertTrue(refused[0].toString(), refused[0].closes() && refused[0].body().contains("127.0.0.5"));
            // another address is not affected
            try (RawClient other = client("127.0.0.6")) {
                Answer answer = other.exchange("PUT", experimentPut("TRIAL_CONCURRENCY"), "{\"params\":{\"trialConcurrency\":0}}",
                        "Content-Type: application/json");
                assertEquals(answer.toString(), 400, answer.status());
            }
        } finally {
            slow.forEach(RawClient::close);
        }
    }

    @Test(timeout = 60_000)
    public void oneAddressGetsOnlyItsShareOfConnections() throws Exception {
        List<RawClient> open = new ArrayList<>();
        try {
            // a connection counts from its first request on
            for (int i = 0; i < CONNECTIONS_PER_ADDRESS; i++) {
                RawClient client = RawClient.connect(endpoint(), "127.0.0.22", Duration.ofSeconds(10));
                open.add(client);
                assertEquals(200, client.exchange("GET", "api/v1/nni/check-status", "").status());
            }
            try (RawClient one = RawClient.connect(endpoint(), "127.0.0.22", Duration.ofSeconds(10))) {
                one.head("GET", "api/v1/nni/check-status", "Content-Length: 0");
                try {
                    Answer answer = one.read();
                    throw new AssertionError("a connection over the limit was answered: " + answer);
                } catch (java.io.EOFException | java.net.SocketException closed) {
                    // closed unanswered
                }
            }
            // the ones within the limit keep working, and so does another address
            assertEquals(200, open.get(0).exchange("GET", "api/v1/nni/check-status", "").status());
            try (RawClient other = client("127.0.0.23")) {
                assertEquals(200, other.exchange("GET", "api/v1/nni/check-status", "").status());
            }
        } finally {
            open.forEach(RawClient::close);
        }
        // once they are closed, the address may connect again
        await().atMost(WAIT).until(() -> {
            try (RawClient again = client("127.0.0.22")) {
                return again.exchange("GET", "api/v1/nni/check-status", "").status() == 200;
            } catch (IOException closed) {
                return false;
            }
        });
    }

    // ------------------------------------------------------------------------------ numbers

    @Test(timeout = 60_000)
    public void numbersOutOfRangeAre400NamingTheFieldAndRange() throws Exception {
        String[][] cases = {
            {"TRIAL_CONCURRENCY", "\"trialConcurrency\": 1e309", "trialConcurrency"},
            {"TRIAL_CONCURRENCY", "\"trialConcurrency\": 4294967297", "trialConcurrency"},
            {"TRIAL_CONCURRENCY", "\"trialConcurrency\": -1", "trialConcurrency"},
            {"TRIAL_CONCURRENCY", "\"trialConcurrency\": 2.5", "trialConcurrency"},
            {"TRIAL_CONCURRENCY", "\"trialConcurrency\": 0", "trialConcurrency"},
            {"MAX_TRIAL_NUM", "\"maxTrialNumber\": 3e9", "maxTrialNumber"},
            {"MAX_TRIAL_NUM", "\"maxTrialNumber\": 3000000000", "maxTrialNumber"},
            {"MAX_EXEC_DURATION", "\"maxExperimentDuration\": 1e400", "maxExperimentDuration"},
            {"MAX_EXEC_DURATION", "\"maxExperimentDuration\": \"1e400h\"", "maxExperimentDuration"},
            {"MAX_EXEC_DURATION", "\"maxExperimentDuration\": -5", "maxExperimentDuration"},
            {"MAX_EXEC_DURATION", "\"maxExperimentDuration\": 9223372036854775807", "maxExperimentDuration"},
        };
        for (String[] c : cases) {
            try (RawClient client = client("127.0.0.7")) {
                Answer answer = client.exchange("PUT", experimentPut(c[0]), "{\"params\": {" + c[1] + "}}",
                        "Content-Type: application/json");
                assertEquals(c[1] + ": " + answer, 400, answer.status());
                assertTrue(c[1] + ": " + answer.body(), answer.body().contains(c[2]) && answer.body().contains("expected"));
            }
        }
        String params = get("api/v1/nni/experiment").body();
        assertTrue(params, params.contains("\"trialConcurrency\":1") && params.contains("\"maxTrialNumber\":1"));
    }

    /**
     * A keeper's requests are range-checked too: a hello without its fields is a 400 (it used to be
     * taken as a keeper of another protocol and failed every waiting trial), a report numbered
     * 1e400 is a 400 (it used to be applied as Long.MAX_VALUE, and every later report was lost).
     */
    @Test(timeout = 60_000)
    public void aKeepersBadNumbersAndEmptyHelloAre400AndFailNothing() throws Exception {
        Path directory = Files.createTempDirectory(Path.of(context.getProperty("nni.it.root")), "keeper");
        java.util.Map<String, Object> section = new java.util.HashMap<>();
        section.put("platform", "remote");
        section.put("trialCommand", "true");
        section.put("trialCodeDirectory", Files.createDirectories(directory.resolve("code")).toString());
        nni.itest.keeper.RecordingContext recording = new nni.itest.keeper.RecordingContext("badkeeper", directory, section);
        nni.itest.keeper.CapturingLauncher launcher = new nni.itest.keeper.CapturingLauncher();
        nni.api.environment.KeeperSessions keepers = service(nni.api.environment.KeeperSessions.class, null);
        try (nni.api.platform.TrainingSession session = keepers.open(recording, launcher,
                nni.api.environment.KeeperOptions.builder("remote").reuse(false).maxEnvironments(1)
                        .idleTimeout(Duration.ofMinutes(1)).build())) {
            session.submit(nni.api.model.TrialApplication.builder("Bad01").sequenceId(0)
                    .hyperParameters(nni.api.model.HyperParameters.of("{}", 0)).placement(nni.api.model.Placement.none()).build());
            await().atMost(WAIT).until(() -> launcher.specs.size() == 1);
            String token = "Authorization: Bearer " + launcher.specs.get(0).token();
            String base = "api/v1/nni-trial/badkeeper/Bad01/";
            for (String hello : List.of("{}", "{\"keeperVersion\":\"1.0.0\"}", "{\"keeperVersion\":\"1.0.0\",\"protocol\":1.5}",
                    "{\"keeperVersion\":\"1.0.0\",\"protocol\":4294967297}", "{\"protocol\":1}")) {
                try (RawClient client = client("127.0.0.24")) {
                    Answer answer = client.exchange("POST", base + "handshake", hello, token);
                    assertEquals(hello + ": " + answer, 400, answer.status());
                }
            }
            assertNull("a malformed hello failed the trial", recording.status("Bad01"));
            try (RawClient client = client("127.0.0.24")) {
                assertEquals(200, client.exchange("POST", base + "handshake", "{\"keeperVersion\":\"1.0.0\",\"protocol\":1}",
                        token).status());
                for (String seq : List.of("1e400", "0", "-1", "1.0", "9223372036854775808", "\"1\"")) {
                    Answer answer = client.exchange("POST", base + "reports",
                            "{\"reports\":[{\"seq\":" + seq + ",\"kind\":\"started\",\"trial\":\"Bad01\",\"time\":1}]}", token);
                    assertEquals(seq + ": " + answer, 400, answer.status());
                    assertTrue(answer.body(), answer.body().contains("reports[0].seq: expected an integer 1-"));
                }
                Answer badTime = client.exchange("POST", base + "reports",
                        "{\"reports\":[{\"seq\":1,\"kind\":\"started\",\"trial\":\"Bad01\",\"time\":1e400}]}", token);
                assertEquals(badTime.toString(), 400, badTime.status());
                Answer accepted = client.exchange("POST", base + "reports",
                        "{\"reports\":[{\"seq\":1,\"kind\":\"started\",\"trial\":\"Bad01\",\"time\":1}]}", token);
                assertEquals(accepted.toString(), "{\"acked\":1}", accepted.body());
                for (String query : List.of("after=-1", "after=1e3", "waitMillis=99999999999", "waitMillis=-5")) {
                    client.head("GET", base + "commands?" + query, token, "Content-Length: 0");
                    assertEquals(query, 400, client.read().status());
                }
            }
            assertEquals(nni.api.model.TrialStatus.RUNNING, recording.status("Bad01"));
        }
    }

    // ------------------------------------------------------------------------------ bad requests

    @Test(timeout = 60_000)
    public void badRequestsAre400WithoutAStackTraceInTheLog() throws Exception {
        List<LogRecord> logged = Collections.synchronizedList(new ArrayList<>());
        Handler capture = new Handler() {
            @Override
            public void publish(LogRecord record) {
                logged.add(record);
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        Logger root = Logger.getLogger("");
        root.addHandler(capture);
        try {
            try (RawClient client = client("127.0.0.8")) {
                Answer answer = client.exchange("PUT", "api/v1/nni/experiment?update_type=%ff", "{\"params\":{}}",
                        "Content-Type: application/json");
                assertEquals(answer.toString(), 400, answer.status());
                assertTrue(answer.body(), answer.body().contains("update_type"));
            }
            try (RawClient client = client("127.0.0.8")) {
                Answer answer = client.exchange("GET", "api/v1/nni/trial-jobs?status=%ff%fe", "");
                assertEquals(answer.toString(), 400, answer.status());
            }
            try (RawClient client = client("127.0.0.8")) {
                Answer answer = client.exchange("PUT", experimentPut("SEARCH_SPACE"),
                        "{\"params\":{\"searchSpace\":\"{not json\"}}", "Content-Type: application/json");
                assertEquals(answer.toString(), 400, answer.status());
                assertTrue(answer.body(), answer.body().contains("searchSpace"));
            }
            try (RawClient client = client("127.0.0.8")) {
                client.head("PUT", experimentPut("TRIAL_CONCURRENCY"), "Content-Type: application/json",
                        "Transfer-Encoding: chunked").write("5\r\n{\"par\r\nzz\r\nnot a chunk\r\n");
                Answer answer = client.read();
                assertEquals(answer.toString(), 400, answer.status());
            }
            try (RawClient client = client("127.0.0.8")) {
                Answer answer = client.exchange("POST", "api/v1/nni-trial/" + experimentId + "/nokeeper/reports",
                        "{\"reports\":[]}", "Authorization: Bearer %ff");
                assertEquals(answer.toString(), 401, answer.status());
            }
            assertEquals(200, get("api/v1/nni/check-status").statusCode());
        } finally {
            root.removeHandler(capture);
        }
        synchronized (logged) {
            for (LogRecord record : logged) {
                assertFalse("a client's mistake was logged as " + record.getLevel() + ": " + record.getMessage(),
                        record.getLevel().intValue() >= Level.SEVERE.intValue());
                assertNull("a client's mistake was logged with a stack trace: " + record.getMessage(), record.getThrown());
            }
        }
    }

    // ------------------------------------------------------------------------------ browsers and paths

    @Test(timeout = 60_000)
    public void noWebPageMayReadTheApi() throws Exception {
        try (RawClient client = client("127.0.0.9")) {
            Answer answer = client.exchange("GET", "api/v1/nni/check-status", "", "Origin: http://evil.example");
            assertEquals(200, answer.status());
            assertFalse(answer.head(), answer.head().toLowerCase(Locale.ROOT).contains("access-control-allow-origin"));
        }
    }

    @Test(timeout = 60_000)
    public void variantsOfAPathReachNoOtherRouteThanThePlainPath() throws Exception {
        String plain;
        try (RawClient client = client("127.0.0.9")) {
            plain = client.exchange("GET", "api/v1/nni/check-status", "").body();
        }
        String[] variants = {
            "api/v1/nni//check-status",
            "api/v1/nni/check-status;x=y",
            "api/v1/nni;x=y/check-status",
            "api/v1/nni/./check-status",
            "api/v1/nni/x/../check-status",
            "api/v1/nni/x%2F..%2Fcheck-status",
            "api/v1/nni%2Fcheck-status",
            "api/v1/nni-trial/a/b/..%2F..%2F..%2Fnni%2Fcheck-status",
            "api/v1/nni-trial/a/..;/../nni/check-status",
            "api/v1/nni-trial/" + "x/y/../../../nni/check-status",
            "api/v1/nni/trial-jobs//",
            "api/v1/nni/trial-jobs/%2e%2e",
            "api/v1/nni//experiment",
        };
        for (String variant : variants) {
            try (RawClient client = client("127.0.0.9")) {
                Answer answer = client.exchange("GET", variant, "");
                boolean refused = answer.status() == 400 || answer.status() == 404;
                assertTrue(variant + " -> " + answer, refused);
                assertTrue(variant + " -> " + answer, !answer.body().equals(plain));
            }
        }
    }
}
