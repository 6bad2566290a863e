package nni.api.testkit.environment;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;

/**
 * The manager's side of the keeper protocol (version 1), as far as a launcher's test needs it: the
 * routes a keeper calls over HTTP, {@code /api/v1/nni-trial/<experiment>/<keeper id>/handshake},
 * {@code reports} and {@code commands}, served on loopback by a small HTTP/1.1 server of its own.
 * It knows the keepers it was told to expect ({@link #expect}), refuses any other keeper or token
 * with 401 as the manager does (and notes it, {@link #refusals()}), answers a keeper started in
 * {@code trial} mode with its trial at the handshake, applies reports once each in sequence order
 * and acknowledges them, and hands out the commands a test queues ({@link #command}). Everything a
 * keeper did is recorded for the test to wait for and read: no real manager, store or scheduler
 * is involved.
 *
 * <p>Thread-safe. One thread accepts connections and one serves each; all of them end with
 * {@link #close()}.
 */
public final class StandInManager implements AutoCloseable {

    private static final String PREFIX = "/api/v1/nni-trial/";
    private static final long LONGEST_POLL_MILLIS = 2_000;

    private final ServerSocket server;
    private final List<Socket> connections = new CopyOnWriteArrayList<>();
    private final Map<String, Keeper> keepers = new LinkedHashMap<>();
    private final List<String> refusals = new ArrayList<>();
    private boolean closed;

    /** What one expected keeper did. */
    private static final class Keeper {
        final String experimentId;
        final String token;
        final String trialParameters;
        Map<String, Object> hello;
        final List<Map<String, Object>> reports = new ArrayList<>();
        final List<Map<String, Object>> commands = new ArrayList<>();
        long applied;
        int polls;

        Keeper(String experimentId, String token, String trialParameters) {
            this.experimentId = experimentId;
            this.token = token;
            this.trialParameters = trialParameters;
        }
    }

