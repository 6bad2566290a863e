package nni.ts.aml.internal;

import java.nio.file.Path;
import java.util.Map;

import nni.api.config.ConfigReader;
import nni.api.config.SectionCheck;

/** NNI's {@code AmlConfig}: the rules of a {@code platform: aml} section, and the settings a session reads from it. */
final class AmlSection {

    /** A checked section, as a session uses it. */
    record Settings(String subscriptionId, String resourceGroup, String workspaceName, String computeTarget,
                    String dockerImage, String nniManagerIp) {

        /** @return the workspace's Azure Resource Manager id */
        String workspaceId() {
            return "/subscriptions/" + subscriptionId + "/resourceGroups/" + resourceGroup
                    + "/providers/Microsoft.MachineLearningServices/workspaces/" + workspaceName;
        }

        /** @return how messages name the workspace */
        String service() {
            return "Azure ML workspace " + workspaceName + " (resource group " + resourceGroup + ", subscription "
                    + subscriptionId + ")";
        }
    }

    private AmlSection() {
    }

    static SectionCheck check(Map<String, Object> section, Path baseDirectory) {
        ConfigReader reader = ConfigReader.of(section, baseDirectory);
        reader.trainingServiceFields(true);
        reader.requiredString("subscriptionId");
        reader.requiredString("resourceGroup");
        reader.requiredString("workspaceName");
        reader.requiredString("computeTarget");
        reader.string("dockerImage", "msranni/nni:latest");
        reader.integer("maxTrialNumberPerGpu", 1, 1, Integer.MAX_VALUE);
        return reader.check();
    }

    /** @return the settings of a section {@link #check} accepted */
    static Settings settings(Map<String, Object> section) {
        return new Settings(String.valueOf(section.get("subscriptionId")), String.valueOf(section.get("resourceGroup")),
                String.valueOf(section.get("workspaceName")), String.valueOf(section.get("computeTarget")),
                String.valueOf(section.get("dockerImage")), (String) section.get("nniManagerIp"));
    }
}
