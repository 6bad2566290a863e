package nni.ts.openpai.internal;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import nni.api.config.ConfigReader;
import nni.api.config.SectionCheck;

/** NNI's {@code OpenpaiConfig}: the rules of a {@code platform: openpai} section. */
final class OpenpaiSection {

    private OpenpaiSection() {
    }

    static SectionCheck check(Map<String, Object> section, Path baseDirectory) {
        ConfigReader reader = ConfigReader.of(section, baseDirectory);
        reader.trainingServiceFields(true);
        if (reader.canonical("trialGpuNumber") == null && reader.problems().stream()
                .noneMatch(p -> p.path().equals("trialGpuNumber"))) {
            reader.problem("trialGpuNumber", "trialGpuNumber is required on OpenPAI (at the top level or here)");
        }
        String host = reader.requiredString("host");
        if (host != null && !host.contains("://")) {
            reader.set("host", "https://" + host);
        }
        reader.requiredString("username");
        reader.secret("token", true);
        reader.requiredInteger("trialCpuNumber", 1, Integer.MAX_VALUE);
        reader.size("trialMemorySize", true);
        reader.requiredString("storageConfigName");
        reader.string("dockerImage", "msranni/nni:latest");
        if (!reader.has("virtualCluster")) {
            reader.problem("virtualCluster", "virtualCluster is required (give null for the default cluster)");
        }
        reader.string("virtualCluster");
        reader.directory("localStorageMountPoint", null, true);
        reader.requiredString("containerStorageMountPoint");
        reader.bool("reuseMode", true);
        Map<String, Object> inline = reader.mapping("openpaiConfig");
        Path file = reader.path("openpaiConfigFile", null, false);
        if (inline != null && file != null) {
            reader.problem("openpaiConfigFile", "give either openpaiConfig or openpaiConfigFile, not both");
        } else if (file != null && !Files.isRegularFile(file)) {
            reader.problem("openpaiConfigFile", "expected an existing file, got \"" + file + "\"");
        }
        return reader.check();
    }
}
