package nni.ts.kubeflow.internal;

import java.nio.file.Path;
import java.util.Map;

import nni.api.config.ConfigReader;
import nni.api.config.SectionCheck;
import nni.ts.k8s.K8sStorage;

/**
 * NNI's {@code KubeflowConfig} and {@code KubeflowRoleConfig}: the rules of a
 * {@code platform: kubeflow} section, plus what the operators require of the roles: a TFJob needs
 * a {@code worker} or a {@code master} (its Chief), a PyTorchJob a {@code master} and no {@code ps};
 * and what training-operator's admission webhook refuses at creation, refused here at once: a
 * PyTorchJob's master has exactly 1 replica, and a TFJob has at most one Chief (a master of more than
 * 1 replica would be several).
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
        ConfigReader master = null;
        Integer masterReplicas = null;
        for (int i = 0; i < ROLES.length; i++) {
            ConfigReader role = reader.object(ROLES[i], false);
            if (role != null) {
                present[i] = true;
                Integer replicas = role.requiredInteger("replicas", 0, Integer.MAX_VALUE);
                if (ROLES[i].equals("master")) {
                    master = role;
                    masterReplicas = replicas;
                }
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
        if ("tf-operator".equals(operator) && masterReplicas != null && masterReplicas > 1) {
            master.problem("replicas", "a TFJob has at most one Chief: the master takes 0 or 1 replicas, got " + masterReplicas
                    + " (training-operator refuses more than one Chief or Master)");
        }
        if ("pytorch-operator".equals(operator) && masterReplicas != null && masterReplicas != 1) {
            master.problem("replicas", "a PyTorchJob's master takes exactly 1 replica, got " + masterReplicas
                    + " (training-operator refuses any other number); give more workers instead");
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
