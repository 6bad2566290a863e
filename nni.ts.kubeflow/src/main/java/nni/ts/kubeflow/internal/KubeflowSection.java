package nni.ts.kubeflow.internal;

import java.nio.file.Path;
import java.util.Map;

import nni.api.config.ConfigReader;
import nni.api.config.SectionCheck;
import nni.ts.k8s.K8sStorage;

/**
 * NNI's {@code KubeflowConfig} and {@code KubeflowRoleConfig}: the rules of a
 * {@code platform: kubeflow} section, plus what the operators require of the roles: a TFJob needs
 * a {@code worker} or a {@code master} (its Chief), a PyTorchJob a {@code master} and no {@code ps}.
 */
final class KubeflowSection {

    static final String[] ROLES = {"worker", "ps", "master"};

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
        reader.oneOf("apiVersion", null, true, "v1alpha2", "v1beta1", "v1beta2", "v1");
        K8sStorage.check(reader);
        boolean[] present = new boolean[ROLES.length];
        for (int i = 0; i < ROLES.length; i++) {
            ConfigReader role = reader.object(ROLES[i], false);
            if (role != null) {
                present[i] = true;
                role.requiredInteger("replicas", 0, Integer.MAX_VALUE);
                role.requiredString("command");
                role.integer("gpuNumber", 0, 0, Integer.MAX_VALUE);
                role.requiredInteger("cpuNumber", 0, Integer.MAX_VALUE);
                role.size("memorySize", true);
                role.string("dockerImage", "msranni/nni:latest");
                role.requiredString("codeDirectory");
            }
        }
        if ("tf-operator".equals(operator) && !present[0] && !present[2]) {
            reader.problem("", "tf-operator runs a TFJob: give a worker (or a master, its Chief) to run the trial");
        }
        if ("pytorch-operator".equals(operator)) {
            if (!present[2]) {
                reader.problem("", "pytorch-operator runs a PyTorchJob: give a master (and optionally workers) to run the trial");
            }
            if (present[1]) {
                reader.problem("ps", "a PyTorchJob has no parameter servers: its replicas are master and worker");
            }
        }
        reader.bool("reuseMode", true);
        reader.string("namespace", "default");
        return reader.check();
    }
}
