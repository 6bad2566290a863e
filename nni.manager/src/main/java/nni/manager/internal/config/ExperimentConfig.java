package nni.manager.internal.config;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * An experiment definition after loading, canonicalization and validation: what NNI's
 * {@code ExperimentConfig.json()} produces, with durations already converted. v1 files arrive here
 * converted to v2.
 *
 * @param experimentName             may be null
 * @param searchSpace                the search space as parsed JSON (never null; {@code {}} when empty)
 * @param trialCommand               the root trial command (also copied into each training service)
 * @param trialCodeDirectory         resolved, absolute
 * @param trialConcurrency           &gt; 0
 * @param trialGpuNumber             null when not given
 * @param maxExperimentDuration      null = unlimited
 * @param maxTrialNumber             null = unlimited
 * @param maxTrialDuration           null = unlimited
 * @param nniManagerIp               may be null
 * @param debug                      NNI's debug flag
 * @param logLevel                   canonical ({@code info} by default, {@code debug} when debug)
 * @param experimentWorkingDirectory resolved ({@code ~/nni-experiments} by default)
 * @param tuner                      required
 * @param assessor                   may be null
 * @param trainingServices           one element per platform (more than one = hybrid); each is the
 *                                   canonical section with {@code platform} and the shortcut fields
 *                                   NNI copies from the root ({@code trialCommand},
 *                                   {@code trialCodeDirectory}, {@code trialGpuNumber},
 *                                   {@code nniManagerIp}, {@code debug}); keys in their canonical
 *                                   camelCase spelling, defaults filled in
 * @param canonical                  the whole canonical config as NNI would POST it (camelCase keys,
 *                                   nulls omitted, durations as written) &mdash; stored as the
 *                                   experiment profile's {@code params} and served by the REST API
 */
public record ExperimentConfig(
        String experimentName,
        Map<String, Object> searchSpace,
        String trialCommand,
        Path trialCodeDirectory,
        int trialConcurrency,
        Integer trialGpuNumber,
        Duration maxExperimentDuration,
        Integer maxTrialNumber,
        Duration maxTrialDuration,
        String nniManagerIp,
        boolean debug,
        String logLevel,
        Path experimentWorkingDirectory,
        AlgorithmConfig tuner,
        AlgorithmConfig assessor,
        List<Map<String, Object>> trainingServices,
        Map<String, Object> canonical) {

    /** @return the platform name of the first (usually only) training service */
    public String platform() {
        return String.valueOf(trainingServices.get(0).get("platform"));
    }
}
