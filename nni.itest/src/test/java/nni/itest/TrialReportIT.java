package nni.itest;

import static org.awaitility.Awaitility.await;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;

import nni.api.environment.EnvironmentSpec;
import nni.api.environment.KeeperOptions;
import nni.api.environment.KeeperSessions;
import nni.api.model.HyperParameters;
import nni.api.model.Placement;
import nni.api.model.TrialApplication;
import nni.api.model.TrialStatus;
import nni.api.platform.TrainingSession;
import nni.itest.keeper.CapturingLauncher;
import nni.itest.keeper.RecordingContext;
import nni.itest.keeper.TrialScripts;

/**
 * The manager's side of the trial routes, spoken by the test itself over HTTP: refused tokens and
 * bodies, a batch sent twice applied once, log tails, an environment that dies. What the keepers
 * do is the keeper conformance suite's ({@link KeeperConformance}).
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
        Path experiment = Files.createTempDirectory("nni-" + experimentId);
        Path code = experiment.resolve("code");
        TrialScripts.write(code);
        Map<String, Object> section = new HashMap<>();
        section.put("platform", "local");
        section.put("trialCommand", "./trial.sh");
        section.put("trialCodeDirectory", code.toString());
        section.put("reuseMode", reuse);
        return new RecordingContext(experimentId, experiment, section);
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
