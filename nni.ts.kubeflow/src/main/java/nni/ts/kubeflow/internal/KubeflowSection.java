package nni.ts.kubeflow.internal;

import java.nio.file.Path;
import java.util.Map;

import nni.api.config.ConfigReader;
import nni.api.config.SectionCheck;
import nni.ts.k8s.K8sStorage;

/** NNI's {@code KubeflowConfig} and {@code KubeflowRoleConfig}: the rules of a {@code platform: kubeflow} section. */
final class KubeflowSection {

    private KubeflowSection() {
    }

    static SectionCheck check(Map<String, Object> section, Path baseDirectory) {
        ConfigReader reader = ConfigReader.of(section, baseDirectory);
        reader.trainingServiceFields(false);
        if (reader.canonical("trialCommand") == null) {
            // the roles carry the commands; NNI canonicalizes an absent trialCommand to ''
            reader.set("trialCommand", "");
        }
        String operator = reader.oneOf("operator", null, true, "tf-operator", "pytorch-operator");
        reader.requiredString("apiVersion");
        K8sStorage.check(reader);
        boolean anyRole = false;
        for (String role : new String[] {"worker", "ps", "master"}) {
            ConfigReader roleReader = reader.object(role, false);
            if (roleReader != null) {
                anyRole = true;
                roleReader.requiredInteger("replicas", 0, Integer.MAX_VALUE);
                roleReader.requiredString("command");
                roleReader.integer("gpuNumber", 0, 0, Integer.MAX_VALUE);
                roleReader.requiredInteger("cpuNumber", 0, Integer.MAX_VALUE);
                roleReader.size("memorySize", true);
                roleReader.string("dockerImage", "msranni/nni:latest");
                roleReader.requiredString("codeDirectory");
            }
        }
        if (!anyRole && operator != null) {
            reader.problem("", "expected at least one role (worker, ps or master) to run the trial");
        }
        reader.bool("reuseMode", true);
        reader.string("namespace", "default");
        return reader.check();
    }
}
