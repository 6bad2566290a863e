package nni.itest;

import static org.awaitility.Awaitility.await;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.ops4j.pax.exam.CoreOptions.bundle;
import static org.ops4j.pax.exam.CoreOptions.frameworkProperty;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

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
 * Issue 25: NNI's advisors Hyperband and BOHB run in Java (bundle nni.tuners), no Python needed
 * for the algorithm and no nni.dispatcher installed: NNI's own example configs validate unchanged
 * and run to DONE, and whole brackets run with their budgets and promotions. The trials are a
 * stand-in for the examples' mnist.py (standard-library python3): they read {@code TRIAL_BUDGET}
 * from their parameters as NNI's examples do and report a result that ranks them.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class AdvisorsIT extends RuntimeTestSupport {

    private static final Duration WAIT = Duration.ofSeconds(150);
    private static final ObjectMapper JSON = new ObjectMapper();

    /** Reads its parameters as NNI's SDK does, reports one intermediate result per budget unit (at most 3) and a final one. */
    private static final String TRIAL = """
            import json, os
            packed = json.load(open(os.path.join(os.environ['NNI_SYS_DIR'], 'parameter.cfg')))
            params = packed['parameters']
            budget = params['TRIAL_BUDGET']
            value = params['x'] if 'x' in params else params.get('dropout_rate', 0.5)
            def report(kind, sequence, result):
                metric = {'parameter_id': packed['parameter_id'], 'trial_job_id': os.environ['NNI_TRIAL_JOB_ID'],
                          'type': kind, 'sequence': sequence, 'value': json.dumps(result)}
                print("NNISDK_MEb'" + json.dumps(metric) + "'", flush=True)
            for step in range(min(budget, 3)):
                report('PERIODICAL', step, value * (step + 1) / min(budget, 3) / 2)
            report('FINAL', 0, value)
            """;

    @Configuration
    public Option[] config() throws Exception {
        Path root = scratch("advisors-it");
        return new Option[] {baseOptions(), bundle(reactorBundle("nni.tuners")),
                frameworkProperty("nni.experiments.dir").value(root.resolve("experiments").toString()),
                frameworkProperty("nni.it.root").value(root.toString())};
    }

    /** A trial as the REST API shows it: its parameters, its final result, when it ran. */
    record Trial(int sequence, long parameterId, Map<String, Object> parameters, double result, long start, long end) {
        int budget() {
            return ((Number) parameters.get("TRIAL_BUDGET")).intValue();
        }

        double x() {
            return ((Number) parameters.get("x")).doubleValue();
        }
    }

    /** Creates the experiment, waits for DONE; @return its trials, all SUCCEEDED, in sequence order */
    @SuppressWarnings("unchecked")
    private List<Trial> runToDone(Path config, int trials) throws Exception {
        String created = (String) command("nni:create " + config);
        String id = created.split(" ")[1];
        try {
            await().atMost(WAIT).until(() -> JSON.readTree(get("api/v1/nni/check-status?experiment_id=" + id).body())
                    .get("status").asText().equals("DONE"));
            JsonNode jobs = JSON.readTree(get("api/v1/nni/trial-jobs?experiment_id=" + id).body());
            assertEquals(jobs.toString(), trials, jobs.size());
            List<Trial> all = new ArrayList<>();
            for (JsonNode job : jobs) {
                assertEquals(job.toString(), "SUCCEEDED", job.get("status").asText());
                JsonNode packed = JSON.readTree(job.get("hyperParameters").get(0).asText());
                assertTrue(packed.toString(), packed.get("parameter_id").isIntegralNumber());
                all.add(new Trial(job.get("sequenceId").asInt(), packed.get("parameter_id").asLong(),
                        JSON.convertValue(packed.get("parameters"), Map.class),
                        Double.parseDouble(JSON.readTree(job.get("finalMetricData").get(0).get("data").asText()).asText()),
                        job.get("startTime").asLong(), job.get("endTime").asLong()));
            }
            all.sort(Comparator.comparingInt(Trial::sequence));
            assertEquals(all.toString(), trials, all.stream().map(Trial::parameterId).distinct().count());
            return all;
        } finally {
            command("nni:halt " + id);
        }
    }

    /** @return the x of the {@code count} best trials of the list, best first */
    private static List<Double> best(List<Trial> trials, int count) {
        return trials.stream().map(Trial::x).sorted(Comparator.reverseOrder()).limit(count).toList();
    }

    private static List<Integer> budgets(List<Trial> trials) {
        return trials.stream().map(Trial::budget).toList();
    }

    @Test(timeout = 600_000)
    public void nnisExampleConfigsValidateUnchangedAndRunToDone() throws Exception {
        Path examples = Path.of(System.getProperty("nni.bundles.dir"))
                .resolve("nni.itest.launcher/src/test/resources/dispatcher/nni-examples/trials");
        Path root = Path.of(context.getProperty("nni.it.root"));
        // example, its trial file, the first bracket's budget: Hyperband R 100 (s=4: 100/81), R 60 serial (s=3: 60/27), BOHB 1..27
        List<List<String>> cases = List.of(List.of("mnist-advisor/config_hyperband.yml", "mnist.py", "1"),
                List.of("benchmarking/hyperband/config_hyperband.yml", "main.py", "2"),
                List.of("mnist-advisor/config_bohb.yml", "mnist.py", "1"));
        for (List<String> example : cases) {
            Path original = examples.resolve(example.get(0));
            String validated = String.valueOf(command("nni:validate " + original));
            assertTrue(validated, validated.contains("OK: " + original));
            assertTrue(validated, validated.contains("runs through nni-osgi's Java implementation (no Python needed)"));
            // the same file with the trial stand-in beside it and fewer trials than the example's thousands
            Path code = Files.createDirectories(root.resolve(example.get(0).replace('/', '_')));
            try (Stream<Path> files = Files.list(original.getParent())) {
                for (Path file : files.toList()) {
                    Files.copy(file, code.resolve(file.getFileName()));
                }
            }
            Files.writeString(code.resolve(example.get(1)), TRIAL);
            Path config = code.resolve(original.getFileName());
            String text = Files.readString(config).replaceAll("(?m)^maxTrialNumber: \\d+$", "");
            Files.writeString(config, text + "\nmaxTrialNumber: 4\n");
            List<Trial> trials = runToDone(config, 4);
            int budget = Integer.parseInt(example.get(2));
            assertEquals(example.get(0), List.of(budget, budget, budget, budget), budgets(trials));
        }
    }

    @Test(timeout = 300_000)
    public void serialHyperbandRunsAWholeBracketPromotingTheBestThird() throws Exception {
        Path code = Files.createDirectories(Path.of(context.getProperty("nni.it.root")).resolve("hyperband"));
        Files.writeString(code.resolve("trial.py"), TRIAL);
        Path config = Files.writeString(code.resolve("config.yml"), """
                searchSpace:
                  x: {_type: uniform, _value: [0, 1]}
                trialCommand: python3 trial.py
                trialCodeDirectory: .
                trialConcurrency: 3
                maxTrialNumber: 14
                advisor:
                  name: Hyperband
                  classArgs: {R: 9, eta: 3, optimize_mode: maximize, exec_mode: serial}
                trainingService:
                  platform: local
                """);
        List<Trial> trials = runToDone(config, 14);
        // bracket s=2: 9 at budget 1, the best 3 at budget 3, the best at 9; then bracket s=1 begins (5 at budget 3)
        assertEquals(List.of(1, 1, 1, 1, 1, 1, 1, 1, 1, 3, 3, 3, 9, 3), budgets(trials));
        List<Trial> second = trials.subList(9, 12);
        assertEquals(best(trials.subList(0, 9), 3), best(second, 3));
        assertEquals(best(second, 1), List.of(trials.get(12).x()));
    }

    @Test(timeout = 300_000)
    public void bohbRunsItsBracketsOneAfterTheOtherWithItsModel() throws Exception {
        Path code = Files.createDirectories(Path.of(context.getProperty("nni.it.root")).resolve("bohb"));
        Files.writeString(code.resolve("trial.py"), TRIAL);
        Path config = Files.writeString(code.resolve("config.yml"), """
                searchSpace:
                  x: {_type: uniform, _value: [0, 1]}
                trialCommand: python3 trial.py
                trialCodeDirectory: .
                trialConcurrency: 4
                maxTrialNumber: 19
                advisor:
                  name: BOHB
                  classArgs: {min_budget: 1, max_budget: 9, eta: 3, optimize_mode: maximize, min_points_in_model: 2}
                trainingService:
                  platform: local
                """);
        List<Trial> trials = runToDone(config, 19);
        // s=2: 9 at 1, 3 at 3, 1 at 9; s=1: 5 at 3, 1 at 9
        assertEquals(List.of(1, 1, 1, 1, 1, 1, 1, 1, 1, 3, 3, 3, 9, 3, 3, 3, 3, 3, 9), budgets(trials));
        assertEquals(best(trials.subList(0, 9), 3), best(trials.subList(9, 12), 3));
        // BOHB starts a bracket only once the previous one's last round ended
        Trial last = trials.get(12);
        assertTrue(trials.toString(), trials.subList(13, 18).stream().allMatch(t -> t.start() >= last.end()));
    }
}
