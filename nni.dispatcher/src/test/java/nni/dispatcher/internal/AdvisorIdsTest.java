package nni.dispatcher.internal;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import nni.api.tuner.AlgorithmSection;

/** NNI's Hyperband and BOHB start through advisor_ids.py; every other algorithm as NNI starts it. */
public class AdvisorIdsTest {

    @Rule
    public TemporaryFolder folder = new TemporaryFolder();

    private static AlgorithmSection named(String name) {
        return AlgorithmSection.builder().name(name).build();
    }

    @Test
    public void nnisAdvisorsStartThroughTheScriptByNameOrClass() throws Exception {
        Path log = folder.getRoot().toPath().resolve("log");
        for (AlgorithmSection advisor : List.of(named("Hyperband"), named("bohb"), AlgorithmSection.builder()
                .className("nni.algorithms.hpo.hyperband_advisor.Hyperband").codeDirectory(log).build())) {
            assertTrue(advisor.toString(), AdvisorIds.needed(advisor));
            assertEquals(List.of("python3", log.resolve("advisor_ids.py").toString()), AdvisorIds.launch("python3", advisor, log));
        }
        String script = Files.readString(log.resolve("advisor_ids.py"));
        assertTrue(script, script.contains("Recoverable.is_created_in_previous_exp = _created_in_earlier_run"));
        assertTrue(script, script.endsWith("runpy.run_module('nni', run_name='__main__', alter_sys=True)\n"));
    }

    @Test
    public void everyOtherAlgorithmStartsAsNniStartsIt() throws Exception {
        Path log = folder.getRoot().toPath().resolve("log");
        for (AlgorithmSection other : List.of(named("TPE"), named("PBT"), AlgorithmSection.builder()
                .className("my_advisor.Hyperband").codeDirectory(log).build())) {
            assertFalse(other.toString(), AdvisorIds.needed(other));
            assertEquals(List.of("python3", "-m", "nni"), AdvisorIds.launch("python3", other, log));
        }
        assertFalse(Files.exists(log));
    }
}
