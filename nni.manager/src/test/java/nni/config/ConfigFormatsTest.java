package nni.config;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.util.Map;
import java.util.Optional;

import org.junit.Test;

import nni.api.config.ConfigConversion;
import nni.api.config.ConfigFormat;

public class ConfigFormatsTest {

    /** A format recognising every file with a {@code legacy} key. */
    private static ConfigFormat legacy() {
        return new ConfigFormat() {
            @Override
            public boolean recognises(Map<String, Object> root) {
                return root.containsKey("legacy");
            }

            @Override
            public ConfigConversion convert(Map<String, Object> root) {
                return ConfigConversion.builder(Map.of()).build();
            }
        };
    }

    @Test
    public void theBestRankedFormatRecognisingAFileIsChosen() {
        ConfigFormats formats = new ConfigFormats();
        ConfigFormat low = legacy();
        ConfigFormat high = legacy();
        ConfigFormat older = legacy();
        formats.add(low, Map.of("service.ranking", -1, "service.id", 5L));
        formats.add(older, Map.of("service.id", 7L));
        formats.add(high, Map.of("service.id", 9L));
        Map<String, Object> file = Map.of("legacy", true);
        assertEquals(Optional.of(older), formats.recognising(file));
        formats.remove(older);
        assertEquals(Optional.of(high), formats.recognising(file));
        formats.remove(high);
        assertEquals(Optional.of(low), formats.recognising(file));
        assertEquals(Optional.empty(), formats.recognising(Map.of("trialCommand", "x")));
    }

    @Test
    public void aV1FileIsOneWithATruthyTrainingServicePlatform() {
        assertTrue(ConfigFormats.isV1(Map.of("trainingServicePlatform", "local")));
        assertFalse(ConfigFormats.isV1(Map.of("trainingServicePlatform", "")));
        assertFalse(ConfigFormats.isV1(Map.of("trainingServicePlatform", false)));
        assertFalse(ConfigFormats.isV1(Map.of("trainingService", Map.of("platform", "local"))));
    }
}
