package nni.api.experiment;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.Test;

public class ExperimentUpdateTest {

    @Test
    public void restTypesReadTheirParamsFieldWithNniV1NamesAsFallback() {
        ExperimentUpdate concurrency = ExperimentUpdate.fromRest("TRIAL_CONCURRENCY", Map.of("trialConcurrency", 3)).value();
        assertEquals(3, ((ExperimentUpdate.TrialConcurrency) concurrency).value());
        ExperimentUpdate max = ExperimentUpdate.fromRest("MAX_TRIAL_NUM", Map.of("maxTrialNum", 7)).value();
        assertEquals(7, ((ExperimentUpdate.MaxTrialNumber) max).value());
        ExperimentUpdate duration = ExperimentUpdate.fromRest("MAX_EXEC_DURATION",
                Map.of("maxExperimentDuration", "1h", "maxExecDuration", "2h")).value();
        assertEquals(Duration.ofHours(1), ((ExperimentUpdate.MaxExperimentDuration) duration).value());
        assertEquals("the profile shows it as written", "1h", duration.written());
    }

    @Test
    public void consoleTextIsReadAsAConfigFileWouldGiveIt() {
        assertEquals(4, ((ExperimentUpdate.TrialConcurrency) ExperimentUpdate.fromConsole("Concurrency", " 4 ").value()).value());
        assertEquals(Duration.ofMinutes(90),
                ((ExperimentUpdate.MaxExperimentDuration) ExperimentUpdate.fromConsole("duration", "1.5h").value()).value());
        assertEquals(Duration.ofSeconds(600),
                ((ExperimentUpdate.MaxExperimentDuration) ExperimentUpdate.fromConsole("duration", "600").value()).value());
    }

    @Test
    public void refusalsNameTheFieldAndNeverConvertToFit() {
        assertInvalid(ExperimentUpdate.of("trialConcurrency", 4294967297L), "trialConcurrency");
        assertInvalid(ExperimentUpdate.of("trialConcurrency", 0), "trialConcurrency");
        assertInvalid(ExperimentUpdate.of("trialConcurrency", 2.5), "trialConcurrency");
        assertInvalid(ExperimentUpdate.of("maxTrialNumber", new BigDecimal("3e9")), "maxTrialNumber");
        assertInvalid(ExperimentUpdate.fromConsole("maxtrialnumber", "99999999999999999999999"), "maxTrialNumber");
        assertInvalid(ExperimentUpdate.of("maxExperimentDuration", "1e400h"), "maxExperimentDuration");
        assertInvalid(ExperimentUpdate.of("maxExperimentDuration", Long.MAX_VALUE), "maxExperimentDuration");
        assertInvalid(ExperimentUpdate.of("maxExperimentDuration", "0s"), "maxExperimentDuration");
        assertInvalid(ExperimentUpdate.maxExperimentDuration(Duration.ZERO), "maxExperimentDuration");
        assertInvalid(ExperimentUpdate.fromRest("TRIAL_CONCURRENCY", Map.of()), "trialConcurrency");
        assertInvalid(ExperimentUpdate.fromRest("SEARCH_SPACE", Map.of("searchSpace", "{}")), "searchSpace");
        assertInvalid(ExperimentUpdate.fromRest("MAX_TRIALS", Map.of()), "update_type");
        assertInvalid(ExperimentUpdate.fromConsole("trials", "3"), "what");
        assertInvalid(ExperimentUpdate.fromConsole("searchspace", "{}"), "searchSpace");
        assertInvalid(ExperimentUpdate.of("trialGpuNumber", 1), "field");
    }

    @Test
    public void nonFiniteNumbersAreRefusedWhereverTheyAre() {
        Map<String, Object> lr = new LinkedHashMap<>();
        lr.put("_type", "uniform");
        lr.put("_value", List.of(new BigDecimal("0.1"), new BigDecimal("1e309")));
        Refusal refusal = assertInvalid(ExperimentUpdate.of("searchSpace", Map.of("lr", lr)), "searchSpace.lr._value[1]");
        assertTrue(refusal.message(), refusal.message().contains("1E+309"));
        assertInvalid(ExperimentUpdate.of("searchSpace", Map.of("x", Map.of("_value", List.of(Double.NaN)))),
                "searchSpace.x._value[0]");
        assertInvalid(ExperimentUpdate.of("trialConcurrency", Double.POSITIVE_INFINITY), "trialConcurrency");
        assertInvalid(ExperimentUpdate.of("maxTrialNumber", new BigDecimal("1e309")), "maxTrialNumber");
    }

    @Test
    public void aSearchSpaceKeepsItsDecimalsAsDoubles() {
        Map<String, Object> space = Map.of("x", Map.of("_type", "uniform", "_value", List.of(new BigDecimal("0.5"),
                BigInteger.TWO.intValue())));
        ExperimentUpdate.SearchSpace update = (ExperimentUpdate.SearchSpace) ExperimentUpdate.of("searchSpace", space).value();
        assertEquals(Map.of("x", Map.of("_type", "uniform", "_value", List.of(0.5, 2))), update.value());
    }

    private static Refusal assertInvalid(Outcome<?> outcome, String field) {
        assertFalse("refused: " + outcome, outcome.isDone());
        Refusal refusal = outcome.refusal().orElseThrow();
        assertEquals(Refusal.Kind.INVALID, refusal.kind());
        assertEquals(refusal.message(), field, refusal.field().orElseThrow());
        assertTrue(refusal.message(), refusal.message().startsWith(field + ": "));
        return refusal;
    }
}
