package nni.manager.internal.console;

import static org.junit.Assert.assertEquals;
import static org.junit.Assume.assumeTrue;

import java.io.IOException;
import java.lang.reflect.Proxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import nni.api.experiment.ExperimentInfo;
import nni.api.experiment.ExperimentService;
import nni.api.experiment.Outcome;
import nni.api.experiment.Refusal;
import nni.api.experiment.TrialInfo;
import nni.api.model.HyperParameters;
import nni.api.model.TrialJob;

/**
 * Tab's candidates come from the experiment API: ids of the open experiments, then of those stored
 * in the root (as the engine lists them), trial ids of the open ones, and the trial files' names.
 */
public class CompletionsTest {

    @Rule
    public TemporaryFolder folder = new TemporaryFolder();

    /** @return the service's answers to list, root and trials; any other call is a test's mistake */
    private static ExperimentService experiments(Path root, Map<String, Outcome<List<TrialInfo>>> open) {
        return (ExperimentService) Proxy.newProxyInstance(CompletionsTest.class.getClassLoader(),
                new Class<?>[] {ExperimentService.class}, (proxy, method, args) -> switch (method.getName()) {
                    case "list" -> open.keySet().stream().map(id -> ExperimentInfo.builder(id).status("RUNNING").build()).toList();
                    case "root" -> root;
                    case "trials" -> open.get((String) args[0]);
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }

    private static Outcome<List<TrialInfo>> trials(String experimentId, String... ids) {
        return Outcome.done(List.of(ids).stream().map(id -> TrialInfo.builder(experimentId, TrialJob.builder(id)
                .hyperParameters(HyperParameters.of("{}", 0)).build()).build()).toList());
    }

    private static Path stored(Path root, String id) throws IOException {
        Path db = Files.createDirectories(root.resolve(id).resolve("db"));
        Files.writeString(db.resolve("nni.sqlite"), "");
        return root.resolve(id);
    }

    @Test
    public void experimentIdsAreTheOpenOnesThenTheStoredOnes() throws IOException {
        Path root = folder.newFolder("experiments").toPath();
        Path newest = stored(root, "k3b9x2qa");
        stored(root, "abc12345");
        stored(root, "open0002");
        stored(root, "_old");
        Files.writeString(stored(root, "creating").resolve(".creating"), "1\n");
        Files.createDirectories(root.resolve("nodb0001"));
        Files.writeString(root.resolve(".experiment"), "{}");
        try {
            Files.createSymbolicLink(root.resolve("latest"), newest);
        } catch (UnsupportedOperationException | IOException e) {
            assumeTrue("symbolic links cannot be made here: " + e, false);
        }
        Completions completions = new Completions(null, experiments(root, Map.of("open0002", trials("open0002"))));

        assertEquals(List.of("open0002", "abc12345", "k3b9x2qa"), completions.candidates(List.of("nni:resume", "")));
        assertEquals(List.of("abc12345"), completions.candidates(List.of("trials", "--experiment", "a")));
        assertEquals(List.of("k3b9x2qa"), completions.candidates(List.of("nni:trials", "k")));
    }

    @Test
    public void trialIdsAreThoseOfTheOpenExperiments() {
        Path root = folder.getRoot().toPath().resolve("none");
        Completions completions = new Completions(null, experiments(root, Map.of("open0001", trials("open0001", "Ab1", "Cd2"),
                "gone0001", Outcome.refused(Refusal.notFound("stopped since the list was taken")))));

        assertEquals(List.of("Ab1", "Cd2"), completions.candidates(List.of("nni:trial", "")).stream().sorted().toList());
        assertEquals(List.of("Cd2"), completions.candidates(List.of("cancel", "C")));
    }

    @Test
    public void outputOffersTheTrialFilesAfterTheTrial() {
        Completions completions = new Completions(null, experiments(folder.getRoot().toPath(), Map.of()));

        assertEquals(ExperimentService.TRIAL_FILES, completions.candidates(List.of("output", "Ab1", "")));
        assertEquals(List.of("stdout", "stderr"), completions.candidates(List.of("nni:output", "Ab1", "std")));
    }
}
