package nni.itest;

import static org.awaitility.Awaitility.await;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.ops4j.pax.exam.CoreOptions.bundle;
import static org.ops4j.pax.exam.CoreOptions.frameworkProperty;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import org.junit.After;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;
import org.osgi.framework.Bundle;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * Issue 29 items 3 and 4, in the real runtime: the trials counted in one vocabulary by every face
 * ({@code nni:top}, {@code nni:experiments}, the web UI's JSON); lowering max trials below what
 * already started says so; an experiment that ended does not hide the next one from NNI's
 * single-experiment routes (NNI's {@code Experiment.connect(port)} and nnictl); an entry of the
 * experiments folder that is not an experiment (NNI's {@code _latest} link) is not listed; and an
 * experiment that ended DONE is still DONE after the runtime (here: its manager bundle) restarts.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class EndedExperimentsIT extends RuntimeTestSupport {

    private static final Duration WAIT = Duration.ofSeconds(90);
    private static final ObjectMapper JSON = new ObjectMapper();

    @Configuration
    public Option[] config() throws Exception {
        Path root = scratch("ended-it");
        return new Option[] {baseOptions(), bundle(reactorBundle("nni.tuners")),
                frameworkProperty("nni.experiments.dir").value(root.resolve("experiments").toString()),
                frameworkProperty("nni.it.root").value(root.toString())};
    }

    /** Ends the held trials whatever became of the test. */
    @After
    public void releaseTheTrials() throws Exception {
        Path code = Path.of(context.getProperty("nni.it.root")).resolve("code");
        if (Files.isDirectory(code)) {
            Files.writeString(code.resolve("release"), "");
        }
    }

    @Test(timeout = 600_000)
    public void countsAgreeAndAnEndedExperimentNeitherBlocksNorForgetsItsEnd() throws Exception {
        Path root = Path.of(context.getProperty("nni.it.root"));
        Path experiments = root.resolve("experiments");
        Path code = Files.createDirectories(root.resolve("code"));
        // sequence 1 fails; from sequence 2 on, a trial holds until the release file exists
        Files.writeString(code.resolve("trial.sh"), """
                m='{"parameter_id": 0, "trial_job_id": "'$NNI_TRIAL_JOB_ID'", "type": "FINAL", "sequence": 0, "value": "'$NNI_TRIAL_SEQ_ID'"}'
                if [ "$NNI_TRIAL_SEQ_ID" -eq 1 ]; then exit 3; fi
                if [ "$NNI_TRIAL_SEQ_ID" -ge 2 ]; then
                  for i in $(seq 3000); do [ -e "$NNI_CODE_DIR/release" ] && break; sleep 0.2; done
                fi
                echo "NNISDK_MEb'$m'"
                """);
        String config = """
                experimentName: %s
                searchSpace:
                  x: {_type: choice, _value: [1, 2, 3, 4, 5, 6]}
                trialCommand: bash trial.sh
                trialCodeDirectory: .
                trialConcurrency: 2
                maxTrialNumber: %d
                tuner: {name: GridSearch}
                trainingService: {platform: local}
                """;
        Path first = Files.writeString(code.resolve("first.yml"), config.formatted("first", 2));
        Path second = Files.writeString(code.resolve("second.yml"), config.formatted("second", 4));

        // the first ends DONE at once: one trial succeeded, one failed; every face counts them alike
        String a = ((String) command("nni:create " + first)).split(" ")[1];
        await().atMost(WAIT).until(() -> command("nni:top --once").toString().contains(a + " DONE"));
        String counted = "succeeded 1  failed 1  of max 2";
        String top = command("nni:top --once").toString();
        assertTrue(top, top.contains(counted) && !top.contains("done "));
        assertTrue(listed(a), listed(a).matches(a + " +first +DONE +local +" + counted + " +0 +.*"));
        JsonNode row = uiRow(a);
        assertEquals(row.toString(), counted, row.get("trials").get("text").asText());
        assertEquals(1, row.get("trials").get("failed").asInt());

        // the second runs (sequence 2 and 3 hold, 4 trials started); the first, ended, stays open for reading but is not the one NNI's routes answer for
        String b = ((String) command("nni:create " + second)).split(" ")[1];
        await().atMost(WAIT).until(() -> api("api/v1/nni/trial-jobs?experiment_id=" + b).size() == 4
                && api("api/v1/nni/trial-jobs?status=RUNNING&experiment_id=" + b).size() == 2);
        HttpResponse<String> status = get("api/v1/nni/check-status");
        assertEquals(status.body(), 200, status.statusCode());
        // every trial started (4 of max 4): NO_MORE_TRIAL, still running them
        assertEquals("NO_MORE_TRIAL", JSON.readTree(status.body()).get("status").asText());
        assertEquals(b, api("api/v1/nni/experiment").get("id").asText());
        List<String> jobs = new ArrayList<>();
        api("api/v1/nni/trial-jobs").forEach(job -> jobs.add(job.get("trialJobId").asText()));
        List<String> ofB = new ArrayList<>();
        api("api/v1/nni/trial-jobs?experiment_id=" + b).forEach(job -> ofB.add(job.get("trialJobId").asText()));
        assertEquals(ofB, jobs);

        // max trials lowered below the trials started: each face says no more will start
        String below = "max trials 1 is below the 4 trials already started: no more will start";
        String changed = command("nni:change " + b + " maxtrialnumber 1").toString();
        assertTrue(changed, changed.contains(below));
        top = command("nni:top --once").toString();
        assertTrue(top, top.contains("of max 1 (" + below + ")"));
        assertEquals(below, uiRow(b).get("trials").get("belowStarted").asText());
        JsonNode profile = api("api/v1/nni/experiment");
        ((com.fasterxml.jackson.databind.node.ObjectNode) profile.get("params")).put("maxTrialNumber", 2);
        HttpResponse<String> put = send("PUT", "api/v1/nni/experiment?update_type=MAX_TRIAL_NUM", profile.toString());
        assertEquals(put.body(), 200, put.statusCode());
        assertEquals(below.replace("max trials 1", "max trials 2"), JSON.readTree(put.body()).get("message").asText());

        // NNI's _latest link and a folder that is no experiment are not listed
        Files.createSymbolicLink(experiments.resolve("_latest"), experiments.resolve(b));
        Files.createDirectories(experiments.resolve("notes").resolve("db"));
        Files.writeString(experiments.resolve("notes").resolve("db").resolve("nni.sqlite"), "");
        Files.createDirectories(experiments.resolve("_old").resolve("db"));
        Files.copy(experiments.resolve(a).resolve("db").resolve("nni.sqlite"), experiments.resolve("_old").resolve("db").resolve("nni.sqlite"));

        // both ended: the newest answers
        Files.writeString(code.resolve("release"), "");
        await().atMost(WAIT).until(() -> JSON.readTree(get("api/v1/nni/check-status").body()).path("status").asText().equals("DONE"));
        assertEquals(b, api("api/v1/nni/experiment").get("id").asText());

        // the runtime restarts: both are no longer open, and are listed as they ended
        Path registry = experiments.resolve(".experiment");
        await().atMost(WAIT).until(() -> JSON.readTree(registry.toFile()).path(b).path("status").asText().equals("DONE"));
        Bundle manager = managerBundle();
        manager.stop();
        manager.start();
        await().atMost(WAIT).ignoreExceptions().until(() -> get("api/v1/nni-ui/experiments").statusCode() == 200
                && !listed(a).isEmpty());
        assertTrue(listed(a), listed(a).matches(a + " +first +DONE +local +" + counted + " +0 +.*"));
        assertTrue(listed(b), listed(b).matches(b + " +second +DONE +local +succeeded 3  failed 1  of max 2 +3 +.*"));
        assertEquals("DONE", uiRow(a).get("status").asText());
        assertEquals("DONE", uiRow(b).get("status").asText());
        assertEquals(List.of(b, a), uiIds());
        String table = command("nni:experiments").toString();
        assertFalse(table, table.contains("_latest") || table.contains("notes") || table.contains("_old"));
        assertEquals("DONE", JSON.readTree(registry.toFile()).get(a).get("status").asText());
    }

    /** @return the line of {@code nni:experiments} that lists the experiment, or "" */
    private String listed(String id) throws Exception {
        return command("nni:experiments").toString().lines().filter(line -> line.startsWith(id + " ")).findFirst().orElse("");
    }

    private JsonNode uiRow(String id) throws Exception {
        for (JsonNode row : api("api/v1/nni-ui/experiments")) {
            if (row.get("id").asText().equals(id)) {
                return row;
            }
        }
        throw new AssertionError("the web UI does not list " + id);
    }

    private List<String> uiIds() throws Exception {
        List<String> ids = new ArrayList<>();
        api("api/v1/nni-ui/experiments").forEach(row -> ids.add(row.get("id").asText()));
        return ids;
    }

    private Bundle managerBundle() {
        for (Bundle bundle : context.getBundles()) {
            if ("nni.manager".equals(bundle.getSymbolicName())) {
                return bundle;
            }
        }
        throw new AssertionError("no bundle nni.manager");
    }

    private JsonNode api(String path) throws Exception {
        HttpResponse<String> response = get(path);
        assertEquals(path + ": " + response.body(), 200, response.statusCode());
        return JSON.readTree(response.body());
    }

    private HttpResponse<String> send(String method, String path, String body) throws Exception {
        URI uri = endpoint().resolve(path);
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(uri).method(method, HttpRequest.BodyPublishers.ofString(body))
                .header("Content-Type", "application/json").timeout(Duration.ofSeconds(60)).build(), HttpResponse.BodyHandlers.ofString());
    }
}
