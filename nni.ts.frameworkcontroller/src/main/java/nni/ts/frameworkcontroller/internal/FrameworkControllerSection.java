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
        java.util.Set<String> names = new java.util.HashSet<>();
        for (ConfigReader role : reader.objects("taskRoles", true)) {
            String name = role.requiredString("name");
            if (name != null && !name.matches("[a-z0-9]{1,63}")) {
                role.problem("name", "a FrameworkController task role name is 1 to 63 lower-case letters and digits, got \"" + name + "\"");
            } else if (name != null && !names.add(name)) {
                role.problem("name", "task role " + name + " is given twice");
            }
            role.string("dockerImage", "msranni/nni:latest");
            role.requiredInteger("taskNumber", 1, 10000);
            role.requiredString("command");
            role.requiredInteger("gpuNumber", 0, Integer.MAX_VALUE);
            role.requiredInteger("cpuNumber", 0, Integer.MAX_VALUE);
            role.size("memorySize", true);
            ConfigReader policy = role.object("frameworkAttemptCompletionPolicy", true);
            if (policy != null) {
                // -1: all tasks, as FrameworkController reads it
                policy.requiredInteger("minFailedTaskCount", -1, Integer.MAX_VALUE);
                policy.requiredInteger("minSucceedTaskCount", -1, Integer.MAX_VALUE);
            }
        }
        reader.bool("reuseMode", true);
        reader.string("namespace", "default");
        return reader.check();
    }
}
