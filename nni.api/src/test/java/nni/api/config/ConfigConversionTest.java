package nni.api.config;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertSame;
import static org.junit.Assert.assertThrows;

import java.util.List;
import java.util.Map;

import org.junit.Test;

public class ConfigConversionTest {

    @Test
    public void aConversionKeepsWhatItWasBuiltWithAndCannotBeChangedAfterwards() {
        Map<String, Object> tree = Map.of("trialConcurrency", 1);
        ConfigConversion.Builder builder = ConfigConversion.builder(tree)
                .origin("trialConcurrency", "workers")
                .origin("trialConcurrency", "legacy.workers")
                .origin("", "")
                .problem(new ConfigProblem("legacy.colour", "unknown key"));
        ConfigConversion conversion = builder.build();
        builder.origin("tuner", "legacy.tuner").problem(new ConfigProblem("x", "later"));

        assertSame(tree, conversion.tree());
        assertEquals(Map.of("trialConcurrency", "legacy.workers", "", ""), conversion.origins());
        assertEquals(List.of(new ConfigProblem("legacy.colour", "unknown key")), conversion.problems());
        assertThrows(UnsupportedOperationException.class, () -> conversion.origins().put("a", "b"));
        assertThrows(UnsupportedOperationException.class, () -> conversion.problems().clear());
    }

    @Test
    public void nullsAreRefusedWhereTheyAreGiven() {
        assertThrows(NullPointerException.class, () -> ConfigConversion.builder(null));
        ConfigConversion.Builder builder = ConfigConversion.builder(Map.of());
        assertThrows(NullPointerException.class, () -> builder.origin("a", null));
        assertThrows(NullPointerException.class, () -> builder.problem(null));
    }
}
