package nni.ts.openpai.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;

import nni.api.config.ConfigReader;
import nni.api.config.SectionCheck;
import nni.api.config.Units;

/**
 * NNI's {@code OpenpaiConfig}: the rules of a {@code platform: openpai} section, and the settings a
 * session reads from the checked section.
 */
final class OpenpaiSection {

    private static final YAMLMapper YAML = new YAMLMapper();

    /** A checked section, as a session uses it. */
    record Settings(String host, String username, String token, int trialCpuNumber, long memoryMB, int trialGpuNumber,
                    String storageConfigName, String dockerImage, String virtualCluster, Path localStorageMountPoint,
                    String containerStorageMountPoint, boolean reuseMode, Map<String, Object> openpaiConfig,
                    String nniManagerIp) {

        /** @return how messages name the cluster and the user: never the token */
        String service() {
            return "OpenPAI at " + host + " (user " + username + ")";
        }
    }

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
        // NNI's dataclass wants it given, null for the default cluster: NNI 3.0 refuses a file without it
        // ("virtual_cluster is not set"), its own v2.x examples among them
        if (!reader.has("virtualCluster")) {
            reader.problem("virtualCluster", "virtualCluster is not set: give the virtual cluster's name, or null for OpenPAI's default");
        }
        reader.string("virtualCluster");
        reader.directory("localStorageMountPoint", null, true);
        String container = reader.requiredString("containerStorageMountPoint");
        if (container != null && !container.startsWith("/")) {
            reader.problem("containerStorageMountPoint", "expected an absolute path in the container, got \"" + container + "\"");
        }
        reader.bool("reuseMode", true);
        Map<String, Object> inline = reader.mapping("openpaiConfig");
        Path file = reader.path("openpaiConfigFile", null, false);
        if (inline != null && file != null) {
            reader.problem("openpaiConfigFile", "give either openpaiConfig or openpaiConfigFile, not both");
        } else if (inline != null) {
            checkJobProtocol(reader, "openpaiConfig", inline);
        } else if (file != null) {
            if (!Files.isRegularFile(file)) {
                reader.problem("openpaiConfigFile", "expected an existing file, got \"" + file + "\"");
            } else {
                try {
                    checkJobProtocol(reader, "openpaiConfigFile", read(file));
                } catch (IOException e) {
                    reader.problem("openpaiConfigFile", "cannot read " + file + " as a YAML job protocol: "
                            + (e instanceof JsonProcessingException j ? j.getOriginalMessage()
                            + (j.getLocation() == null ? "" : " at line " + j.getLocation().getLineNr()) : e.getMessage()));
                }
            }
        }
        return reader.check();
    }

    /**
     * What NNI itself needs of an embedded job protocol: task roles, each with its commands (NNI
     * replaces them). The rest is OpenPAI's to check when the job is submitted.
     */
    private static void checkJobProtocol(ConfigReader reader, String key, Map<String, Object> protocol) {
        if (!(protocol.get("taskRoles") instanceof Map<?, ?> roles) || roles.isEmpty()) {
            reader.problem(key, "expected a job protocol with at least one task role under taskRoles");
            return;
        }
        for (Map.Entry<?, ?> role : roles.entrySet()) {
            String at = "taskRoles." + role.getKey();
            if (!(role.getValue() instanceof Map<?, ?> body)) {
                reader.problem(key, at + ": expected a mapping");
            } else if (!(body.get("commands") instanceof List<?> commands) || commands.isEmpty()
                    || !commands.stream().allMatch(c -> c instanceof String)) {
                reader.problem(key, at + ".commands: expected a list of command strings");
            } else if (body.get("instances") != null && !(body.get("instances") instanceof Integer n && n >= 1)) {
                reader.problem(key, at + ".instances: expected a whole number of at least 1, got " + body.get("instances"));
            }
        }
    }

    static Map<String, Object> read(Path file) throws IOException {
        Map<String, Object> protocol = YAML.readValue(file.toFile(), new TypeReference<Map<String, Object>>() { });
        if (protocol == null) {
            throw new IOException("the file is empty");
        }
        return protocol;
    }

    /** @return the settings of a section {@link #check} accepted (secrets with their real values) */
    @SuppressWarnings("unchecked")
    static Settings settings(Map<String, Object> section) throws IOException {
        Map<String, Object> protocol = (Map<String, Object>) section.get("openpaiConfig");
        if (protocol == null && section.get("openpaiConfigFile") != null) {
            protocol = read(Path.of(section.get("openpaiConfigFile").toString()));
        }
        Object gpus = section.get("trialGpuNumber");
        return new Settings(String.valueOf(section.get("host")), String.valueOf(section.get("username")),
                String.valueOf(section.get("token")), ((Number) section.get("trialCpuNumber")).intValue(),
                Units.megabytes(section.get("trialMemorySize")), gpus == null ? 0 : ((Number) gpus).intValue(),
                String.valueOf(section.get("storageConfigName")), String.valueOf(section.get("dockerImage")),
                (String) section.get("virtualCluster"), Path.of(String.valueOf(section.get("localStorageMountPoint"))),
                stripSlash(String.valueOf(section.get("containerStorageMountPoint"))),
                !Boolean.FALSE.equals(section.get("reuseMode")), protocol, (String) section.get("nniManagerIp"));
    }

    private static String stripSlash(String path) {
        return path.length() > 1 && path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
    }
}
