package nni.tuners.internal;

import static nni.tuners.internal.Spaces.json;
import static nni.tuners.internal.Spaces.list;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.util.List;
import java.util.Map;

import org.junit.Test;

import com.fasterxml.jackson.databind.JsonNode;

import nni.api.config.ConfigProblem;
import nni.api.model.TrialStatus;
import nni.api.tuner.AlgorithmSection;
import nni.api.tuner.Dispatcher;

/** Hyperband and BOHB as the manager drives them: requests, results and ends in, trials out. */
public class HyperbandRunTest {

    private static final Map<String, Object> SPACE = json("x", "uniform", list(0, 1), "k", "choice", list("a", "b", "c"));

    private RecordingContext context;

    private Dispatcher start(String name, Map<String, Object> classArgs, String... resumed) throws Exception {
        AlgorithmSection section = AlgorithmSection.builder().name(name).classArgs(classArgs).build();
        context = new RecordingContext(SPACE, section, List.of(resumed));
        return new AdvisorProvider().start(context);
    }

    private static List<Integer> budgets(List<JsonNode> trials) {
        return trials.stream().map(t -> t.get("parameters").get("TRIAL_BUDGET").asInt()).toList();
    }

    private static List<Long> ids(List<JsonNode> trials) {
        return trials.stream().map(t -> t.get("parameter_id").asLong()).toList();
    }

    /**
     * Reports x as each trial's final result, with the id as a string as NNI's SDK may send it, and
     * ends it; the manager then asks for a trial for the freed slot.
     */
    private static void finish(Dispatcher run, List<JsonNode> trials) {
        for (JsonNode trial : trials) {
            String id = trial.get("parameter_id").asText();
            double x = trial.get("parameters").get("x").asDouble();
            run.reportMetric("{\"parameter_id\": \"" + id + "\", \"trial_job_id\": \"T" + id
                    + "\", \"type\": \"FINAL\", \"sequence\": 0, \"value\": \"" + x + "\"}");
            run.trialEnded("T" + id, TrialStatus.SUCCEEDED, trial.toString());
            run.requestTrials(1);
        }
    }

    @Test
    public void parallelismStartsTheNextBracketAsSoonAsNothingWaits() throws Exception {
        Dispatcher run = start("Hyperband", Map.of("R", 9, "eta", 3));
        run.requestTrials(5);
        run.requestTrials(4);
        List<JsonNode> first = context.takeTrials();
        assertEquals(List.of(1, 1, 1, 1, 1, 1, 1, 1, 1), budgets(first)); // bracket s=2: 9 at budget 1
        assertEquals(List.of(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L), ids(first));
        run.requestTrials(6);
        // bracket s=1: ceil(3 * 3 / 2) = 5 at budget 3; then bracket s=0: 3 at budget 9 (one asked for)
        assertEquals(List.of(3, 3, 3, 3, 3, 9), budgets(context.takeTrials()));
        assertTrue(context.answers.isEmpty());
    }

    @Test
    public void serialWaitsForTheBracketsRoundsAndPromotesTheBestThird() throws Exception {
        Dispatcher run = start("Hyperband", Map.of("R", 9, "eta", 3, "exec_mode", "serial", "optimize_mode", "maximize"));
        run.requestTrials(10);
        List<JsonNode> first = context.takeTrials();
        assertEquals(9, first.size());
        assertEquals(List.of("NO"), context.answers);
        finish(run, first);
        List<JsonNode> second = context.takeTrials();
        assertEquals(List.of(3, 3, 3), budgets(second));
        List<Double> best = first.stream().map(t -> t.get("parameters").get("x").asDouble()).sorted((a, b) -> Double.compare(b, a))
                .limit(3).toList();
        assertEquals(best, second.stream().map(t -> t.get("parameters").get("x").asDouble()).toList());
        assertEquals(first.get(0).get("parameters").size(), second.get(0).get("parameters").size());
        finish(run, second);
        List<JsonNode> third = context.takeTrials();
        // the last round, the best at budget 9; with it the bracket has given out everything and the
        // next one (s=1: 5 at budget 3) starts in the slots still free
        assertEquals(List.of(9, 3, 3, 3, 3, 3), budgets(third));
        assertEquals(best.get(0), third.get(0).get("parameters").get("x").asDouble(), 0);
    }

