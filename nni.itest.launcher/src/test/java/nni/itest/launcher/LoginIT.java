package nni.itest.launcher;

import static org.awaitility.Awaitility.await;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Map;

import org.junit.After;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * The login of the shared port, against the runnable jar: beyond loopback (the wildcard address;
 * the requests still go to 127.0.0.1) every REST route and UI page answers 401 without the token,
 * which is made at the first start, printed once and kept readable by its owner only; the login
 * page sets a cookie the pages then use; the trial keepers' routes are not behind the login;
 * {@code etc/} can set the token and ask for it on loopback too; a token file others may read stops
 * the runtime.
 */
public class LoginIT {

    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final Path SCREENSHOTS = Path.of("target", "screenshots");

    @Rule
    public final TemporaryFolder folder = new TemporaryFolder();

    private RuntimeProcess runtime;

    @After
    public void stop() throws InterruptedException {
        if (runtime != null) {
            runtime.close();
        }
    }

    @Test(timeout = 240_000)
    public void beyondLoopbackEveryRouteAndPageAsksForTheTokenMadeAtTheFirstStart() throws Exception {
        Path home = folder.newFolder("home").toPath();
        Path experiments = folder.newFolder("experiments").toPath();
        runtime = RuntimeProcess.start(Map.of(), "0.0.0.0", 0, home, experiments);
        String base = loopback(runtime.endpoint());
        Path tokenFile = home.resolve("login.token");
        await().atMost(Duration.ofSeconds(60)).until(() -> Files.exists(tokenFile) && runtime.console().contains("Token ("));
        String token = Files.readString(tokenFile).strip();
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(tokenFile)));
        assertTrue(runtime.console(), runtime.console().contains("    " + token));
        assertFalse("the token is no log line", Files.readString(home.resolve("log").resolve("nni.log")).contains(token));

        // every route and page, until the servlets are there too
        await().atMost(Duration.ofSeconds(60)).until(() -> send("GET", base + "api/v1/nni/check-status", token, null).statusCode() == 200);
        for (String path : new String[] {"api/v1/nni/check-status", "api/v1/nni/experiments-info", "api/v1/nni-ui/experiments",
                "api/v1/nni-ui/platforms", "api/v1/nni-ui/events", "ui/", "ui/app.js", "", "no/such/page"}) {
            HttpResponse<String> refused = send("GET", base + path, null, null);
            assertEquals(path + ": " + refused.body(), 401, refused.statusCode());
            assertEquals(401, send("GET", base + path, "not-" + token, null).statusCode());
        }
        assertTrue(send("GET", base + "ui/", null, null).body().contains("name=\"token\""));
        HttpResponse<String> put = send("PUT", base + "api/v1/nni/experiment?update_type=TRIAL_CONCURRENCY", "wrong",
                "{\"params\": {\"trialConcurrency\": 3}}");
        assertEquals(401, put.statusCode());
        assertTrue(put.headers().firstValue("WWW-Authenticate").orElse("").startsWith("Bearer"));
        assertEquals(200, send("GET", base + "api/v1/nni-ui/experiments", token, null).statusCode());
        assertEquals(200, send("GET", base + "ui/app.js", token, null).statusCode());
        // the keepers' routes keep their own per-trial tokens: the login does not answer for them
        HttpResponse<String> keeper = send("POST", base + "api/v1/nni-trial/nosuchexp/nosuchkeeper/handshake", null, "{}");
        assertFalse(keeper.body(), keeper.body().contains("login token"));
        assertNotEquals(200, keeper.statusCode());

        try (Browser browser = Browser.start(SCREENSHOTS)) {
            browser.open(base + "ui/");
            browser.waitFor(d -> !browser.findAll("input[name='token']").isEmpty());
            browser.screenshot("login");
            browser.find("input[name='token']").sendKeys("not-" + token);
            browser.find("#login").click();
            browser.waitFor(d -> String.valueOf(browser.text(".problem")).contains("not the token"));
            browser.find("input[name='token']").sendKeys(token);
            browser.find("#login").click();
            browser.waitFor(d -> !browser.findAll("#experiments").isEmpty() && browser.find("#live").getAttribute("class").equals("live"));
            assertEquals("the cookie is HttpOnly", "", browser.script("return document.cookie;"));
        }

        // printed once: a second start on the same home asks for the same token and does not show it
        runtime.close();
        Files.deleteIfExists(home.resolve("log").resolve("endpoint"));
        runtime = RuntimeProcess.start(Map.of(), "0.0.0.0", 0, home, experiments);
        String again = loopback(runtime.endpoint());
        await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> send("GET", again + "api/v1/nni/check-status", token, null).statusCode() == 200);
        assertEquals(401, send("GET", again + "api/v1/nni/check-status", null, null).statusCode());
        assertFalse(runtime.console().contains(token));
    }

    @Test(timeout = 120_000)
    public void etcSetsTheTokenAndAsksForItOnLoopbackToo() throws Exception {
        Path home = folder.newFolder("home").toPath();
        Files.createDirectories(home.resolve("etc"));
        Files.writeString(home.resolve("etc").resolve("nni.manager.login.cfg"), "token=chosen-by-etc\nrequire.on.loopback=true\n");
        runtime = RuntimeProcess.start(home, folder.newFolder("experiments").toPath());
        String base = runtime.endpoint();
        await().atMost(Duration.ofSeconds(60)).until(() -> send("GET", base + "api/v1/nni/check-status", "chosen-by-etc", null).statusCode() == 200
                && send("GET", base + "api/v1/nni/check-status", null, null).statusCode() == 401);
        assertEquals(401, send("GET", base + "ui/", "not-chosen-by-etc", null).statusCode());
        assertFalse(Files.exists(home.resolve("login.token")));
    }

    @Test(timeout = 120_000)
    public void aTokenFileOthersMayReadStopsTheRuntimeBeyondLoopback() throws Exception {
        Path home = folder.newFolder("home").toPath();
        Path tokenFile = home.resolve("login.token");
        Files.writeString(tokenFile, "known-to-all\n");
        Files.setPosixFilePermissions(tokenFile, PosixFilePermissions.fromString("rw-r--r--"));
        runtime = RuntimeProcess.start(Map.of(), "0.0.0.0", 0, home, folder.newFolder("experiments").toPath());
        assertNotEquals(0, runtime.awaitExit(Duration.ofSeconds(90)));
        assertTrue(runtime.console(), runtime.console().contains("cannot run") && runtime.console().contains(tokenFile.toString())
                && runtime.console().contains("may be read by others"));
    }

    /** @return the endpoint with its host replaced by 127.0.0.1: the tests only ever talk to loopback */
    private static String loopback(String endpoint) {
        URI uri = URI.create(endpoint);
        return "http://127.0.0.1:" + uri.getPort() + "/";
    }

    private static HttpResponse<String> send(String method, String url, String token, String body)
            throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(60))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        if (body != null) {
            request.header("Content-Type", "application/json");
        }
        return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }
}
