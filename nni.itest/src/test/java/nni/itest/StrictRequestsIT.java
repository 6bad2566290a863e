package nni.itest;

import static org.awaitility.Awaitility.await;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;
import static org.ops4j.pax.exam.CoreOptions.bundle;
import static org.ops4j.pax.exam.CoreOptions.frameworkProperty;

import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import org.junit.Before;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;

/**
 * Every way to change a running experiment passes the rules its config file passed, and every JSON
 * body is read the same strict way: {@code nnictl update} over REST and {@code nni:change} at the
 * console refuse what the file would (a search space number no double holds, out-of-range limits)
 * with 400 naming the field, and change nothing; a body with trailing content, a key twice, a BOM
 * or a NUL is 400 naming that; {@code TRACE} is 405 on the login's pages as on the REST routes.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class StrictRequestsIT extends RuntimeTestSupport {

    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private static final String SPACE = "{\"x\": {\"_type\": \"uniform\", \"_value\": [0, 1]}}";
    private static String experimentId;

    @Configuration
    public Option[] config() throws Exception {
        Path root = Files.createTempDirectory(Files.createDirectories(Path.of("target").toAbsolutePath()), "strict-it");
        return new Option[] {baseOptions(), bundle(reactorBundle("nni.tuners")),
                frameworkProperty("nni.experiments.dir").value(root.resolve("experiments").toString()),
                frameworkProperty("nni.it.root").value(root.toString())};
    }

    /** An open experiment (its one trial ends at once; it stays open, DONE) for the updates. */
    @Before
    public void experiment() throws Exception {
        if (experimentId != null) {
            return;
        }
        Path code = Files.createDirectories(root().resolve("code"));
        Files.writeString(code.resolve("trial.sh"), "true\n");
        Path config = code.resolve("config.yml");
        Files.writeString(config, """
                searchSpace: %s
                trialCommand: bash trial.sh
                trialCodeDirectory: .
                trialConcurrency: 1
                maxTrialNumber: 1
                tuner:
                  name: Random
                trainingService:
                  platform: local
                """.formatted(SPACE));
        await().atMost(WAIT).until(() -> service(org.apache.felix.service.command.CommandProcessor.class, null) != null);
        experimentId = ((String) command("nni:create " + config)).split(" ")[1];
        await().atMost(WAIT).until(() -> get("api/v1/nni/check-status").body().contains("DONE"));
    }

    private Path root() {
        return Path.of(context.getProperty("nni.it.root"));
    }

    private HttpResponse<String> send(String method, String path, byte[] body) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(endpoint().resolve(path)).timeout(Duration.ofSeconds(20))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofByteArray(body));
        if (body != null) {
            request.header("Content-Type", "application/json");
        }
        return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> update(String type, String params) throws Exception {
        return send("PUT", "api/v1/nni/experiment?update_type=" + type,
                ("{\"id\": \"" + experimentId + "\", \"params\": " + params + "}").getBytes(StandardCharsets.UTF_8));
    }

    private void assertRefused(HttpResponse<String> answer, String... named) {
        assertEquals(answer.body(), 400, answer.statusCode());
        for (String name : named) {
            assertTrue(answer.body(), answer.body().contains(name));
        }
    }

    /** @return the experiment's profile's params, as JSON text */
    private String profile() throws Exception {
        return new com.fasterxml.jackson.databind.ObjectMapper().readTree(get("api/v1/nni/experiment").body()).get("params").toString();
    }

    @Test(timeout = 180_000)
    public void everyUpdateOverRestAndAtTheConsolePassesTheConfigFilesRules() throws Exception {
        String before = profile();
        // the finding: 1e309 was read as Infinity, stored as "Infinity", and the experiment could not be resumed
        assertRefused(update("SEARCH_SPACE", "{\"searchSpace\": {\"x\": {\"_type\": \"uniform\", \"_value\": [1e309, 1e400]}}}"),
                "params.searchSpace.x._value[0]: expected a finite number", "got 1E+309", "searchSpace.x._value[1]: expected a finite number", "got 1E+400");
        // NNI's clients send the space as JSON text
        assertRefused(update("SEARCH_SPACE", "{\"searchSpace\": \"{\\\"x\\\": {\\\"_type\\\": \\\"uniform\\\", \\\"_value\\\": [0, 1e309]}}\"}"),
                "params.searchSpace.x._value[1]: expected a finite number");
        assertRefused(update("SEARCH_SPACE", "{\"searchSpace\": {\"x\": {\"_type\": \"uniform\", \"_value\": [2, 1]}}}"),
                "params.searchSpace", "expected low <= high");
        assertRefused(update("TRIAL_CONCURRENCY", "{\"trialConcurrency\": 1e309}"), "params.trialConcurrency");
        assertRefused(update("TRIAL_CONCURRENCY", "{\"trialConcurrency\": 0}"), "params.trialConcurrency");
        assertRefused(update("MAX_TRIAL_NUM", "{\"maxTrialNumber\": 4294967297}"), "params.maxTrialNumber");
        assertRefused(update("MAX_EXEC_DURATION", "{\"maxExperimentDuration\": \"soon\"}"), "params.maxExperimentDuration");
        assertRefused(update("MAX_EXEC_DURATION", "{\"maxExperimentDuration\": -5}"), "params.maxExperimentDuration");

        // the console reads a search space file as a REST body is read, and passes it to the same rule
        Path infinite = Files.writeString(root().resolve("infinite.json"), "{\"x\": {\"_type\": \"uniform\", \"_value\": [0, 1e309]}}");
        Exception console = assertThrows(Exception.class, () -> command("nni:change " + experimentId + " searchspace " + infinite));
        assertTrue(console.getMessage(), console.getMessage().contains("searchSpace.x._value[1]: expected a finite number"));
        Path twice = Files.writeString(root().resolve("twice.json"), "{\"x\": {\"_type\": \"uniform\", \"_value\": [0, 1]}} {}");
        console = assertThrows(Exception.class, () -> command("nni:change " + experimentId + " searchspace " + twice));
        assertTrue(console.getMessage(), console.getMessage().contains("more after its JSON value"));
        console = assertThrows(Exception.class, () -> command("nni:change " + experimentId + " concurrency 0"));
        assertTrue(console.getMessage(), console.getMessage().contains("trialConcurrency"));
        assertEquals("nothing was changed", before, profile());

        // what passes the rules is taken, decimals as the file gives them
        HttpResponse<String> taken = update("SEARCH_SPACE", "{\"searchSpace\": {\"x\": {\"_type\": \"uniform\", \"_value\": [0.25, 1e300]}}}");
        assertEquals(taken.body(), 200, taken.statusCode());
        assertTrue(profile(), profile().contains("\"_value\":[0.25,1.0E300]"));
        assertEquals(200, update("SEARCH_SPACE", "{\"searchSpace\": " + SPACE + "}").statusCode());
    }

    @Test(timeout = 120_000)
    public void jsonBodiesWithTrailingContentATwiceKeyABomOrANulAreRefusedNamingIt() throws Exception {
        String path = "api/v1/nni/experiment?update_type=TRIAL_CONCURRENCY";
        String good = "{\"id\": \"" + experimentId + "\", \"params\": {\"trialConcurrency\": 1}}";
        assertRefused(send("PUT", path, (good + " {\"params\": {\"trialConcurrency\": 7}}").getBytes(StandardCharsets.UTF_8)),
                "more after its JSON value");
        assertRefused(send("PUT", path, (good + "garbage").getBytes(StandardCharsets.UTF_8)), "more after its JSON value");
        assertRefused(send("PUT", path, good.replace("{\"trialConcurrency\": 1}", "{\"trialConcurrency\": 1, \"trialConcurrency\": 7}")
                .getBytes(StandardCharsets.UTF_8)), "the key \\\"trialConcurrency\\\" twice");
        ByteArrayOutputStream bom = new ByteArrayOutputStream();
        bom.write(new byte[] {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF});
        bom.write(good.getBytes(StandardCharsets.UTF_8));
        assertRefused(send("PUT", path, bom.toByteArray()), "byte order mark");
        ByteArrayOutputStream nul = new ByteArrayOutputStream();
        nul.write(good.getBytes(StandardCharsets.UTF_8));
        nul.write(0);
        assertRefused(send("PUT", path, nul.toByteArray()), "NUL byte at offset " + good.length());
        assertRefused(send("POST", "api/v1/nni/experiment/import-data", "[{\"parameter\": {\"x\": 0.5}, \"value\": 1}] []"
                .getBytes(StandardCharsets.UTF_8)), "more after its JSON value");
        assertTrue(profile(), profile().contains("\"trialConcurrency\":1"));
        HttpResponse<String> plain = send("PUT", path, good.getBytes(StandardCharsets.UTF_8));
        assertEquals(plain.body(), 200, plain.statusCode());
    }

    @Test(timeout = 60_000)
    public void traceIsRefusedOnTheLoginPagesAsOnTheRestRoutes() throws Exception {
        await().atMost(WAIT).until(() -> get("login").statusCode() != 404);
        for (String path : new String[] {"login", "logout", "api/v1/nni/check-status", "api/v1/nni-ui/experiments", "no/such/page"}) {
            HttpResponse<String> trace = HTTP.send(HttpRequest.newBuilder(URI.create(endpoint() + path))
                    .header("Cookie", "nni-token=echoed-back").method("TRACE", HttpRequest.BodyPublishers.noBody()).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(path + ": " + trace.body(), 405, trace.statusCode());
            assertTrue(path + ": " + trace.body(), !trace.body().contains("echoed-back"));
        }
    }
}
