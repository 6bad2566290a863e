package nni.ts.frameworkcontroller.internal;

import java.nio.file.Path;
import java.util.Map;

import nni.api.config.ConfigReader;
import nni.api.config.SectionCheck;
import nni.ts.k8s.K8sStorage;

/**
 * NNI's {@code FrameworkControllerConfig} and {@code FrameworkControllerRoleConfig}: the rules of a
 * {@code platform: frameworkcontroller} section.
 */
final class FrameworkControllerSection {

    private FrameworkControllerSection() {
    }

    static SectionCheck check(Map<String, Object> section, Path baseDirectory) {
        ConfigReader reader = ConfigReader.of(section, baseDirectory);
        reader.trainingServiceFields(false);
        if (reader.canonical("trialCommand") == null) {
            reader.set("trialCommand", "");
        }
        K8sStorage.check(reader);
        if (!reader.has("serviceAccountName")) {
            reader.problem("serviceAccountName", "serviceAccountName is required (give null for the namespace's default account)");
        }
        reader.string("serviceAccountName");
        for (ConfigReader role : reader.objects("taskRoles", true)) {
            role.requiredString("name");
            role.string("dockerImage", "msranni/nni:latest");
            role.requiredInteger("taskNumber", 1, Integer.MAX_VALUE);
            role.requiredString("command");
            role.requiredInteger("gpuNumber", 0, Integer.MAX_VALUE);
            role.requiredInteger("cpuNumber", 0, Integer.MAX_VALUE);
            role.size("memorySize", true);
            ConfigReader policy = role.object("frameworkAttemptCompletionPolicy", true);
            if (policy != null) {
                policy.requiredInteger("minFailedTaskCount", Integer.MIN_VALUE, Integer.MAX_VALUE);
                policy.requiredInteger("minSucceedTaskCount", Integer.MIN_VALUE, Integer.MAX_VALUE);
            }
        }
        reader.bool("reuseMode", true);
        reader.string("namespace", "default");
        return reader.check();
    }
}
