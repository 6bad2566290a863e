package nni.itest;

import static org.awaitility.Awaitility.await;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.ops4j.pax.exam.CoreOptions.bundle;
import static org.ops4j.pax.exam.CoreOptions.frameworkProperty;

import java.nio.file.Files;
import java.nio.file.Path;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The experiment console in the real runtime: {@code nni:create} of an NNI config with a built-in
 * tuner, then every other {@code nni:} experiment command on it, with real trial processes.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class ExperimentCommandsIT extends RuntimeTestSupport {

    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final ObjectMapper JSON = new ObjectMapper();

    @Configuration
    public Option[] config() throws Exception {
        Path root = scratch("commands-it");
        return new Option[] {baseOptions(), bundle(reactorBundle("nni.tuners")),
                frameworkProperty("nni.experiments.dir").value(root.resolve("experiments").toString()),
                frameworkProperty("nni.it.root").value(root.toString())};
    }


    @Test(timeout = 180_000)
    @SuppressWarnings("unchecked")
    public void createInspectUpdateCancelStopView() throws Exception {
        Path root = Path.of(context.getProperty("nni.it.root"));
        Path code = Files.createDirectories(root.resolve("code"));
        Files.writeString(code.resolve("trial.sh"), """
                m='{"parameter_id": 0, "trial_job_id": "'$NNI_TRIAL_JOB_ID'", "type": "FINAL", "sequence": 0, "value": "'$NNI_TRIAL_SEQ_ID'"}'
                echo "trial $NNI_TRIAL_JOB_ID says hello"
                echo "NNISDK_MEb'$m'"
                if [ "$NNI_TRIAL_SEQ_ID" -ge 2 ]; then sleep 120; fi
                """);
        Path config = code.resolve("config.yml");
        Files.writeString(config, """
                searchSpace:
                  x: {_type: choice, _value: [1, 2, 3, 4, 5]}
                trialCommand: bash trial.sh
                trialCodeDirectory: .
                trialConcurrency: 1
                maxTrialNumber: 3
                tuner:
                  name: GridSearch
                trainingService:
                  platform: local
                """);

        String created = (String) command("nni:create " + config);
        assertTrue(created, created.matches("experiment \\w{8} RUNNING in .*"));
        String id = created.split(" ")[1];

        await().atMost(WAIT).until(() -> trialIds("--status RUNNING").size() == 1
                && trialIds("--status SUCCEEDED").size() == 2);
        String first = trialIds("--status SUCCEEDED").get(0);
        Map<String, Object> trial = (Map<String, Object>) command("nni:trial " + first);
        assertEquals("SUCCEEDED", trial.get("status").toString());
        assertEquals(id, trial.get("experiment"));
        assertTrue(command("nni:output " + first).toString().contains("trial " + first + " says hello"));
        assertEquals("", command("nni:output " + first + " stderr"));

        // issue 17: a header, a parameters column, the best first with --head, the worst with --tail
        List<String> table = command("nni:trials").toString().lines().toList();
        assertTrue(table.toString(), table.get(0).matches("experiment " + id + " \\(\\w+\\), 3 of 3 trials"));
        assertTrue(table.get(1), table.get(1).matches("TRIAL +SEQ +STATUS +PLATFORM +RESULT +DURATION +PARAMETERS +MESSAGE"));
        assertTrue(table.get(2), table.get(2).matches(first + " +0 +SUCCEEDED +local +0 +\\d\\d:\\d\\d +x=1 +-"));
        // the running trial reports its final result (2) before it sleeps: the best, once it is stored
        // (RUNNING comes first: a loaded machine showed the table before the result arrived)
        List<String> bySequence = trialIds("");
        await().atMost(WAIT).until(() -> trialIds("--head 1").equals(List.of(bySequence.get(2))));
        assertEquals(List.of(first), trialIds("--tail 1"));
        assertEquals(List.of(bySequence.get(2), bySequence.get(1), first), trialIds("--sort result"));
        String both = failure("nni:trials --head 1 --tail 1");
        assertTrue(both, both.startsWith("--head and --tail"));

        String top = command("nni:top --once").toString();
        assertTrue(top, top.contains(id) && top.contains("succeeded 2  failed 0  running 1  of max 3"));
        String experimentsTable = command("nni:experiments").toString();
        assertTrue(experimentsTable, experimentsTable.lines().findFirst().orElseThrow()
                .matches("ID +NAME +STATUS +PLATFORM +TRIALS +BEST +START +END"));
        assertTrue(experimentsTable, experimentsTable.lines().anyMatch(line -> line.matches(id + " +- +[A-Z_]+ +local +succeeded 2  failed 0  running 1  of max 3 +2 +\\d{4}-.*")));

        // raise the limit: one more trial; then cancel the two sleepers
        command("nni:change " + id + " maxtrialnumber 4");
        command("nni:change concurrency 2");
        await().atMost(WAIT).until(() -> trialIds("--status RUNNING").size() == 2);
        for (String running : trialIds("--status RUNNING")) {
            command("nni:cancel " + running);
        }
        // the experiment ends once both are cancelled: from here on it is named
        await().atMost(WAIT).until(() -> trialIds("--experiment " + id + " --status USER_CANCELED").size() == 2);
        await().atMost(WAIT).until(() -> command("nni:top --once").toString().contains("DONE"));
        // an ended trial is not cancelled again, and the user is told
        String again = command("nni:cancel " + first).toString();
        assertTrue(again, again.startsWith("trial " + first + " had already ended (SUCCEEDED at "));

        String badStatus = failure("nni:trials --experiment " + id + " --status SLEEPING");
        assertTrue(badStatus, badStatus.startsWith("--status"));
        // a finished experiment is no longer the one commands default to
        String noDefault = failure("nni:trials");
        assertTrue(noDefault, noDefault.contains("no experiment is running; ended: [" + id + " (DONE)]"));

        assertEquals("experiment " + id + " stopped", command("nni:halt " + id));
        String viewed = command("nni:view " + id).toString();
        assertEquals("experiment " + id + " VIEWED, 4 trials", viewed);
        assertEquals(4, trialIds("--experiment " + id).size());
        String readOnly = failure("nni:cancel " + trialIds("--experiment " + id + " --status USER_CANCELED").get(0));
        assertTrue(readOnly, readOnly.contains("had already ended"));
        command("nni:halt " + id);
        experimentsTable = command("nni:experiments").toString();
        assertTrue(experimentsTable, experimentsTable.lines().anyMatch(line -> line.matches(id + " +- +[A-Z_]+ +local +succeeded 2  failed 0  cancelled 2  of max 4 +1 +.*")));
    }

    /**
     * Issue 17: a trial that exits non-zero says why (its exit code and the end of its stderr) in
     * nni:trial, the REST API and its files route; the REST extras NNI's web UI and clients call.
     */
    @Test(timeout = 120_000)
    @SuppressWarnings("unchecked")
    public void failedTrialsSayWhyAndNnisRoutesAnswer() throws Exception {
        Path code = Files.createDirectories(Path.of(context.getProperty("nni.it.root")).resolve("failing"));
        Files.writeString(code.resolve("trial.sh"), """
                echo "loading data" >&2
                echo "Traceback (most recent call last):" >&2
                echo "ValueError: learning rate $NNI_TRIAL_SEQ_ID is out of range" >&2
                exit 3
                """);
        Path config = Files.writeString(code.resolve("config.yml"), """
                experimentName: failing
                searchSpace:
                  lr: {_type: choice, _value: [0.1]}
                trialCommand: bash trial.sh
                trialCodeDirectory: .
                trialConcurrency: 1
                maxTrialNumber: 1
                tuner:
                  name: Random
                trainingService:
                  platform: local
                """);
        String id = ((String) command("nni:create " + config)).split(" ")[1];
        await().atMost(WAIT).until(() -> JSON.readTree(get("api/v1/nni/check-status?experiment_id=" + id).body())
                .get("status").asText().equals("DONE"));
        String trialId = trialIds("--experiment " + id).get(0);
        String why = "exit code 3: loading data | Traceback (most recent call last): | ValueError: learning rate 0 is out of range";
        Map<String, Object> trial = (Map<String, Object>) command("nni:trial " + trialId);
        assertEquals(why, trial.get("message"));
        JsonNode rest = JSON.readTree(get("api/v1/nni/trial-jobs/" + trialId).body());
        assertEquals(why, rest.get("message").asText());
        assertTrue(command("nni:trials --experiment " + id).toString().contains(why));

        HttpResponse<String> stderr = get("api/v1/nni/trial-file/" + trialId + "/stderr");
        assertEquals(200, stderr.statusCode());
        assertTrue(stderr.body(), stderr.body().endsWith("ValueError: learning rate 0 is out of range\n"));
        assertEquals(404, get("api/v1/nni/trial-file/" + trialId + "/model.onnx").statusCode());
        assertEquals(404, get("api/v1/nni/trial-file/nosuch/stderr?experiment_id=" + id).statusCode());
        HttpResponse<String> unknown = get("api/v1/nni/check-status?experiment_id=nosuchid");
        assertEquals(unknown.body(), 404, unknown.statusCode());
        assertEquals("DONE", JSON.readTree(get("api/v1/nni/check-status?experiment_id=" + id).body()).get("status").asText());
        HttpResponse<String> version = get("api/v1/nni/version");
        assertEquals(200, version.statusCode());
        assertTrue(version.body(), JSON.readTree(version.body()).asText().matches("\\d+\\.\\d+\\.\\d+.*"));
        // the REST routes live in nni.web; the version they answer is still the manager's, as nni:version names it
        assertEquals(((Map<?, ?>) command("nni:version")).get("manager"), JSON.readTree(version.body()).asText());
        JsonNode metadata = JSON.readTree(get("api/v1/nni/experiment-metadata?experiment_id=" + id).body());
        assertEquals("failing", metadata.get("experimentName").asText());
        assertEquals(200, get("api/v1/nni/experiment/imported-data?experiment_id=" + id).statusCode());

        String algorithms = command("nni:algorithms").toString();
        assertTrue(algorithms, algorithms.lines().anyMatch(line -> line.matches("tuner +TPE +nni.tuners +\\S+")));
        assertTrue(algorithms, algorithms.lines().anyMatch(line -> line.matches("assessor +Medianstop +nni.tuners +\\S+")));
        assertTrue(algorithms, algorithms.contains("advisors"));
        String platforms = command("nni:platforms").toString();
        assertTrue(platforms, platforms.startsWith("PLATFORM") && platforms.contains("RUNS TRIALS"));
        assertTrue(platforms, platforms.lines().anyMatch(line -> line.matches("local +nni.ts.local .* active +\\d+ +yes")));
        command("nni:halt " + id);
    }

    /** @return the trial ids {@code nni:trials ARGS} lists, in its order */
    private List<String> trialIds(String arguments) throws Exception {
        return command("nni:trials " + arguments).toString().lines().skip(2).map(line -> line.split("\\s+")[0]).toList();
    }

    /** @return the message of what the command line threw, or what it answered */
    private String failure(String line) {
        try {
            return String.valueOf(command(line));
        } catch (Exception e) {
            return String.valueOf(e.getMessage());
        }
    }

    /**
     * Issue 15: a hybrid list runs one session per member, both taking trials (two local members:
     * the placement spreads trials over members with room); validate says OK; each trial shows its
     * member's platform in nni:trial and REST.
     */
    @Test(timeout = 60_000)
    public void createRunsHybridExperimentsOnEveryMember() throws Exception {
        Path code = Files.createDirectories(Path.of(context.getProperty("nni.it.root")).resolve("hybrid"));
        Path config = code.resolve("config.yml");
        Files.writeString(config, """
                searchSpace:
                  x: {_type: choice, _value: [1, 2, 3, 4]}
                trialCommand: "true"
                trialCodeDirectory: .
                trialConcurrency: 2
                tuner:
                  name: GridSearch
                trainingService:
                  - platform: local
                  - platform: local
                """);
        String validated = String.valueOf(command("nni:validate " + config));
        assertTrue(validated, validated.contains("OK: " + config));
        String created = (String) command("nni:create " + config);
        String id = created.split(" ")[1];
        try {
            hybridRunsToDone(created, id);
        } finally {
            command("nni:halt " + id); // closed: the other tests' "only running experiment" stays theirs
        }
    }

    private void hybridRunsToDone(String created, String id) throws Exception {
        assertTrue(created, created.matches("experiment \\w{8} \\w+ in [^\\n]*"));
        await().atMost(WAIT).until(() -> JSON.readTree(get("api/v1/nni/check-status?experiment_id=" + id).body())
                .get("status").asText().equals("DONE"));
        JsonNode jobs = JSON.readTree(get("api/v1/nni/trial-jobs?experiment_id=" + id).body());
        assertEquals(4, jobs.size());
        for (JsonNode job : jobs) {
            assertEquals(job.toString(), "SUCCEEDED", job.get("status").asText());
            assertEquals(job.toString(), "local", job.get("platform").asText());
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> trial = (Map<String, Object>) command("nni:trial " + jobs.get(0).get("trialJobId").asText());
        assertEquals("local", trial.get("platform"));
    }
}
