package nni.shell.internal.console;

import static org.junit.Assert.assertEquals;

import java.lang.reflect.Proxy;
import java.util.List;
import java.util.Map;

import org.junit.Test;

import nni.api.experiment.ExperimentInfo;
import nni.api.experiment.ExperimentService;
import nni.api.experiment.Outcome;
import nni.api.experiment.Refusal;
import nni.api.experiment.TrialInfo;
import nni.api.model.HyperParameters;
import nni.api.model.TrialJob;

/**
 * Tab's candidates come from the experiment API: ids of the open experiments, then of those stored
 * ({@link ExperimentService#stored()}), trial ids of the open ones, and the trial files' names.
 */
public class CompletionsTest {

    /** @return the service's answers to list, stored and trials; any other call is a test's mistake */
    private static ExperimentService experiments(List<String> stored, Map<String, Outcome<List<TrialInfo>>> open) {
        return (ExperimentService) Proxy.newProxyInstance(CompletionsTest.class.getClassLoader(),
                new Class<?>[] {ExperimentService.class}, (proxy, method, args) -> switch (method.getName()) {
                    case "list" -> open.keySet().stream().map(id -> ExperimentInfo.builder(id).status("RUNNING").build()).toList();
                    case "stored" -> stored;
                    case "trials" -> open.get((String) args[0]);
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }

    private static Outcome<List<TrialInfo>> trials(String experimentId, String... ids) {
        return Outcome.done(List.of(ids).stream().map(id -> TrialInfo.builder(experimentId, TrialJob.builder(id)
                .hyperParameters(HyperParameters.of("{}", 0)).build()).build()).toList());
    }

    @Test
    public void experimentIdsAreTheOpenOnesThenTheStoredOnes() {
        Completions completions = new Completions(null, experiments(List.of("abc12345", "k3b9x2qa", "open0002"),
                Map.of("open0002", trials("open0002"))));

        assertEquals(List.of("open0002", "abc12345", "k3b9x2qa"), completions.candidates(List.of("nni:resume", "")));
        assertEquals(List.of("abc12345"), completions.candidates(List.of("trials", "--experiment", "a")));
        assertEquals(List.of("k3b9x2qa"), completions.candidates(List.of("nni:trials", "k")));
    }

    @Test
    public void trialIdsAreThoseOfTheOpenExperiments() {
        Completions completions = new Completions(null, experiments(List.of(), Map.of("open0001", trials("open0001", "Ab1", "Cd2"),
                "gone0001", Outcome.refused(Refusal.notFound("stopped since the list was taken")))));

        assertEquals(List.of("Ab1", "Cd2"), completions.candidates(List.of("nni:trial", "")).stream().sorted().toList());
        assertEquals(List.of("Cd2"), completions.candidates(List.of("cancel", "C")));
    }

    @Test
    public void outputOffersTheTrialFilesAfterTheTrial() {
        Completions completions = new Completions(null, experiments(List.of(), Map.of()));

        assertEquals(ExperimentService.TRIAL_FILES, completions.candidates(List.of("output", "Ab1", "")));
        assertEquals(List.of("stdout", "stderr"), completions.candidates(List.of("nni:output", "Ab1", "std")));
    }
}
