package nni.config;

import java.util.ArrayList;
import java.util.List;


/**
 * The rules of a config file, applied again to an experiment's stored definition when it is
 * resumed: a value an older runtime stored, or one written into the store by hand, that the file's
 * rules refuse is named (field and reason) instead of being met as a tuner's failure halfway
 * through the resume.
 */
public final class StoredDefinition {

    private StoredDefinition() {
    }

    /**
     * @param choice what runs the experiment's tuner
     * @return each problem as {@code field: reason}; empty when the definition passes
     */
    public static List<String> problems(ExperimentConfig config, AlgorithmChoice choice) {
        List<String> problems = new ArrayList<>();
        rule(problems, () -> UpdatableFields.trialConcurrency(config.trialConcurrency()));
        if (config.maxTrialNumber() != null) {
            rule(problems, () -> UpdatableFields.maxTrialNumber(config.maxTrialNumber()));
        }
        if (config.maxExperimentDuration() != null && (config.maxExperimentDuration().isNegative() || config.maxExperimentDuration().isZero())) {
            problems.add(UpdatableFields.MAX_EXPERIMENT_DURATION + ": expected a positive duration, got "
                    + config.maxExperimentDuration().toSeconds() + "s");
        }
        ExperimentConfigLoader.searchSpaceProblems(config.searchSpace(), choice, config.tuner()).forEach(p -> problems.add(
                (p.path().isEmpty() ? UpdatableFields.SEARCH_SPACE : UpdatableFields.SEARCH_SPACE + "." + p.path()) + ": "
                        + p.message()));
        return problems;
    }

    private static void rule(List<String> problems, Runnable check) {
        try {
            check.run();
        } catch (IllegalArgumentException e) {
            problems.add(e.getMessage());
        }
    }
}
