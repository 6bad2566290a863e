package nni.itest.launcher;

import static org.awaitility.Awaitility.await;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import org.junit.After;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * {@code TRACE} is 405 everywhere on the port of the runnable jar, on the plain servlets of other
 * bundles too (the web UI, NNI's dispatchers' channels), not only on the JSON routes: a servlet's
 * default answer would echo the request back, its cookies included.
 */
public class TraceIT {

    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @Rule
    public final TemporaryFolder folder = new TemporaryFolder();

    private RuntimeProcess runtime;

    @After
    public void stop() throws InterruptedException {
        if (runtime != null) {
            runtime.close();
        }
    }

    private HttpResponse<String> send(String method, String url) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(20)).header("Cookie", "nni-token=echoed-back")
                .method(method, HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test(timeout = 120_000)
    public void traceIsRefusedOnEveryPageAndRoute() throws Exception {
        runtime = RuntimeProcess.start(folder.newFolder("home").toPath(), folder.newFolder("experiments").toPath());
        String base = runtime.endpoint();
        await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> send("GET", base + "ui/").statusCode() == 200);
        for (String path : new String[] {"ui/", "ui/app.js", "login", "logout", "tuner", "tuner/no-such-channel", "",
                "api/v1/nni/check-status", "api/v1/nni-trial/no/such/reports"}) {
            HttpResponse<String> trace = send("TRACE", base + path);
            assertEquals(path + ": " + trace.body(), 405, trace.statusCode());
            assertFalse(path + ": " + trace.body(), trace.body().contains("echoed-back"));
        }
    }
}
