package nni.ts.dlc.internal;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import nni.api.config.ConfigReader;
import nni.api.config.SectionCheck;

/** NNI's {@code DlcConfig} (Alibaba PAI-DLC): the rules of a {@code platform: dlc} section, and the settings a session reads. */
final class DlcSection {

    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * A checked section, as a session uses it.
     *
     * @param resourceConfig NNI's dict form of {@code ecsSpec} (resource-group jobs), or null for an ECS instance type
     */
    record Settings(String type, String image, String jobType, int podCount, String ecsSpec, JsonNode resourceConfig,
                    String region, String workspaceId, String nasDataSourceId, String ossDataSourceId, String accessKeyId,
                    String accessKeySecret, Path localStorageMountPoint, String containerStorageMountPoint, String nniManagerIp) {

        /** @return how messages name the service: never the secret */
        String service() {
            return "PAI-DLC in region " + region + " (AccessKey " + accessKeyId + ")";
        }
    }

    private DlcSection() {
    }

    static SectionCheck check(Map<String, Object> section, Path baseDirectory) {
        ConfigReader reader = ConfigReader.of(section, baseDirectory);
        reader.trainingServiceFields(true);
        reader.string("type", "Worker");
        reader.requiredString("image");
        reader.oneOf("jobType", "TFJob", false, "TFJob", "PyTorchJob");
        reader.requiredInteger("podCount", 1, Integer.MAX_VALUE);
        String ecsSpec = reader.requiredString("ecsSpec");
        if (ecsSpec != null && ecsSpec.strip().startsWith("{")) {
            try {
                resourceConfig(ecsSpec);
            } catch (IOException e) {
                reader.problem("ecsSpec", "expected an ECS instance type or a dict such as {'resource_id': 'rg-x', 'cpu': 1, "
                        + "'memory': 2, 'gpu': 0, 'gputype': '', 'shared_memory': ''}, got \"" + ecsSpec + "\"");
            }
        }
        reader.requiredString("region");
        reader.requiredString("workspaceId");
        reader.requiredString("nasDataSourceId");
        reader.string("ossDataSourceId");
        reader.requiredString("accessKeyId");
        reader.secret("accessKeySecret", true);
        reader.requiredString("localStorageMountPoint");
        String container = reader.requiredString("containerStorageMountPoint");
        if (container != null && !container.startsWith("/")) {
            reader.problem("containerStorageMountPoint", "expected an absolute path in the container, got \"" + container + "\"");
        }
        return reader.check();
    }

    /** NNI's dict form of {@code ecsSpec}, a Python literal: {@code {'resource_id': ..., 'cpu': 1, 'memory': 2, ...}}. */
    static JsonNode resourceConfig(String ecsSpec) throws IOException {
        String json = ecsSpec.strip().replace('\'', '"').replace("True", "true").replace("False", "false").replace("None", "null");
        JsonNode node = JSON.readTree(json);
        if (node == null || !node.isObject() || !node.has("resource_id")) {
            throw new IOException("no resource_id");
        }
        return node;
    }

    /** @return the settings of a section {@link #check} accepted (the secret with its real value) */
    static Settings settings(Map<String, Object> section) throws IOException {
        String ecsSpec = String.valueOf(section.get("ecsSpec"));
        JsonNode resourceConfig = ecsSpec.strip().startsWith("{") ? resourceConfig(ecsSpec) : null;
        String workspace = String.valueOf(section.get("workspaceId"));
        Object oss = section.get("ossDataSourceId");
        String container = String.valueOf(section.get("containerStorageMountPoint"));
        return new Settings(String.valueOf(section.get("type")), String.valueOf(section.get("image")), String.valueOf(section.get("jobType")),
                ((Number) section.get("podCount")).intValue(), ecsSpec, resourceConfig, String.valueOf(section.get("region")),
                workspace.equals("None") ? null : workspace, String.valueOf(section.get("nasDataSourceId")),
                oss == null || oss.toString().equals("None") || oss.toString().isBlank() ? null : oss.toString(),
                String.valueOf(section.get("accessKeyId")), String.valueOf(section.get("accessKeySecret")),
                Path.of(String.valueOf(section.get("localStorageMountPoint"))),
                container.length() > 1 && container.endsWith("/") ? container.substring(0, container.length() - 1) : container,
                (String) section.get("nniManagerIp"));
    }
}
