package nni.manager.internal.config;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

public class ExperimentConfigLoaderTest {

    @Rule
    public TemporaryFolder folder = new TemporaryFolder();

    private Path write(String name, String text) throws Exception {
        Path file = folder.getRoot().toPath().resolve(name);
        Files.createDirectories(file.getParent());
        Files.writeString(file, text);
        return file;
    }

    @Test
    public void minimalLocalConfigIsCanonicalizedAsNniDoes() throws Exception {
        Path file = write("exp/config.yml", """
                searchSpace: {a: {_type: choice, _value: [1, 2]}}
                trialCommand: python main.py
                trialConcurrency: 2
                tuner: {name: random}
                trainingService: {platform: local}
                """);
        ExperimentConfig config = Loaders.local().load(file);
        Path dir = file.getParent().toRealPath();
        assertEquals(2, config.trialConcurrency());
        assertEquals(dir, config.trialCodeDirectory());
        assertEquals("info", config.logLevel());
        Map<String, Object> service = config.trainingServices().get(0);
        assertEquals("local", service.get("platform"));
        assertEquals("python main.py", service.get("trialCommand"));
        assertEquals(dir.toString(), service.get("trialCodeDirectory"));
        assertEquals(false, service.get("debug"));
        assertEquals(1, service.get("maxTrialNumberPerGpu"));
        assertEquals(false, service.get("reuseMode"));
        assertEquals(List.of("experimentType", "searchSpace", "trialCommand", "trialCodeDirectory", "trialConcurrency",
                "useAnnotation", "debug", "logLevel", "experimentWorkingDirectory", "tuner", "trainingService"),
                List.copyOf(config.canonical().keySet()));
    }
}
