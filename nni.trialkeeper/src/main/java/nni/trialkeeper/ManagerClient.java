package nni.trialkeeper;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The keeper's side of the trial routes on the manager's one HTTP endpoint,
 * {@code <manager>/api/v1/nni-trial/<experiment>/<keeper id>/...}. Every request carries the
 * keeper's token as {@code Authorization: Bearer}.
 *
 * <p>Answers fall in three kinds: usable (200 with the expected JSON), a definite refusal by the
 * manager ({@link Refused}: the keeper must stop), and everything else ({@link Unusable}: a proxy's
 * error page, a 5xx, a 4xx that does not mean "stop", a body that is not what the protocol says),
 * which the keeper retries after a growing pause.
 */
final class ManagerClient implements ManagerLink {

    /**
     * The manager said, in its own words (a JSON {@code error}), that this keeper must stop: 401
     * (unknown keeper or wrong token), 409 at the handshake (protocol mismatch), 410 (session gone;
     * with {@code "stopped": true} when the manager had sent this keeper a stop).
     */
    static final class Refused extends IOException {
        private static final long serialVersionUID = 1L;
        final int status;
        /** The manager had written this keeper a stop before it ended the session: the end it asked for. */
        final boolean afterStop;

        Refused(int status, String message) {
            this(status, message, false);
        }

        Refused(int status, String message, boolean afterStop) {
            super(message);
            this.status = status;
            this.afterStop = afterStop;
        }
    }

    /** An answer the keeper cannot use; it tries again later. */
    static final class Unusable extends IOException {
        private static final long serialVersionUID = 1L;
        final int status;

        Unusable(int status, String message) {
            super(message);
            this.status = status;
        }
    }

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();
    private final URI base;
    private final String token;
    private final String managerUrl;

    ManagerClient(String managerUrl, String experimentId, String keeperId, String token) {
        String root = managerUrl.endsWith("/") ? managerUrl : managerUrl + "/";
        this.base = URI.create(root + "api/v1/nni-trial/" + encode(experimentId) + "/" + encode(keeperId) + "/");
        this.token = token;
        this.managerUrl = managerUrl;
    }

    @Override
    public String where() {
        return "manager " + managerUrl;
    }

    @Override
    public Map<String, Object> handshake(Map<String, Object> hello) throws IOException, InterruptedException {
        return send(post("handshake", Json.write(hello)).timeout(Duration.ofSeconds(15)).build(), true);
    }

    /**
     * Sends a batch of reports, numbered up to {@code lastSeq}.
     *
     * @return the highest sequence the manager now has durably, never above {@code lastSeq}
     * @throws Unusable when the answer acknowledges no whole number or one above {@code lastSeq}
     *                  (reports this keeper never sent: dropping on that word would lose them)
     */
    @Override
    public long sendReports(List<String> reports, long lastSeq) throws IOException, InterruptedException {
        StringBuilder body = new StringBuilder(64 + reports.size() * 128).append("{\"reports\":[");
        for (int i = 0; i < reports.size(); i++) {
            if (i > 0) {
                body.append(',');
            }
            body.append(reports.get(i));
        }
        body.append("]}");
        Map<String, Object> answer = send(post("reports", body.toString()).timeout(Duration.ofSeconds(30)).build(), false);
        if (!(answer.get("acked") instanceof Long acked) || acked < 0) {
            throw new Unusable(200, "the manager's answer to a report batch has no acknowledged sequence: " + shorten(Json.write(answer)));
        }
        if (acked > lastSeq) {
            throw new Unusable(200, "the manager acknowledged report " + acked + ", but this keeper has sent reports only up to "
                    + lastSeq);
        }
        return acked;
    }

    /** Long-polls for commands after {@code after}; @return them, possibly none, each with a numeric id and a type */
    @Override
    @SuppressWarnings("unchecked")
    public List<Map<String, Object>> commands(long after, long waitMillis) throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(base.resolve("commands?after=" + after + "&waitMillis=" + waitMillis))
                .header("Authorization", "Bearer " + token).GET()
                .timeout(Duration.ofMillis(waitMillis + 15_000)).build();
        Map<String, Object> answer = send(request, false);
        if (!(answer.get("commands") instanceof List<?> commands)
                || !commands.stream().allMatch(c -> c instanceof Map<?, ?> m && m.get("id") instanceof Long && m.get("type") instanceof String)) {
            throw new Unusable(200, "the manager's command answer is not a list of numbered commands: " + shorten(Json.write(answer)));
        }
        return (List<Map<String, Object>>) commands;
    }

    private HttpRequest.Builder post(String route, String body) {
        return HttpRequest.newBuilder(base.resolve(route))
                .header("Authorization", "Bearer " + token)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8));
    }

    private Map<String, Object> send(HttpRequest request, boolean handshake) throws IOException, InterruptedException {
        HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        int status = response.statusCode();
        Map<String, Object> body;
        try {
            body = Json.parseObject(response.body());
        } catch (IllegalArgumentException notJson) {
            throw new Unusable(status, "the manager answered " + status + " with a body that is not JSON: " + shorten(response.body()));
        }
        if (status == 200) {
            return body;
        }
        String message = body.get("error") instanceof String error ? error : null;
        if (message != null && (status == 401 || status == 410 || (status == 409 && handshake))) {
            // "stopped": the session ended after sending this keeper a stop it may not have taken yet
            throw new Refused(status, message, Boolean.TRUE.equals(body.get("stopped")));
        }
        throw new Unusable(status, "the manager answered " + status + ": " + (message != null ? message : shorten(response.body())));
    }

    private static String shorten(String text) {
        return text.length() > 200 ? text.substring(0, 200) + "..." : text;
    }

    private static String encode(String segment) {
        return URLEncoder.encode(segment, StandardCharsets.UTF_8);
    }
}
