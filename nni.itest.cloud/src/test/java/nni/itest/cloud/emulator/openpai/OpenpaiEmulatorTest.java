package nni.itest.cloud.emulator.openpai;

import static org.awaitility.Awaitility.await;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Set;

import org.junit.After;
import org.junit.Before;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The OpenPAI emulator itself, spoken to as a client would: it refuses what OpenPAI refuses (the
 * schema and the REST server's rules, a wrong token, a duplicate name, an unknown job) and plays a
 * job's life with real processes and its storage at the container path.
 */
public class OpenpaiEmulatorTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    /** For a job's process to start or end: seconds on a loaded machine. */
    private static final Duration WAIT = Duration.ofSeconds(60);

    @Rule
    public TemporaryFolder folder = new TemporaryFolder();

    private OpenpaiEmulator pai;
    private Path storage;

    @Before
    public void start() throws Exception {
        storage = folder.newFolder("storage").toPath();
        pai = new OpenpaiEmulator("alice", "secret-token", Map.of("data", storage), Set.of("default"), folder.newFolder("tasks").toPath());
        pai.waiting(Duration.ofMillis(50));
    }

    @After
    public void stop() throws Exception {
        pai.close();
    }

    private HttpResponse<String> call(String method, String path, String token, String contentType, String body) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(pai.host() + "/rest-server/api/v2/" + path))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        if (contentType != null) {
            request.header("Content-Type", contentType);
        }
        return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> submit(String yaml) throws Exception {
        return call("POST", "jobs", "secret-token", "text/yaml", yaml);
    }

    private static String job(String name, String role, String commands) {
        return """
                protocolVersion: 2
                name: %s
                type: job
                prerequisites:
                  - {type: dockerimage, uri: msranni/nni, name: image}
                taskRoles:
                  %s:
                    instances: 1
                    dockerImage: image
                    resourcePerInstance: {cpu: 1, memoryMB: 1024, gpu: 0}
                    commands: [%s]
                extras:
                  storages: [{name: data}]
                """.formatted(name, role, commands);
    }

    private String state(String name) throws Exception {
        return JSON.readTree(call("GET", "jobs/alice~" + name, "secret-token", null, null).body()).path("jobStatus").path("state").asText();
    }

    @Test(timeout = 90_000)
    public void aValidJobRunsWithItsStorageAtTheContainerPathAndSucceeds() throws Exception {
        HttpResponse<String> accepted = submit(job("ok", "worker", "'echo hello > /mnt/data/out.txt', 'echo $PAI_CURRENT_TASK_ROLE_NAME >> /mnt/data/out.txt'"));
        assertEquals(accepted.body(), 202, accepted.statusCode());
        // until the job ends, whichever way: it did not succeed within 10 s once in CI, and the state says why
        await().atMost(WAIT).until(() -> Set.of("SUCCEEDED", "FAILED", "STOPPED").contains(state("ok")));
        assertEquals(call("GET", "jobs/alice~ok", "secret-token", null, null).body(), "SUCCEEDED", state("ok"));
        assertEquals("hello\nworker\n", Files.readString(storage.resolve("out.txt")));
        assertTrue("the container path is never created here", !Files.exists(Path.of("/mnt/data/out.txt")));
        JsonNode list = JSON.readTree(call("GET", "jobs?username=alice", "secret-token", null, null).body());
        assertEquals("ok", list.get(0).get("name").asText());
        assertEquals("SUCCEEDED", list.get(0).get("state").asText());
        assertEquals(0, list.get(0).get("appExitCode").asInt());
    }

    @Test(timeout = 30_000)
    public void whatOpenpaiRefusesIsRefused() throws Exception {
        assertEquals(401, call("GET", "jobs?username=alice", "wrong", null, null).statusCode());
        assertEquals(401, call("GET", "jobs?username=alice", null, null, null).statusCode());
        assertEquals(401, call("POST", "jobs", "wrong", "text/yaml", job("a", "worker", "'true'")).statusCode());

        HttpResponse<String> badRole = submit(job("b", "1worker", "'true'"));
        assertEquals(400, badRole.statusCode());
        assertTrue(badRole.body(), badRole.body().contains("InvalidProtocolError") && badRole.body().contains("taskRoles.1worker"));
        HttpResponse<String> noGpu = submit(job("c", "worker", "'true'").replace(", gpu: 0", ""));
        assertEquals(400, noGpu.statusCode());
        assertTrue(noGpu.body(), noGpu.body().contains("resourcePerInstance.gpu"));
        HttpResponse<String> badName = submit(job("bad name!", "worker", "'true'"));
        assertEquals(400, badName.statusCode());
        assertTrue(badName.body(), badName.body().contains("schema:"));
        assertEquals(400, submit(job("d", "worker", "'true'").replace("dockerImage: image", "dockerImage: other")).statusCode());
        assertEquals(400, call("POST", "jobs", "secret-token", "application/json", job("e", "worker", "'true'")).statusCode());
        assertEquals(404, submit(job("f", "worker", "'true'").replace("{name: data}", "{name: nope}")).statusCode());
        assertEquals(400, submit(job("g", "worker", "'true'") + "defaults: {virtualCluster: nope}\n").statusCode());
        assertEquals(pai.refused().toString(), 5, pai.refused().size());

        assertEquals(202, submit(job("h", "worker", "'sleep 30'")).statusCode());
        HttpResponse<String> duplicate = submit(job("h", "worker", "'true'"));
        assertEquals(409, duplicate.statusCode());
        assertTrue(duplicate.body(), duplicate.body().contains("ConflictJobError"));
        assertEquals(404, call("GET", "jobs/alice~nope", "secret-token", null, null).statusCode());
        assertEquals(404, call("PUT", "jobs/alice~nope/executionType", "secret-token", "application/json", "{\"value\":\"STOP\"}").statusCode());
        assertEquals(400, call("PUT", "jobs/alice~h/executionType", "secret-token", "application/json", "{\"value\":\"PAUSE\"}").statusCode());
    }

    @Test(timeout = 180_000)
    public void failuresCarryTheExitCodeAndStopEndsAJobStopped() throws Exception {
        assertEquals(202, submit(job("fails", "worker", "'exit 3'")).statusCode());
        assertEquals(202, submit(job("runs", "worker", "'sleep 60'")).statusCode());
        await().atMost(WAIT).until(() -> state("fails").equals("FAILED"));
        JsonNode failed = JSON.readTree(call("GET", "jobs/alice~fails", "secret-token", null, null).body()).get("jobStatus");
        assertEquals(3, failed.get("appExitCode").asInt());
        await().atMost(WAIT).until(() -> state("runs").equals("RUNNING"));
        assertEquals(202, call("PUT", "jobs/alice~runs/executionType", "secret-token", "application/json", "{\"value\":\"STOP\"}").statusCode());
        await().atMost(WAIT).until(() -> state("runs").equals("STOPPED"));
        assertEquals(-210, pai.job("runs").exitCode().intValue());
        assertEquals("STOP", pai.job("runs").executionType());
    }

    @Test(timeout = 180_000)
    public void injectedFailuresAndAVanishingJob() throws Exception {
        pai.faults().failNext(2, 503);
        assertEquals(503, call("GET", "jobs?username=alice", "secret-token", null, null).statusCode());
        assertEquals(503, call("GET", "jobs?username=alice", "secret-token", null, null).statusCode());
        assertEquals(200, call("GET", "jobs?username=alice", "secret-token", null, null).statusCode());
        assertEquals(202, submit(job("gone", "worker", "'sleep 60'")).statusCode());
        await().atMost(WAIT).until(() -> state("gone").equals("RUNNING"));
        pai.vanish("gone");
        assertEquals(404, call("GET", "jobs/alice~gone", "secret-token", null, null).statusCode());
    }
}
