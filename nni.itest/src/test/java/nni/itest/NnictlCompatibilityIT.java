package nni.itest;

import static org.awaitility.Awaitility.await;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assume.assumeTrue;
import static org.ops4j.pax.exam.CoreOptions.bundle;
import static org.ops4j.pax.exam.CoreOptions.frameworkProperty;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.After;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Two experiments in one runtime, seen and driven by NNI's own tools as NNI 3.0 has them
 * ({@code nni.shell}'s test resource {@code nnictl/nni_tools.py} does what nnictl and
 * {@code Experiment.connect} do with the registry file and the REST API): each is listed, updated,
 * exported and stopped alone, through its pid and its URL prefix; without a name, several open
 * experiments are refused rather than mixed up.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class NnictlCompatibilityIT extends RuntimeTestSupport {

    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final ObjectMapper JSON = new ObjectMapper();

    @Configuration
    public Option[] config() throws Exception {
        Path root = scratch("nnictl-it");
        return new Option[] {baseOptions(), bundle(reactorBundle("nni.tuners")),
                frameworkProperty("nni.experiments.dir").value(root.resolve("experiments").toString()),
                frameworkProperty("nni.it.root").value(root.toString())};
    }

    private static boolean python() {
        try {
            return new ProcessBuilder("python3", "--version").start().waitFor() == 0;
        } catch (IOException | InterruptedException e) {
            return false;
        }
    }

    /** Runs nni_tools.py and returns its JSON answer. */
    private static JsonNode tools(String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of("python3", Path.of(System.getProperty("nni.bundles.dir"), "nni.shell",
                "src", "test", "resources", "nnictl", "nni_tools.py").toString()));
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue("nni_tools.py did not end", process.waitFor(90, TimeUnit.SECONDS));
        assertEquals(String.join(" ", args) + ": " + output, 0, process.exitValue());
        return JSON.readTree(output);
    }

    private HttpResponse<String> http(String method, String path, String body) throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(endpoint().resolve(path))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
                .header("Content-Type", "application/json").timeout(Duration.ofSeconds(60)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private JsonNode api(String path) throws Exception {
        HttpResponse<String> response = http("GET", path, null);
        assertEquals(path + ": " + response.body(), 200, response.statusCode());
        return JSON.readTree(response.body());
    }

    private JsonNode registry(Path root) throws IOException {
        return JSON.readTree(root.resolve(".experiment").toFile());
    }

    /** Ends the held trials whatever became of the test (both experiments are stopped when it passes). */
    @After
    public void releaseTheTrials() throws IOException {
        Path code = Path.of(context.getProperty("nni.it.root")).resolve("code");
        if (Files.isDirectory(code)) {
            Files.writeString(code.resolve("release"), "");
        }
    }

    /** A dozen runs of NNI's Python tools, each starting python3 and importing its modules: minutes together on a loaded machine. */
    @Test(timeout = 900_000)
    public void nnictlAndTheClientDriveEachExperimentAlone() throws Exception {
        assumeTrue("python3 is needed to play NNI's tools", python());
        Path root = Path.of(context.getProperty("nni.it.root"));
        Path experiments = root.resolve("experiments");
        Path code = Files.createDirectories(root.resolve("code"));
        Files.writeString(code.resolve("trial.sh"), """
                for step in 0 1; do
                  m='{"parameter_id": 0, "trial_job_id": "'$NNI_TRIAL_JOB_ID'", "type": "PERIODICAL", "sequence": '$step', "value": "'$step'"}'
                  echo "NNISDK_MEb'$m'"
                done
                m='{"parameter_id": 0, "trial_job_id": "'$NNI_TRIAL_JOB_ID'", "type": "FINAL", "sequence": 0, "value": "'$NNI_TRIAL_SEQ_ID'.5"}'
                echo "NNISDK_MEb'$m'"
                # the third trial runs until cancelled or released, however long the test takes (at most 10 min)
                if [ "$NNI_TRIAL_SEQ_ID" -ge 2 ]; then
                  for i in $(seq 3000); do [ -e "$NNI_CODE_DIR/release" ] && break; sleep 0.2; done
                fi
                """);
        Path config = Files.writeString(code.resolve("config.yml"), """
                experimentName: nnictl-%s
                searchSpace:
                  x: {_type: choice, _value: [1, 2, 3, 4, 5, 6, 7, 8]}
                trialCommand: bash trial.sh
                trialConcurrency: 1
                maxTrialNumber: 3
                maxExperimentDuration: 30m
                tuner: {name: GridSearch}
                trainingService: {platform: local}
                """);
        String a = ((String) command("nni:create " + config)).split(" ")[1];
        String b = ((String) command("nni:create " + config)).split(" ")[1];
        int port = endpoint().getPort();
        for (String id : List.of(a, b)) {
            await().atMost(WAIT).until(() -> api("api/v1/nni/trial-jobs?status=SUCCEEDED&experiment_id=" + id).size() == 2);
        }

        // the registry: NNI's fields, the runtime's port, a pid per experiment that is not the runtime's
        await().atMost(WAIT).until(() -> Files.exists(experiments.resolve(".experiment"))
                && registry(experiments).has(a) && registry(experiments).has(b));
        JsonNode entryA = registry(experiments).get(a);
        JsonNode entryB = registry(experiments).get(b);
        assertEquals(port, entryA.get("port").asInt());
        // the status is the manager's (three trials submitted of maxTrialNumber 3: NO_MORE_TRIAL)
        assertEquals("NO_MORE_TRIAL", api("experiments/" + a + "/api/v1/nni/check-status").get("status").asText());
        await().atMost(WAIT).until(() -> registry(experiments).get(a).get("status").asText().equals("NO_MORE_TRIAL"));
        assertEquals("N/A", entryA.get("endTime").asText());
        assertEquals("local", entryA.get("platform").asText());
        assertEquals(experiments.toString(), entryA.get("logDir").asText());
        assertEquals("experiments/" + a, entryA.get("prefixUrl").asText());
        long pidA = entryA.get("pid").asLong();
        long pidB = entryB.get("pid").asLong();
        assertNotEquals(pidA, pidB);
        assertNotEquals(ProcessHandle.current().pid(), pidA);
        assertTrue(ProcessHandle.of(pidA).isPresent() && ProcessHandle.of(pidB).isPresent());
        JsonNode listed = tools("list", experiments.toString());
        assertEquals(2, listed.size());
        listed.forEach(entry -> assertEquals("NO_MORE_TRIAL", entry.get("status").asText()));

        // several experiments on one port: a request naming none is refused, not answered for one of them
        HttpResponse<String> ambiguous = http("GET", "api/v1/nni/trial-jobs", null);
        assertEquals(409, ambiguous.statusCode());
        assertTrue(ambiguous.body(), ambiguous.body().contains(a) && ambiguous.body().contains("/experiments/<id>/api/v1/nni/"));

        // NNI's Python client with the experiment's URL prefix: reads and all four updates act on that experiment only
        JsonNode client = tools("client", Integer.toString(port), "experiments/" + a);
        assertEquals(a, client.get("id").asText());
        assertEquals(pidA, client.get("pid").asLong());
        assertEquals(List.of(0, 1, 0, 1), List.of(client.get("metrics").get(0).asInt(), client.get("metrics").get(1).asInt(),
                client.get("metrics").get(3).asInt(), client.get("metrics").get(4).asInt()));
        assertEquals(0.5, client.get("exported").get(0).asDouble(), 0);
        assertEquals("1h", client.get("params").get("maxExperimentDuration").asText());
        assertEquals(3, client.get("params").get("trialConcurrency").asInt());
        JsonNode profileB = api("experiments/" + b + "/api/v1/nni/experiment");
        assertEquals(1, profileB.get("params").get("trialConcurrency").asInt());
        assertEquals("30m", profileB.get("params").get("maxExperimentDuration").asText());
        // the profile names the directory the experiment is really in (the runtime's root, not NNI's default)
        assertEquals(experiments.toString(), profileB.get("params").get("experimentWorkingDirectory").asText());
        assertEquals(experiments.resolve(b).toString(), profileB.get("logDir").asText());

        // a PUT names its experiment by the profile it sends back
        ((ObjectNode) profileB.get("params")).put("trialConcurrency", 2);
        HttpResponse<String> put = http("PUT", "api/v1/nni/experiment?update_type=TRIAL_CONCURRENCY", profileB.toString());
        assertEquals(put.body(), 200, put.statusCode());
        assertEquals(2, api("api/v1/nni/experiment?experiment_id=" + b).get("params").get("trialConcurrency").asInt());
        assertEquals(3, api("api/v1/nni/experiment?experiment_id=" + a).get("params").get("trialConcurrency").asInt());

        // nnictl trial kill: the trial id names the experiment, whatever else runs
        await().atMost(WAIT).until(() -> api("experiments/" + a + "/api/v1/nni/trial-jobs?status=RUNNING").size() >= 1);
        String running = api("experiments/" + a + "/api/v1/nni/trial-jobs?status=RUNNING").get(0).get("trialJobId").asText();
        assertEquals(200, http("DELETE", "api/v1/nni/trial-jobs/" + running, null).statusCode());
        await().atMost(WAIT).until(() -> api("experiments/" + a + "/api/v1/nni/trial-jobs/" + running).get("status").asText()
                .equals("USER_CANCELED"));

        // nnictl stop A: SIGTERM to A's pid, which exits once A has stopped; B runs on
        JsonNode stopped = tools("stop", experiments.toString(), a);
        assertTrue(stopped.toString(), stopped.get("exited").asBoolean());
        assertEquals("STOPPED", stopped.get("status").asText());
        assertEquals("STOPPED", registry(experiments).get(a).get("status").asText());
        assertFalse(registry(experiments).get(a).get("endTime").isTextual());
        assertEquals("NO_MORE_TRIAL", api("experiments/" + b + "/api/v1/nni/check-status").get("status").asText());
        assertTrue(ProcessHandle.of(pidB).isPresent());
        String stdout = Files.readString(experiments.resolve(a).resolve("log").resolve("nnictl_stdout.log"));
        assertTrue(stdout, stdout.contains("Experiment " + a + " start") && stdout.contains(": RUNNING") && stdout.contains(": STOPPED"));
        assertTrue(Files.exists(experiments.resolve(a).resolve("log").resolve("nnictl_stderr.log")));

        // one experiment open: nnictl's commands and Experiment.connect(port) as NNI has them
        JsonNode trials = tools("trial-ls", experiments.toString(), b);
        assertEquals(2, trials.size());
        assertEquals("1.5", JSON.readTree(trials.get(0).get("finalMetricData").get(0).get("data").asText()).asText());
        JsonNode top = tools("top", experiments.toString());
        assertEquals(1, top.size());
        assertEquals(b, top.get(0).get("id").asText());
        JsonNode updated = tools("update", experiments.toString(), b, "duration", "2h");
        assertEquals(7200, updated.get("params").get("maxExperimentDuration").asInt());
        Path csv = root.resolve("b.csv");
        JsonNode exported = tools("export", experiments.toString(), b, "csv", csv.toString());
        assertEquals(2, exported.size());
        List<String> lines = Files.readAllLines(csv);
        assertEquals("intermediate,reward,trialJobId,x", lines.get(0));
        assertEquals(3, lines.size());
        // nnictl experiment import: what export wrote goes back in (B's GridSearch skips those points)
        Path json = root.resolve("b.json");
        tools("export", experiments.toString(), b, "json", json.toString());
        JsonNode imported = tools("import", experiments.toString(), b, json.toString());
        assertEquals(1, imported.size());
        assertEquals(2, JSON.readTree(imported.get(0).asText()).size());
        JsonNode connected = tools("client", Integer.toString(port));
        assertEquals(b, connected.get("id").asText());
        assertEquals(pidB, connected.get("pid").asLong());
        JsonNode info = api("api/v1/nni/experiments-info");
        assertEquals(2, info.size());
        for (JsonNode entry : info) {
            assertTrue(entry.toString(), entry.has("pid") && entry.has("id") && entry.has("status"));
        }

        // Experiment.stop(): DELETE, then the client waits for the pid to exit
        JsonNode clientStop = tools("client-stop", Integer.toString(port));
        assertEquals(b, clientStop.get("id").asText());
        assertTrue(clientStop.get("exited").asBoolean());
        assertEquals("STOPPED", registry(experiments).get(b).get("status").asText());
        assertEquals("INITIALIZED", api("api/v1/nni/check-status").get("status").asText());
        for (JsonNode entry : tools("list", experiments.toString())) {
            assertEquals("STOPPED", entry.get("status").asText());
        }
        // what NNI's clients ask and this runtime does not do gets a clear 4xx
        HttpResponse<String> create = http("POST", "api/v1/nni/experiment", "{}");
        assertEquals(405, create.statusCode());
        assertTrue(create.body(), create.body().contains("nni:create"));
        assertEquals(404, http("GET", "api/v1/nni/tensorboard-tasks", null).statusCode());
        URI unknown = endpoint().resolve("experiments/" + a + "/api/v1/nni/experiment");
        assertEquals(404, HttpClient.newHttpClient().send(HttpRequest.newBuilder(unknown).build(),
                HttpResponse.BodyHandlers.ofString()).statusCode());
    }
}
