package nni.config;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import nni.manager.internal.experiment.Experiments;

import org.junit.Test;


/**
 * A stored definition read back: what was written comes back the same; a run-time value of the wrong
 * type (a hand-edited store, an older runtime) is named as a problem and the experiment can still be
 * opened; any other value of the wrong type is refused naming its key, never a ClassCastException.
 */
public class ConfigCodecTest {

    private static String stored() {
        Experiments experiments = new Experiments(Path.of("/code"), Path.of("/experiments"));
        experiments.concurrency = 3;
        experiments.maxTrials = 7;
        experiments.maxExperimentDuration = Duration.ofMinutes(5);
        return ConfigCodec.write(experiments.config());
    }

    @Test
    public void whatWasWrittenIsReadBackWithoutProblems() {
        ConfigCodec.Stored read = ConfigCodec.read(stored());
        assertEquals(List.of(), read.problems());
        ExperimentConfig config = read.config();
        assertEquals(3, config.trialConcurrency());
        assertEquals(Integer.valueOf(7), config.maxTrialNumber());
        assertEquals(Duration.ofMinutes(5), config.maxExperimentDuration());
        assertEquals(Path.of("/code"), config.trialCodeDirectory());
        assertEquals("ListTuner", config.tuner().name());
        assertEquals(stored(), ConfigCodec.write(config));
    }

    @Test
    public void runTimeValuesOfTheWrongTypeAreNamedAndReplaced() {
        String json = stored();
        String bad = json.replace("\"trialConcurrency\":3", "\"trialConcurrency\":\"4\"")
                .replace("\"maxTrialNumber\":7", "\"maxTrialNumber\":7.5")
                .replace("\"maxExperimentDuration\":300000", "\"maxExperimentDuration\":[1]")
                .replaceFirst("\"searchSpace\":\\{.*?\\}\\},\"trialCommand\"", "\"searchSpace\":\"x\",\"trialCommand\"");
        assertEquals("four values changed: " + bad, 4, List.of("\"4\"", "7.5", "[1]", "\"searchSpace\":\"x\"").stream()
                .filter(bad::contains).count());

        ConfigCodec.Stored read = ConfigCodec.read(bad);

        assertEquals(List.of("searchSpace: expected a mapping, got \"x\"", "trialConcurrency: expected a whole number, got \"4\"",
                "maxExperimentDuration: expected a whole number of milliseconds, got [1]", "maxTrialNumber: expected a whole number, got 7.5"),
                read.problems());
        assertEquals(1, read.config().trialConcurrency());
        assertEquals(null, read.config().maxTrialNumber());
    }

    @Test
    public void otherValuesOfTheWrongTypeAreRefusedNamingTheirKey() {
        IllegalArgumentException command = assertThrows(IllegalArgumentException.class,
                () -> ConfigCodec.read(stored().replace("\"trialCommand\":\"python3 trial.py\"", "\"trialCommand\":42")));
        assertEquals("the stored experiment definition's trialCommand is 42, not String", command.getMessage());

        IllegalArgumentException tuner = assertThrows(IllegalArgumentException.class,
                () -> ConfigCodec.read(stored().replace("\"name\":\"ListTuner\"", "\"name\":[\"ListTuner\"]")));
        assertTrue(tuner.getMessage(), tuner.getMessage().startsWith("the stored experiment definition's tuner.name is [\"ListTuner\"]"));

        IllegalArgumentException broken = assertThrows(IllegalArgumentException.class, () -> ConfigCodec.read("{\"trialCommand\":"));
        assertTrue(broken.getMessage(), broken.getMessage().startsWith("the stored experiment definition is not valid JSON"));
    }
}
