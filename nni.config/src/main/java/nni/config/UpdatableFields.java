package nni.config;

import java.util.Map;

import nni.api.config.ConfigReader;
import nni.api.experiment.ExperimentUpdate;

/**
 * The experiment fields that can change while it runs ({@code nnictl update}), each with one rule
 * that decides what a valid value is, whether it comes from a file ({@link ExperimentConfigLoader})
 * or from a request or the console ({@link ExperimentUpdate}, whose rules these are). Values are
 * as parsed: Integer, Long, BigInteger, BigDecimal or Double, String; a number is never converted
 * to fit ({@code 4294967297} is not 1, {@code 1e309} is not 2147483647): out of range is an error
 * naming the field and the range. A search space is checked here for what every reader of it needs
 * ({@link #searchSpace(Object)}: numbers JSON can hold), then by what runs the tuner.
 */
public final class UpdatableFields {

    public static final String TRIAL_CONCURRENCY = "trialConcurrency";
    public static final String MAX_TRIAL_NUMBER = "maxTrialNumber";
    public static final String MAX_EXPERIMENT_DURATION = "maxExperimentDuration";
    public static final String SEARCH_SPACE = "searchSpace";

    private UpdatableFields() {
    }

    static Integer trialConcurrency(ConfigReader reader) {
        return reader.requiredInteger(TRIAL_CONCURRENCY, 1, Integer.MAX_VALUE);
    }

    static Integer maxTrialNumber(ConfigReader reader) {
        return reader.integer(MAX_TRIAL_NUMBER, null, 1, Integer.MAX_VALUE);
    }

    /** @return whole seconds */
    static Long maxExperimentDuration(ConfigReader reader) {
        return reader.duration(MAX_EXPERIMENT_DURATION);
    }

    /** @throws IllegalArgumentException naming the field and its range */
    public static int trialConcurrency(Object value) {
        return ((ExperimentUpdate.TrialConcurrency) checked(TRIAL_CONCURRENCY, value)).value();
    }

    /** @throws IllegalArgumentException naming the field and its range */
    public static int maxTrialNumber(Object value) {
        return ((ExperimentUpdate.MaxTrialNumber) checked(MAX_TRIAL_NUMBER, value)).value();
    }

    /**
     * @param value a search space as parsed (decimals as Double, or exactly as BigDecimal)
     * @return the space with its decimals as Double, as a file gives them to the tuner
     * @throws IllegalArgumentException naming the field ({@code searchSpace.lr._value[1]}) when it is no
     *         mapping or holds a number no double can hold
     */
    public static Map<String, Object> searchSpace(Object value) {
        return ((ExperimentUpdate.SearchSpace) checked(SEARCH_SPACE, value)).value();
    }

    /** The rule of a value given at run time is the update's, so that a stored definition obeys the same. */
    private static ExperimentUpdate checked(String field, Object value) {
        return ExperimentUpdate.of(field, value).orElseThrow(refusal -> new IllegalArgumentException(refusal.message()));
    }
}