    @Test
    public void bohbStartsTheNextBracketOnlyOnceTheLastRoundEnded() throws Exception {
        Dispatcher run = start("BOHB", Map.of("min_budget", 1, "max_budget", 3, "eta", 3));
        run.requestTrials(3);
        List<JsonNode> first = context.takeTrials();
        assertEquals(List.of(1, 1, 1), budgets(first)); // s_max 1: ceil(2 * 3 / 2) = 3 at budget 1
        finish(run, first);
        List<JsonNode> last = context.takeTrials();
        assertEquals(List.of(3), budgets(last));
        context.answers.clear();
        run.requestTrials(1);
        assertEquals(List.of("NO"), context.answers); // slots are free, but the last round has not ended
        finish(run, last);
        // bracket s=0: 2 at budget 3
        assertEquals(List.of(3, 3), budgets(context.takeTrials()));
    }

    @Test
    public void idsGoOnAfterTheResumedTrialsAndTheirResultsAreLeftOut() throws Exception {
        Dispatcher run = start("Hyperband", Map.of("R", 3, "eta", 3),
                "{\"parameter_id\": 41, \"parameter_source\": \"resumed\", \"parameters\": {\"x\": 0.5}, \"parameter_index\": 0}");
        run.requestTrials(1);
        assertEquals(List.of(42L), ids(context.takeTrials()));
        run.reportMetric("{\"parameter_id\": 41, \"trial_job_id\": \"OLD\", \"type\": \"FINAL\", \"sequence\": 0, \"value\": \"1\"}");
        run.trialEnded("OLD", TrialStatus.SUCCEEDED, "{\"parameter_id\": 41, \"parameters\": {\"x\": 0.5}}");
        assertTrue(context.answers.isEmpty());
    }

    @Test
    public void aResultThatIsNotANumberFailsTheExperimentOnce() throws Exception {
        Dispatcher run = start("Hyperband", Map.of("R", 3, "eta", 3));
        run.requestTrials(1);
        String id = context.takeTrials().get(0).get("parameter_id").asText();
        run.reportMetric("{\"parameter_id\": " + id + ", \"type\": \"FINAL\", \"sequence\": 0, \"value\": \"\\\"high\\\"\"}");
        run.requestTrials(1);
        assertEquals(1, context.answers.size());
        assertTrue(context.answers.get(0), context.answers.get(0).startsWith("FAILED Hyperband failed: "));
        assertTrue(context.answers.get(0), context.answers.get(0).contains("\"high\""));
    }

    @Test
    public void classArgsAreCheckedByNnisNames() {
        AdvisorProvider provider = new AdvisorProvider();
        List<ConfigProblem> problems = provider.checkAlgorithms(AlgorithmSection.builder().name("Hyperband")
                .classArgs(Map.of("R", 0, "eta", 3, "exec_mode", "sometimes", "min_budget", 1)).build(), null);
        assertEquals(List.of("tuner.classArgs.R", "tuner.classArgs.exec_mode", "tuner.classArgs.min_budget"),
                problems.stream().map(ConfigProblem::path).sorted().toList());
        List<ConfigProblem> bohb = provider.checkAlgorithms(AlgorithmSection.builder().name("BOHB")
                .classArgs(Map.of("min_budget", 9, "max_budget", 3, "top_n_percent", 100, "config_space", "/x.pcs")).build(), null);
        assertEquals(List.of("tuner.classArgs.config_space", "tuner.classArgs.max_budget", "tuner.classArgs.top_n_percent"),
                bohb.stream().map(ConfigProblem::path).sorted().toList());
        assertTrue(provider.checkAlgorithms(AlgorithmSection.builder().name("BOHB").classArgs(Map.of("max_budget", 27,
                "min_budget", 1, "eta", 3, "optimize_mode", "maximize", "min_points_in_model", 7, "top_n_percent", 15,
                "num_samples", 64, "random_fraction", 0.33, "bandwidth_factor", 3.0, "min_bandwidth", 0.001)).build(), null).isEmpty());
    }
}
