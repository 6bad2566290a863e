package nni.itest;

import static org.awaitility.Awaitility.await;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;
import static org.ops4j.pax.exam.CoreOptions.bundle;
import static org.ops4j.pax.exam.CoreOptions.frameworkProperty;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;
import org.osgi.framework.ServiceRegistration;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import nni.api.platform.TrainingPlatform;

/** nni:export, nni:import and nni:delete, with real experiments: what nnictl experiment export|import|delete do. */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class ExperimentDataCommandsIT extends RuntimeTestSupport {

    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final ObjectMapper JSON = new ObjectMapper();

    @Configuration
    public Option[] config() throws Exception {
        Path root = scratch("data-commands-it");
        return new Option[] {baseOptions(), bundle(reactorBundle("nni.tuners")),
                frameworkProperty("nni.experiments.dir").value(root.resolve("experiments").toString()),
                frameworkProperty("nni.it.root").value(root.toString())};
    }

    private static Path config(Path code, String name, String tuner, int maxTrials) throws Exception {
        return Files.writeString(code.resolve(name + ".yml"), """
                searchSpace:
                  x: {_type: choice, _value: [1, 2, 3, 4, 5, 6, 7, 8]}
                trialCommand: bash trial.sh
                trialConcurrency: 1
                maxTrialNumber: %d
                tuner: {name: %s}
                trainingService: {platform: local}
                """.formatted(maxTrials, tuner));
    }

    private String status(String id) throws Exception {
        return JSON.readTree(get("api/v1/nni/check-status?experiment_id=" + id).body()).get("status").asText();
    }

    @Test(timeout = 180_000)
    public void exportImportDelete() throws Exception {
        Path root = Path.of(context.getProperty("nni.it.root"));
        Path experiments = root.resolve("experiments");
        Path code = Files.createDirectories(root.resolve("code"));
        // the parameter x is the trial's result; trials wait while the file "hold" exists
        Files.writeString(code.resolve("trial.sh"), """
                x=$(sed 's/.*"x": *\\([0-9]*\\).*/\\1/' "$NNI_SYS_DIR/parameter.cfg")
                m='{"parameter_id": 0, "trial_job_id": "'$NNI_TRIAL_JOB_ID'", "type": "PERIODICAL", "sequence": 0, "value": "0.5"}'
                echo "NNISDK_MEb'$m'"
                while [ -e hold ]; do sleep 0.1; done
                m='{"parameter_id": 0, "trial_job_id": "'$NNI_TRIAL_JOB_ID'", "type": "FINAL", "sequence": 0, "value": "'$x'"}'
                echo "NNISDK_MEb'$m'"
                """);
        String a = ((String) command("nni:create " + config(code, "a", "GridSearch", 3))).split(" ")[1];
        await().atMost(WAIT).until(() -> status(a).equals("DONE"));

        Path json = root.resolve("a.json");
        assertEquals("experiment " + a + ": 3 trials exported to " + json, command("nni:export " + a + " " + json));
        JsonNode rows = JSON.readTree(json.toFile());
        assertEquals(3, rows.size());
        Set<String> values = new TreeSet<>();
        for (JsonNode row : rows) {
            assertTrue(row.toString(), row.get("value").isTextual()); // as NNI's export: the result's JSON text
            values.add(row.get("value").asText());
            assertEquals(row.get("value").asText(), row.get("parameter").get("x").asText());
        }
        assertEquals(Set.of("1", "2", "3"), values);
        Path csv = root.resolve("a.csv");
        command("nni:export --type csv --intermediate " + a + " " + csv);
        List<String> lines = Files.readAllLines(csv);
        assertEquals("intermediate,x,reward,trialJobId", lines.get(0));
        assertEquals(4, lines.size());
        assertTrue(lines.get(1), lines.get(1).startsWith("[0.5],1,1,"));

        // a second experiment's GridSearch skips the points imported results cover
        Files.writeString(code.resolve("hold"), "");
        String b = ((String) command("nni:create " + config(code, "b", "GridSearch", 8))).split(" ")[1];
        Path imported = Files.writeString(root.resolve("import.json"), """
                [{"parameter": {"x": 2}, "value": 0.2},
                 {"parameter": {"x": 3}, "value": "0.3"},
                 {"parameter": {"x": 4}, "value": {"default": 0.4, "other": 1}},
                 {"parameter": {"x": 5}, "value": "{\\"default\\": 0.5}"}]
                """);
        assertEquals("experiment " + b + ": 4 results given to the tuner", command("nni:import " + b + " " + imported));
        Files.delete(code.resolve("hold"));
        await().atMost(WAIT).until(() -> status(b).equals("DONE"));
        Set<Integer> xs = new TreeSet<>();
        for (JsonNode trial : JSON.readTree(get("api/v1/nni/trial-jobs?experiment_id=" + b).body())) {
            xs.add(JSON.readTree(trial.get("hyperParameters").get(0).asText()).get("parameters").get("x").asInt());
        }
        assertEquals(Set.of(1, 6, 7, 8), xs);
        JsonNode importedData = JSON.readTree(get("api/v1/nni/experiment/imported-data?experiment_id=" + b).body());
        assertEquals(1, importedData.size());
        assertEquals(4, JSON.readTree(importedData.get(0).asText()).size());

        // a tuner that does not learn from history says so, as nnictl does for Random
        String c = ((String) command("nni:create " + config(code, "c", "Random", 1))).split(" ")[1];
        Exception refused = assertThrows(Exception.class, () -> command("nni:import " + c + " " + imported));
        assertTrue(refused.getMessage(), refused.getMessage().contains("the tuner Random does not learn from imported results"));
        Exception bad = assertThrows(Exception.class, () -> command("nni:import " + b + " " + json.getParent().resolve("a.csv")));
        assertTrue(bad.getMessage(), bad.getMessage().startsWith("expected a JSON list of {\"parameter\""));

        // delete: only what is not open, then the folder and the registry entry are gone
        Exception open = assertThrows(Exception.class, () -> command("nni:delete " + a));
        assertTrue(open.getMessage(), open.getMessage().contains("is open (DONE); stop it first"));
        command("nni:halt " + a);
        // a stopped experiment exports from its stored database, as nnictl does
        Path stored = root.resolve("a-stored.json");
        assertEquals("experiment " + a + ": 3 trials exported to " + stored, command("nni:export --intermediate " + a + " " + stored));
        assertEquals("[\"0.5\"]", JSON.readTree(stored.toFile()).get(0).get("intermediate").toString());
        Exception unknown = assertThrows(Exception.class, () -> command("nni:export nosuch00 " + root.resolve("none.json")));
        assertTrue(unknown.getMessage(), unknown.getMessage().startsWith("no experiment nosuch00 in "));
        assertTrue(JSON.readTree(experiments.resolve(".experiment").toFile()).has(a));
        assertEquals("experiment " + a + " deleted (" + experiments.resolve(a) + ")", command("nni:delete " + a));
        assertFalse(Files.exists(experiments.resolve(a)));
        assertFalse(JSON.readTree(experiments.resolve(".experiment").toFile()).has(a));
        assertTrue(Files.exists(experiments.resolve(b)));

        // issue 17: a create that fails after its folder exists is listed, and nni:delete removes it
        // (a platform whose session cannot open, as a cluster that refuses the credentials)
        ServiceRegistration<TrainingPlatform> refusing = TestPlatforms.refusing(context);
        String d;
        try {
            Path refusingConfig = Files.writeString(code.resolve("refusing.yml"), Files.readString(config(code, "d", "Random", 1))
                    .replace("{platform: local}", "{platform: refusing}"));
            Exception failed = assertThrows(Exception.class, () -> command("nni:create " + refusingConfig));
            assertTrue(failed.getMessage(), failed.getMessage().matches(
                    "experiment \\w{8} could not start: .*the cluster refused the credentials.*nni:delete \\w{8} removes it\\)"));
            d = failed.getMessage().split(" ")[1];
        } finally {
            refusing.unregister();
        }
        assertTrue(command("nni:experiments").toString().contains(d));
        assertEquals("experiment " + d + " deleted (" + experiments.resolve(d) + ")", command("nni:delete " + d));
        assertFalse(Files.exists(experiments.resolve(d)));
        assertFalse(command("nni:experiments").toString().contains(d));

        // each command has its help
        for (String name : List.of("export", "importdata", "delete")) {
            String help = command("help nni:" + name).toString();
            assertTrue(name + ": " + help, help.contains("nnictl experiment " + name.replace("data", "")));
        }
    }
}
