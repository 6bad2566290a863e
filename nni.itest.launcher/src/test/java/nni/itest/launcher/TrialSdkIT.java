package nni.itest.launcher;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * The trial SDK check looks where the trial runs: started from a folder that holds an unrelated
 * {@code nni/} package, the runtime still gives the trials (whose code has none) the shipped SDK,
 * and they report their results.
 */
public class TrialSdkIT {

    @Rule
    public TemporaryFolder folder = new TemporaryFolder();

    @Test(timeout = 120_000)
    public void anNniFolderWhereTheRuntimeStartsDoesNotFoolTheCheck() throws Exception {
        Path project = folder.newFolder("project").toPath();
        Files.createDirectories(project.resolve("nni"));
        Files.writeString(project.resolve("nni").resolve("__init__.py"), "# an unrelated package that happens to be called nni\n");
        Path code = folder.newFolder("code").toPath();
        Files.writeString(code.resolve("trial.py"), """
                import nni
                params = nni.get_next_parameter()
                nni.report_final_result(params['x'] * 2)
                """);
        Path config = Files.writeString(code.resolve("config.yml"), """
                searchSpace: {x: {_type: choice, _value: [1, 2]}}
                trialCommand: python3 trial.py
                trialConcurrency: 1
                maxTrialNumber: 2
                tuner: {name: GridSearch}
                trainingService: {platform: local}
                """);
        JarProcess.Result result = JarProcess.run(project, Map.of("HOME", folder.newFolder("home").toString()),
                folder.getRoot().toPath().resolve("out"), "--port", "0", "run", config.toString());
        assertEquals(result.toString(), 0, result.code());
        assertTrue(result.out(), result.out().contains("succeeded 2  failed 0  of max 2"));
        assertTrue(result.out(), result.out().contains("best 4 ("));
        try (var left = Files.list(project)) {
            assertEquals("nothing written where the runtime was started", 1, left.count());
        }
        // experiments go to ~/nni-experiments, ~ being $HOME
        assertTrue(Files.isDirectory(folder.getRoot().toPath().resolve("home").resolve("nni-experiments")));
    }
}
