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
 */
final class ManagerClient {

    /** The manager answered that this keeper must stop (bad token, refused version, session gone). */
    static final class Refused extends IOException {
        private static final long serialVersionUID = 1L;
        final int status;

        Refused(int status, String message) {
            super(message);
            this.status = status;
        }
    }

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();
    private final URI base;
    private final String token;

    ManagerClient(String managerUrl, String experimentId, String keeperId, String token) {
        String root = managerUrl.endsWith("/") ? managerUrl : managerUrl + "/";
        this.base = URI.create(root + "api/v1/nni-trial/" + encode(experimentId) + "/" + encode(keeperId) + "/");
        this.token = token;
    }

    /** @return the manager's answer: {@code managerVersion}, {@code protocol} and, per trial, {@code trial} */
    Map<String, Object> handshake(Map<String, Object> hello) throws IOException, InterruptedException {
        return Json.parseObject(send(post("handshake", Json.write(hello)), Duration.ofSeconds(15)));
    }

    /** Sends a batch of reports; @return the highest sequence the manager now has */
    long sendReports(List<String> reports) throws IOException, InterruptedException {
        StringBuilder body = new StringBuilder(64 + reports.size() * 128).append("{\"reports\":[");
        for (int i = 0; i < reports.size(); i++) {
            if (i > 0) {
                body.append(',');
            }
            body.append(reports.get(i));
        }
        body.append("]}");
        Map<String, Object> answer = Json.parseObject(send(post("reports", body.toString()), Duration.ofSeconds(30)));
        return ((Number) answer.get("acked")).longValue();
    }

    /** Long-polls for commands after {@code after}; @return them, possibly none */
    @SuppressWarnings("unchecked")
    List<Map<String, Object>> commands(long after, long waitMillis) throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(base.resolve("commands?after=" + after + "&waitMillis=" + waitMillis))
                .header("Authorization", "Bearer " + token).GET()
                .timeout(Duration.ofMillis(waitMillis + 15_000)).build();
        Map<String, Object> answer = Json.parseObject(send(request, null));
        return (List<Map<String, Object>>) (List<?>) answer.get("commands");
    }

    private HttpRequest.Builder post(String route, String body) {
        return HttpRequest.newBuilder(base.resolve(route))
                .header("Authorization", "Bearer " + token)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8));
    }

    private String send(HttpRequest.Builder request, Duration timeout) throws IOException, InterruptedException {
        return send(request.timeout(timeout).build(), null);
    }

    private String send(HttpRequest request, Object unused) throws IOException, InterruptedException {
        HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        int status = response.statusCode();
        if (status == 200) {
            return response.body();
        }
        String message = errorText(response.body());
        if (status == 401 || status == 409 || status == 410 || status == 400 || status == 413) {
            throw new Refused(status, message);
        }
        throw new IOException("manager answered " + status + ": " + message);
    }

    private static String errorText(String body) {
        try {
            Object error = Json.parseObject(body).get("error");
            return error == null ? body : error.toString();
        } catch (IllegalArgumentException notJson) {
            return body.length() > 200 ? body.substring(0, 200) : body;
        }
    }

    private static String encode(String segment) {
        return URLEncoder.encode(segment, StandardCharsets.UTF_8);
    }
}
