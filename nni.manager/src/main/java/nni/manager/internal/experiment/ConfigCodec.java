package nni.manager.internal.experiment;

import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;

import nni.manager.internal.config.AlgorithmConfig;
import nni.manager.internal.config.ExperimentConfig;

/**
 * Writes an {@link ExperimentConfig} as JSON into the experiment's store and reads it back on
 * resume, so that a resumed experiment runs with exactly the definition (and run-time updates) it
 * had, without the original file. Secrets are written masked, with their key paths; the real values
 * live in the experiment's {@link SecretsFile} and are put back by whoever reads the definition.
 */
final class ConfigCodec {

    private static final ObjectMapper JSON = new ObjectMapper();

    private ConfigCodec() {
    }

    /** @return the definition as JSON, secrets masked */
    static String write(ExperimentConfig real) {
        ExperimentConfig config = real.masked();
        Map<String, Object> map = new LinkedHashMap<>();
        map.put("experimentName", config.experimentName());
        map.put("searchSpace", config.searchSpace());
        map.put("trialCommand", config.trialCommand());
        map.put("trialCodeDirectory", string(config.trialCodeDirectory()));
        map.put("trialConcurrency", config.trialConcurrency());
        map.put("trialGpuNumber", config.trialGpuNumber());
        map.put("maxExperimentDuration", millis(config.maxExperimentDuration()));
        map.put("maxTrialNumber", config.maxTrialNumber());
        map.put("maxTrialDuration", millis(config.maxTrialDuration()));
        map.put("nniManagerIp", config.nniManagerIp());
        map.put("debug", config.debug());
        map.put("logLevel", config.logLevel());
        map.put("experimentWorkingDirectory", string(config.experimentWorkingDirectory()));
        map.put("tuner", algorithm(config.tuner()));
        map.put("assessor", algorithm(config.assessor()));
        map.put("trainingServices", config.trainingServices());
        map.put("canonical", config.canonical());
        map.put("secrets", config.secrets());
        try {
            return JSON.writeValueAsString(map);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("the experiment definition cannot be written as JSON: " + e.getMessage(), e);
        }
    }

    /** @return the stored definition, its secrets still masked ({@link ExperimentConfig#secrets()} names them) */
    @SuppressWarnings("unchecked")
    static ExperimentConfig read(String json) {
        Map<String, Object> map;
        try {
            map = JSON.readValue(json, new TypeReference<Map<String, Object>>() { });
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("the stored experiment definition is not valid JSON: " + e.getOriginalMessage(), e);
        }
        return new ExperimentConfig((String) map.get("experimentName"),
                (Map<String, Object>) map.get("searchSpace"), (String) map.get("trialCommand"),
                path(map.get("trialCodeDirectory")), ((Number) map.get("trialConcurrency")).intValue(),
                integer(map.get("trialGpuNumber")), duration(map.get("maxExperimentDuration")),
                integer(map.get("maxTrialNumber")), duration(map.get("maxTrialDuration")),
                (String) map.get("nniManagerIp"), Boolean.TRUE.equals(map.get("debug")), (String) map.get("logLevel"),
                path(map.get("experimentWorkingDirectory")), algorithm(map.get("tuner")), algorithm(map.get("assessor")),
                (List<Map<String, Object>>) map.get("trainingServices"), (Map<String, Object>) map.get("canonical"),
                (List<String>) map.get("secrets"));
    }

    private static Map<String, Object> algorithm(AlgorithmConfig algorithm) {
        if (algorithm == null) {
            return null;
        }
        Map<String, Object> map = new LinkedHashMap<>();
        map.put("name", algorithm.name());
        map.put("className", algorithm.className());
        map.put("codeDirectory", string(algorithm.codeDirectory()));
        map.put("classArgs", algorithm.classArgs());
        map.put("implementation", algorithm.implementation());
        return map;
    }

    @SuppressWarnings("unchecked")
    private static AlgorithmConfig algorithm(Object value) {
        if (!(value instanceof Map<?, ?> map)) {
            return null;
        }
        return new AlgorithmConfig((String) map.get("name"), (String) map.get("className"),
                path(map.get("codeDirectory")), (Map<String, Object>) map.get("classArgs"), (String) map.get("implementation"));
    }

    private static String string(Path path) {
        return path == null ? null : path.toString();
    }

    private static Path path(Object value) {
        return value == null ? null : Path.of(value.toString());
    }

    private static Long millis(Duration duration) {
        return duration == null ? null : duration.toMillis();
    }

    private static Duration duration(Object value) {
        return value == null ? null : Duration.ofMillis(((Number) value).longValue());
    }

    private static Integer integer(Object value) {
        return value == null ? null : ((Number) value).intValue();
    }
}