    /** Listens on a free port of 127.0.0.1. */
    public StandInManager() throws IOException {
        server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(this::accept, "stand-in-manager");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** @return the manager's URL as a worker reaching it at {@code host} writes it ({@code http://host:port/}) */
    public String url(String host) {
        return "http://" + host + ":" + server.getLocalPort() + "/";
    }

    /**
     * Registers a keeper that will call.
     *
     * @param trialParameters for a keeper in {@code trial} mode the parameters of its trial (the
     *                        handshake answers with them), for a runner null
     */
    public synchronized void expect(String experimentId, String keeperId, String token, String trialParameters) {
        keepers.put(keeperId, new Keeper(Objects.requireNonNull(experimentId), Objects.requireNonNull(token), trialParameters));
    }

    /**
     * Queues a command for a keeper, handed out at its next poll: {@code new-trial} (with
     * {@code trial}, {@code sequenceId}, {@code parameter}), {@code kill} (with {@code trial}) or
     * {@code stop}.
     */
    public synchronized void command(String keeperId, String type, Map<String, Object> fields) {
        Keeper keeper = keeper(keeperId);
        Map<String, Object> command = new LinkedHashMap<>();
        command.put("id", (long) keeper.commands.size() + 1);
        command.put("type", type);
        command.putAll(fields);
        keeper.commands.add(command);
        notifyAll();
    }

    /** @return the keeper's handshake body, once it came */
    public synchronized Map<String, Object> awaitHandshake(String keeperId, Duration patience) throws InterruptedException {
        Keeper keeper = keeper(keeperId);
        await(() -> keeper.hello != null, "keeper " + keeperId + " did not shake hands", patience);
        return keeper.hello;
    }

    /**
     * @param what says what is awaited, for the failure message
     * @return the first report of the keeper that satisfies {@code condition}, once it came
     */
    public synchronized Map<String, Object> awaitReport(String keeperId, Predicate<Map<String, Object>> condition, String what,
            Duration patience) throws InterruptedException {
        Keeper keeper = keeper(keeperId);
        await(() -> keeper.reports.stream().anyMatch(condition), "keeper " + keeperId + " did not report " + what, patience);
        return keeper.reports.stream().filter(condition).findFirst().orElseThrow();
    }

    /** Waits until the keeper asked for commands more than {@code polls} times (it is alive and talking). */
    public synchronized void awaitPollsAbove(String keeperId, int polls, Duration patience) throws InterruptedException {
        Keeper keeper = keeper(keeperId);
        await(() -> keeper.polls > polls, "keeper " + keeperId + " did not ask for commands again", patience);
    }

    /** @return the reports applied for the keeper, in sequence order */
    public synchronized List<Map<String, Object>> reports(String keeperId) {
        return List.copyOf(keeper(keeperId).reports);
    }

    /** @return how often the keeper asked for commands */
    public synchronized int polls(String keeperId) {
        return keeper(keeperId).polls;
    }

    /** @return every request refused with 401 (unknown keeper or wrong token), described without the token */
    public synchronized List<String> refusals() {
        return List.copyOf(refusals);
    }

    private Keeper keeper(String keeperId) {
        Keeper keeper = keepers.get(keeperId);
        if (keeper == null) {
            throw new IllegalArgumentException("no keeper " + keeperId + " is expected");
        }
        return keeper;
    }

    private void await(java.util.function.BooleanSupplier done, String failure, Duration patience) throws InterruptedException {
        long deadline = System.nanoTime() + patience.toNanos();
        while (!done.getAsBoolean()) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new AssertionError(failure + " within " + patience.toSeconds() + " s; refused requests: " + refusals);
            }
            wait(Math.max(1, Duration.ofNanos(left).toMillis()));
        }
    }

    // ------------------------------------------------------------------ the routes

    private record Answer(int status, String body) {
    }

    private Answer answer(String method, String target, String authorization, String body) throws InterruptedException {
        String path = target.contains("?") ? target.substring(0, target.indexOf('?')) : target;
        String[] words = path.startsWith(PREFIX) ? path.substring(PREFIX.length()).split("/") : new String[0];
        if (words.length != 3) {
            return new Answer(404, "{\"error\":" + Json.quote("no route " + path) + "}");
        }
        synchronized (this) {
            Keeper keeper = keepers.get(words[1]);
            if (keeper == null || !keeper.experimentId.equals(words[0]) || !("Bearer " + keeper.token).equals(authorization)) {
                refusals.add(method + " " + path + (keeper == null ? " (unknown keeper)" : " (wrong experiment or token)"));
                notifyAll();
                return new Answer(401, "{\"error\":\"unknown keeper or wrong token for keeper " + words[1] + "\"}");
            }
            return switch (words[2]) {
                case "handshake" -> handshake(keeper, words[1], body);
                case "reports" -> reports(keeper, body);
                case "commands" -> commands(keeper, target);
                default -> new Answer(404, "{\"error\":" + Json.quote("no route " + words[2]) + "}");
            };
        }
    }

    @SuppressWarnings("unchecked")
    private Answer handshake(Keeper keeper, String keeperId, String body) {
        keeper.hello = (Map<String, Object>) Json.parse(body);
        notifyAll();
        String trial = keeper.trialParameters == null ? ""
                : ",\"trial\":{\"trial\":" + Json.quote(keeperId) + ",\"sequenceId\":0,\"parameter\":{\"value\":"
                        + Json.quote(keeper.trialParameters) + ",\"index\":0}}";
        return new Answer(200, "{\"managerVersion\":\"nni.api.testkit\",\"protocol\":1" + trial + "}");
    }

    @SuppressWarnings("unchecked")
    private Answer reports(Keeper keeper, String body) {
        List<Object> batch = (List<Object>) ((Map<String, Object>) Json.parse(body)).get("reports");
        for (Object item : batch) {
            Map<String, Object> report = (Map<String, Object>) item;
            long seq = ((Number) report.get("seq")).longValue();
            if (seq > keeper.applied) { // a batch sent again is applied once
                keeper.reports.add(report);
                keeper.applied = seq;
            }
        }
        notifyAll();
        return new Answer(200, "{\"acked\":" + keeper.applied + "}");
    }

    private Answer commands(Keeper keeper, String target) throws InterruptedException {
        keeper.polls++;
        notifyAll();
        long after = query(target, "after", 0);
        long wait = Math.min(query(target, "waitMillis", 0), LONGEST_POLL_MILLIS);
        long deadline = System.nanoTime() + Duration.ofMillis(wait).toNanos();
        while (!closed && keeper.commands.size() <= after && System.nanoTime() < deadline) {
            wait(Math.max(1, Duration.ofNanos(deadline - System.nanoTime()).toMillis()));
        }
        StringBuilder out = new StringBuilder("{\"commands\":[");
        for (int i = (int) Math.min(after, keeper.commands.size()); i < keeper.commands.size(); i++) {
            out.append(i > after ? "," : "").append(write(keeper.commands.get(i)));
        }
        return new Answer(200, out.append("]}").toString());
    }

    private static long query(String target, String name, long otherwise) {
        int q = target.indexOf('?');
        if (q < 0) {
            return otherwise;
        }
        for (String pair : target.substring(q + 1).split("&")) {
            if (pair.startsWith(name + "=")) {
                try {
                    return Long.parseLong(pair.substring(name.length() + 1));
                } catch (NumberFormatException e) {
                    return otherwise;
                }
            }
        }
        return otherwise;
    }

    @SuppressWarnings("unchecked")
    private static String write(Object value) {
        if (value instanceof Map<?, ?> map) {
            StringBuilder out = new StringBuilder("{");
            for (Map.Entry<String, Object> entry : ((Map<String, Object>) map).entrySet()) {
                out.append(out.length() > 1 ? "," : "").append(Json.quote(entry.getKey())).append(':').append(write(entry.getValue()));
            }
            return out.append('}').toString();
        }
        if (value instanceof String text) {
            return Json.quote(text);
        }
        return String.valueOf(value);
    }

    // ------------------------------------------------------------------ HTTP/1.1 on a socket

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket socket = server.accept();
                connections.add(socket);
                Thread connection = new Thread(() -> serve(socket), "stand-in-manager-connection");
                connection.setDaemon(true);
                connection.start();
            } catch (IOException closedServer) {
                return;
            }
        }
    }

    private void serve(Socket socket) {
        try (socket; InputStream in = socket.getInputStream(); OutputStream out = socket.getOutputStream()) {
            for (String requestLine = line(in); requestLine != null; requestLine = line(in)) {
                long length = 0;
                String authorization = null;
                for (String header = line(in); header != null && !header.isEmpty(); header = line(in)) {
                    String name = header.substring(0, Math.max(0, header.indexOf(':'))).trim().toLowerCase(Locale.ROOT);
                    String value = header.substring(header.indexOf(':') + 1).trim();
                    if (name.equals("content-length")) {
                        length = Long.parseLong(value);
                    } else if (name.equals("authorization")) {
                        authorization = value;
                    }
                }
                String body = new String(in.readNBytes((int) length), StandardCharsets.UTF_8);
                String[] parts = requestLine.split(" ");
                Answer answer;
                try {
                    answer = answer(parts[0], parts.length > 1 ? parts[1] : "/", authorization, body);
                } catch (IllegalArgumentException | ClassCastException | NullPointerException e) {
                    answer = new Answer(400, "{\"error\":" + Json.quote("malformed body: " + e.getMessage()) + "}");
                }
                byte[] bytes = answer.body().getBytes(StandardCharsets.UTF_8);
                out.write(("HTTP/1.1 " + answer.status() + (answer.status() == 200 ? " OK" : " Error")
                        + "\r\nContent-Type: application/json\r\nContent-Length: " + bytes.length + "\r\n\r\n")
                        .getBytes(StandardCharsets.US_ASCII));
                out.write(bytes);
                out.flush();
            }
        } catch (IOException | InterruptedException e) {
            // the keeper went away, or the stand-in closed
        } finally {
            connections.remove(socket);
        }
    }

    private static String line(InputStream in) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        for (int c = in.read(); c != '\n'; c = in.read()) {
            if (c < 0) {
                if (line.size() == 0) {
                    return null;
                }
                throw new EOFException();
            }
            if (c != '\r') {
                line.write(c);
            }
        }
        return line.toString(StandardCharsets.US_ASCII);
    }

    /** Stops listening and drops every connection; keepers still running then find no manager. */
    @Override
    public void close() throws IOException {
        synchronized (this) {
            closed = true;
            notifyAll();
        }
        server.close();
        for (Socket socket : connections) {
            socket.close();
        }
    }
}
