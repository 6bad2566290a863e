package nni.config;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import nni.api.config.KeyPaths;

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
 *                                   experiment profile's {@code params} and served by the REST API,
 *                                   both {@linkplain #masked() masked}
 * @param secrets                    key paths in {@code canonical} of the values the section checks
 *                                   read as secrets ({@code trainingService.machineList[0].password},
 *                                   {@code trainingService[1].token}, {@code sharedStorage.storageAccountKey});
 *                                   the same values sit in {@code trainingServices}
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
        Map<String, Object> canonical,
        List<String> secrets) {

    /** What a secret is replaced with wherever the config is stored, served or printed. */
    public static final String MASK = "********";

    public ExperimentConfig {
        secrets = secrets == null ? List.of() : List.copyOf(secrets);
    }

    /** @return the platform name of the first (usually only) training service */
    public String platform() {
        return String.valueOf(trainingServices.get(0).get("platform"));
    }

    /**
     * @return this config with every secret replaced by {@link #MASK}: what the store keeps, the REST
     *         API serves and logs show. The platform sessions get the real config.
     */
    public ExperimentConfig masked() {
        Map<String, Object> masks = new LinkedHashMap<>();
        secrets.forEach(path -> masks.put(path, MASK));
        return withValues(masks);
    }

    /** @return the real value of each secret, by key path in {@code canonical} (absent ones left out) */
    public Map<String, String> secretValues() {
        Map<String, String> values = new LinkedHashMap<>();
        for (String path : secrets) {
            if (KeyPaths.get(canonical, path) instanceof String value) {
                values.put(path, value);
            }
        }
        return values;
    }

    /** @return this config with the secrets at the given key paths put back (after reading a masked copy) */
    public ExperimentConfig withSecretValues(Map<String, String> values) {
        return withValues(values);
    }

    private ExperimentConfig withValues(Map<String, ?> byPath) {
        if (byPath.isEmpty()) {
            return this;
        }
        // trainingService is one mapping, or a list of them (hybrid): trainingServices[i] is at this prefix
        boolean hybrid = canonical == null ? trainingServices.size() > 1
                : canonical.get("trainingService") instanceof List<?>;
        List<Map<String, Object>> services = new ArrayList<>();
        for (int i = 0; i < trainingServices.size(); i++) {
            String prefix = (hybrid ? "trainingService[" + i + "]" : "trainingService") + ".";
            Map<String, Object> inService = new LinkedHashMap<>();
            byPath.forEach((path, value) -> {
                if (path.startsWith(prefix)) {
                    inService.put(path.substring(prefix.length()), value);
                }
            });
            services.add(KeyPaths.replaced(trainingServices.get(i), inService));
        }
        Copy copy = new Copy(this);
        copy.trainingServices = List.copyOf(services);
        copy.canonical = canonical == null ? null : KeyPaths.replaced(canonical, byPath);
        return copy.build();
    }

    /** @return this config with another {@code trialConcurrency}, in the canonical form too */
    public ExperimentConfig withTrialConcurrency(int concurrency) {
        Copy copy = new Copy(this).canonical("trialConcurrency", concurrency);
        copy.trialConcurrency = concurrency;
        return copy.build();
    }

    /** @return this config with another {@code maxTrialNumber}, in the canonical form too */
    public ExperimentConfig withMaxTrialNumber(int max) {
        Copy copy = new Copy(this).canonical("maxTrialNumber", max);
        copy.maxTrialNumber = max;
        return copy.build();
    }

    /**
     * @param written how the canonical form shows it, as it was written ({@code "1h"}, {@code 3600})
     * @return this config with another {@code maxExperimentDuration}
     */
    public ExperimentConfig withMaxExperimentDuration(Duration duration, Object written) {
        Copy copy = new Copy(this).canonical("maxExperimentDuration", written);
        copy.maxExperimentDuration = duration;
        return copy.build();
    }

    /** @return this config with another search space, in the canonical form too */
    public ExperimentConfig withSearchSpace(Map<String, Object> space) {
        Copy copy = new Copy(this).canonical("searchSpace", space);
        copy.searchSpace = space;
        return copy.build();
    }

    /** @return this config in another working directory (the canonical form shows it where it had one) */
    public ExperimentConfig withExperimentWorkingDirectory(Path directory) {
        Copy copy = new Copy(this);
        if (canonical != null && canonical.containsKey("experimentWorkingDirectory")) {
            copy.canonical("experimentWorkingDirectory", directory.toString());
        }
        copy.experimentWorkingDirectory = directory;
        return copy.build();
    }

    /** The fields of a config being changed: the one place a config is copied. */
    private static final class Copy {
        String experimentName;
        Map<String, Object> searchSpace;
        String trialCommand;
        Path trialCodeDirectory;
        int trialConcurrency;
        Integer trialGpuNumber;
        Duration maxExperimentDuration;
        Integer maxTrialNumber;
        Duration maxTrialDuration;
        String nniManagerIp;
        boolean debug;
        String logLevel;
        Path experimentWorkingDirectory;
        AlgorithmConfig tuner;
        AlgorithmConfig assessor;
        List<Map<String, Object>> trainingServices;
        Map<String, Object> canonical;
        List<String> secrets;

        Copy(ExperimentConfig c) {
            experimentName = c.experimentName;
            searchSpace = c.searchSpace;
            trialCommand = c.trialCommand;
            trialCodeDirectory = c.trialCodeDirectory;
            trialConcurrency = c.trialConcurrency;
            trialGpuNumber = c.trialGpuNumber;
            maxExperimentDuration = c.maxExperimentDuration;
            maxTrialNumber = c.maxTrialNumber;
            maxTrialDuration = c.maxTrialDuration;
            nniManagerIp = c.nniManagerIp;
            debug = c.debug;
            logLevel = c.logLevel;
            experimentWorkingDirectory = c.experimentWorkingDirectory;
            tuner = c.tuner;
            assessor = c.assessor;
            trainingServices = c.trainingServices;
            canonical = c.canonical;
            secrets = c.secrets;
        }

        /** Sets one key of the canonical form (kept in its place, else added at the end). */
        Copy canonical(String key, Object value) {
            Map<String, Object> changed = new LinkedHashMap<>(canonical == null ? Map.of() : canonical);
            changed.put(key, value);
            canonical = changed;
            return this;
        }

        ExperimentConfig build() {
            return new ExperimentConfig(experimentName, searchSpace, trialCommand, trialCodeDirectory, trialConcurrency,
                    trialGpuNumber, maxExperimentDuration, maxTrialNumber, maxTrialDuration, nniManagerIp, debug, logLevel,
                    experimentWorkingDirectory, tuner, assessor, trainingServices, canonical, secrets);
        }
    }

    /** Masked: a config printed by mistake shows no secret. */
    @Override
    public String toString() {
        ExperimentConfig masked = masked();
        return "ExperimentConfig[" + masked.canonical + ", trainingServices=" + masked.trainingServices + "]";
    }
}
