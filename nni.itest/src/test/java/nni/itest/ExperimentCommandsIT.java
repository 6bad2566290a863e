package nni.itest;

import static org.awaitility.Awaitility.await;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.ops4j.pax.exam.CoreOptions.bundle;
import static org.ops4j.pax.exam.CoreOptions.frameworkProperty;

import java.nio.file.Files;
import java.nio.file.Path;
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

/**
 * The experiment console in the real runtime: {@code nni:create} of an NNI config with a built-in
 * tuner, then every other {@code nni:} experiment command on it, with real trial processes.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class ExperimentCommandsIT extends RuntimeTestSupport {

    private static final Duration WAIT = Duration.ofSeconds(60);

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

        await().atMost(WAIT).until(() -> ((List<String>) command("nni:trials --status RUNNING")).size() == 1
                && ((List<String>) command("nni:trials --status SUCCEEDED")).size() == 2);
        List<String> succeeded = (List<String>) command("nni:trials --status SUCCEEDED");
        String first = succeeded.get(0).split("\\s+")[0];
        Map<String, Object> trial = (Map<String, Object>) command("nni:trial " + first);
        assertEquals("SUCCEEDED", trial.get("status").toString());
        assertEquals(id, trial.get("experiment"));
        assertTrue(command("nni:output " + first).toString().contains("trial " + first + " says hello"));
        assertEquals("", command("nni:output " + first + " stderr"));

        String top = command("nni:top --once").toString();
        assertTrue(top, top.contains(id) && top.contains("done 2/3") && top.contains("running 1"));
        assertTrue(command("nni:experiments").toString(), command("nni:experiments").toString().contains(id));

        // raise the limit: one more trial; then cancel the two sleepers
        command("nni:change " + id + " maxtrialnumber 4");
        command("nni:change concurrency 2");
        await().atMost(WAIT).until(() -> ((List<String>) command("nni:trials --status RUNNING")).size() == 2);
        for (String line : (List<String>) command("nni:trials --status RUNNING")) {
            command("nni:cancel " + line.split("\\s+")[0]);
        }
        await().atMost(WAIT).until(() -> ((List<String>) command("nni:trials --status USER_CANCELED")).size() == 2);
        await().atMost(WAIT).until(() -> command("nni:top --once").toString().contains("DONE"));

        try {
            command("nni:trials --status SLEEPING");
            throw new AssertionError("a bad status was accepted");
        } catch (IllegalArgumentException e) {
            assertTrue(e.getMessage(), e.getMessage().startsWith("--status"));
        }

        assertEquals("experiment " + id + " stopped", command("nni:halt " + id));
        String viewed = command("nni:view " + id).toString();
        assertEquals("experiment " + id + " VIEWED, 4 trials", viewed);
        assertEquals(4, ((List<String>) command("nni:trials")).size());
        try {
            command("nni:cancel " + first);
            throw new AssertionError("a read-only experiment accepted a cancel");
        } catch (IllegalStateException e) {
            assertTrue(e.getMessage(), e.getMessage().contains("read-only"));
        }
    }

    /** Issue 10: a hybrid list used to run every trial on its first platform; create refuses it, naming the place. */
    @Test(timeout = 60_000)
    public void createRefusesHybridExperiments() throws Exception {
        Path code = Files.createDirectories(Path.of(context.getProperty("nni.it.root")).resolve("hybrid"));
        Path config = code.resolve("config.yml");
        Files.writeString(config, """
                searchSpace:
                  x: {_type: choice, _value: [1, 2]}
                trialCommand: "true"
                trialCodeDirectory: .
                trialConcurrency: 1
                tuner:
                  name: GridSearch
                trainingService:
                  - platform: local
                  - platform: local
                """);
        try {
            Object created = command("nni:create " + config);
            throw new AssertionError("a hybrid experiment was created: " + created);
        } catch (Exception e) {
            assertEquals(config + ":8:1: trainingService: hybrid experiments (trainingService with 2 members: local, local)"
                    + " are not supported yet", e.getMessage());
        }
        assertTrue(String.valueOf(command("nni:validate " + config)).contains("hybrid experiments (trainingService with 2 members"));
    }
}
