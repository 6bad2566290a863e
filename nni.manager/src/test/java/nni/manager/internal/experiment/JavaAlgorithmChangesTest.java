package nni.manager.internal.experiment;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.After;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import nni.api.experiment.ExperimentUpdate;

/**
 * What the user changes in an experiment whose Java tuner runs through nni.tuners' runner: an import
 * the tuner does not learn from and a search space it cannot take are refused as the manager's own
 * Java path refused them, naming the problem, and nothing of them is kept.
 */
public class JavaAlgorithmChangesTest {

    @Rule
    public TemporaryFolder folder = new TemporaryFolder();

    private Experiment experiment;

    @After
    public void stopExperiment() {
        if (experiment != null) {
            experiment.stop(Duration.ofSeconds(10));
        }
    }

    /** A ListTuner that also learns from imported results, counting them. */
    private static final class ImportingTuner implements nni.api.tuner.Tuner {
        private final ListTuner list = new ListTuner(1);
        final List<Map<String, Object>> imported = new java.util.concurrent.CopyOnWriteArrayList<>();

        @Override
        public java.util.Optional<Map<String, Object>> generateParameters(long parameterId) {
            return list.generateParameters(parameterId);
        }

        @Override
        public void receiveTrialResult(long parameterId, Map<String, Object> parameters, double value) {
        }

        @Override
        public boolean importResult(Map<String, Object> parameters, double value) {
            imported.add(parameters);
            return true;
        }
    }

    private Experiments setup() throws Exception {
        Path code = folder.newFolder("code").toPath();
        Files.writeString(code.resolve("trial.py"), "import nni\nnni.report_final_result(nni.get_next_parameter()['x'])\n");
        Experiments setup = new Experiments(code, folder.newFolder("experiments").toPath());
        setup.concurrency = 1;
        setup.maxTrials = 1;
        return setup;
    }

    private static final String TWO_RESULTS = "[{\"parameter\": {\"x\": 7}, \"value\": 0.5}, {\"parameter\": {\"x\": 8}, \"value\": 0.6}]";

    @Test(timeout = 60_000)
    public void anImportOrASearchSpaceTheTunerCannotTakeIsRefusedAndNotKept() throws Exception {
        experiment = setup().start("refuse01", new ListTuner(1), null);
        assertEquals(ExperimentStatus.DONE, experiment.settled().get(50, TimeUnit.SECONDS));
        Map<String, Object> before = experiment.config().searchSpace();

        IllegalArgumentException notImported = assertThrows(IllegalArgumentException.class, () -> experiment.importData(TWO_RESULTS));
        assertTrue(notImported.getMessage(), notImported.getMessage().contains("does not learn from imported results"));
        assertEquals(List.of(), experiment.importedData());

        ExperimentUpdate space = ExperimentUpdate.of(ExperimentUpdate.SEARCH_SPACE,
                Map.of("y", Map.of("_type", "choice", "_value", List.of(1, 2)))).value();
        IllegalArgumentException notChanged = assertThrows(IllegalArgumentException.class, () -> experiment.update(space));
        assertEquals("this tuner cannot change its search space at run time", notChanged.getMessage());
        assertEquals(before, experiment.config().searchSpace());
    }

    @Test(timeout = 60_000)
    public void anImportTheTunerLearnsFromIsGivenWholeAndKept() throws Exception {
        ImportingTuner tuner = new ImportingTuner();
        experiment = setup().start("import01", tuner, null);
        assertEquals(ExperimentStatus.DONE, experiment.settled().get(50, TimeUnit.SECONDS));
        assertEquals(2, experiment.importData(TWO_RESULTS));
        assertEquals(List.of(Map.of("x", 7), Map.of("x", 8)), tuner.imported);
        assertEquals(List.of(TWO_RESULTS), experiment.importedData());
    }
}
