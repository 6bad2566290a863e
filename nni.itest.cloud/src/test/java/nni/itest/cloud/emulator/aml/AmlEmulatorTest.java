package nni.itest.cloud.emulator.aml;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.ClassRule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The Azure ML emulator itself, spoken to as a client would: it refuses what Azure refuses (no or a
 * foreign token, another api-version, a job body against the published definitions, references to
 * resources that do not exist, a wrong client secret).
 */
public class AmlEmulatorTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @ClassRule
    public static TemporaryFolder folder = new TemporaryFolder();

    private static AmlEmulator aml;
    private static String token;

    @BeforeClass
    public static void start() throws Exception {
        aml = new AmlEmulator("t1", "c1", "s1", "sub", "rg", "ws", "cpu", folder.newFolder().toPath());
        HttpResponse<String> answer = send("POST", "/t1/oauth2/v2.0/token", null,
                "grant_type=client_credentials&client_id=c1&client_secret=s1&scope=https%3A%2F%2Fmanagement.azure.com%2F.default");
        assertEquals(answer.body(), 200, answer.statusCode());
        token = JSON.readTree(answer.body()).get("access_token").asText();
    }

    @AfterClass
    public static void stop() throws Exception {
        aml.close();
    }

    private static HttpResponse<String> send(String method, String path, String bearer, String body) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(aml.address() + path))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (bearer != null) {
            request.header("Authorization", "Bearer " + bearer);
        }
        return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static String job(String name) {
        return aml.workspaceId() + "/jobs/" + name + "?api-version=" + AmlEmulator.API_VERSION;
    }

    @Test
    public void aWrongSecretIsRefusedAsEntraIdRefusesIt() throws Exception {
        HttpResponse<String> answer = send("POST", "/t1/oauth2/v2.0/token", null,
                "grant_type=client_credentials&client_id=c1&client_secret=nope&scope=https%3A%2F%2Fmanagement.azure.com%2F.default");
        assertEquals(401, answer.statusCode());
        assertEquals("invalid_client", JSON.readTree(answer.body()).get("error").asText());
    }

    @Test
    public void callsWithoutAnIssuedTokenOrWithAnotherApiVersionAreRefused() throws Exception {
        assertEquals(401, send("GET", job("x"), null, null).statusCode());
        assertEquals(401, send("GET", job("x"), "made-up", null).statusCode());
        HttpResponse<String> version = send("GET", aml.workspaceId() + "/jobs/x?api-version=2019-05-01", token, null);
        assertEquals(400, version.statusCode());
        assertTrue(version.body(), version.body().contains("InvalidApiVersionParameter"));
        assertEquals(404, send("GET", job("x"), token, null).statusCode());
    }

    @Test
    public void aJobBodyIsCheckedAgainstThePublishedDefinitions() throws Exception {
        HttpResponse<String> answer = send("PUT", job("bad-job"), token, """
                {"properties": {"jobType": "Command", "status": "Running", "commandLine": "x", "resources": {"instanceCount": "one"},
                 "computeId": "%s/computes/gpu", "environmentId": "%s/environments/e/versions/1"}}
                """.formatted(aml.workspaceId(), aml.workspaceId()));
        assertEquals(answer.body(), 400, answer.statusCode());
        String body = answer.body();
        for (String problem : new String[] {"properties.command: is required", "properties.status: is read-only",
                "properties.commandLine: is not a field of this definition", "properties.resources.instanceCount: expected an integer",
                "properties.computeId: no such compute", "properties.environmentId: no such environment version"}) {
            assertTrue(problem + " in " + body, body.contains(problem));
        }
        HttpResponse<String> kind = send("PUT", job("sweep"), token, "{\"properties\": {\"jobType\": \"Spark\"}}");
        assertEquals(400, kind.statusCode());
        assertTrue(kind.body(), kind.body().contains("jobType: no definition for \\\"Spark\\\""));
        assertTrue(aml.jobs().isEmpty());
    }
}
