package nni.ts.k8s;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * NNI's conventions for the objects its Kubernetes platforms create, and the pod pieces they all
 * use: the labels ({@code app: nni-kubernetes-trial}, {@code expId}, {@code trialId} or
 * {@code envId}), the names, the storage volume at {@code /tmp/mount}, requests equal to limits,
 * the keeper's environment. Objects are plain maps in the operators' JSON shapes, so that they can
 * be checked against the operators' schemas without a cluster.
 */
public final class NniObjects {

    public static final String APP = "nni-kubernetes-trial";
    public static final String STORAGE_VOLUME = "nni-vol";

    private NniObjects() {
    }

    /** @return {@code app}, {@code expId} and {@code trialId} (one keeper per trial) or {@code envId} */
    public static Map<String, String> labels(String experimentId, boolean perTrial, String id) {
        Map<String, String> labels = new LinkedHashMap<>(experimentLabels(experimentId));
        labels.put(perTrial ? "trialId" : "envId", id);
        return labels;
    }

    /** @return the labels every object of the experiment carries */
    public static Map<String, String> experimentLabels(String experimentId) {
        Map<String, String> labels = new LinkedHashMap<>();
        labels.put("app", APP);
        labels.put("expId", experimentId);
        return labels;
    }

    /** @return NNI's per-trial name {@code nni-exp-<exp>-trial-<trial>}, lower-cased (Kubeflow, AdaptDL) */
    public static String dashedTrialName(String experimentId, String trialId) {
        return ("nni-exp-" + experimentId + "-trial-" + trialId).toLowerCase(Locale.ROOT);
    }

    /** @return NNI's compact names {@code nniexp<exp>trial<trial>} / {@code nniexp<exp>env<env>}, lower-cased */
    public static String compactName(String experimentId, boolean perTrial, String id) {
        return ("nniexp" + experimentId + (perTrial ? "trial" : "env") + id).toLowerCase(Locale.ROOT);
    }

    /** @return the name of the Secret holding an environment's keeper token */
    public static String tokenSecretName(String objectName) {
        return objectName + "-keeper-token";
    }

    /** @return {@code metadata} with name, namespace and labels */
    public static Map<String, Object> metadata(String name, String namespace, Map<String, String> labels) {
        Map<String, Object> metadata = new LinkedHashMap<>();
        metadata.put("name", name);
        metadata.put("namespace", namespace);
        metadata.put("labels", new LinkedHashMap<>(labels));
        return metadata;
    }

    /**
     * @return NNI's {@code generatePodResource}: requests and limits both {@code memory: <MB>Mi}
     *         and {@code cpu: <n>}, plus {@code nvidia.com/gpu} only when GPUs are asked for
     */
    public static Map<String, Object> resources(long cpu, long memoryMegabytes, long gpus) {
        Map<String, Object> amounts = new LinkedHashMap<>();
        amounts.put("memory", memoryMegabytes + "Mi");
        amounts.put("cpu", Long.toString(cpu));
        if (gpus > 0) {
            amounts.put("nvidia.com/gpu", Long.toString(gpus));
        }
        Map<String, Object> resources = new LinkedHashMap<>();
        resources.put("requests", amounts);
        resources.put("limits", new LinkedHashMap<>(amounts));
        return resources;
    }

    /** @return the mount of the experiment's share ({@link ExperimentShare#volume()}) at {@code /tmp/mount} */
    public static Map<String, Object> storageMount() {
        return Map.of("name", STORAGE_VOLUME, "mountPath", ExperimentShare.CONTAINER_PATH);
    }

    /**
     * @return the environment every container of an environment gets: where the keeper and the
     *         work directory are, the role's command, the token (from the environment's Secret, from
     *         its key in the Secret {@code keeper.token.secret} names, or as a plain value with
     *         {@code keeper.token=environment}),
     *         and {@code CUDA_VISIBLE_DEVICES=""} for a role without GPUs (NNI's work-around for
     *         NVIDIA's device plugin, which shows every GPU to containers that asked for none)
     */
    public static List<Map<String, Object>> keeperEnvironment(KeeperPlacement placement, String roleCommand, long gpus) {
        List<Map<String, Object>> env = new ArrayList<>();
        env.add(variable(KeeperScript.HOME, placement.home()));
        env.add(variable(KeeperScript.WORK, placement.work()));
        env.add(variable(KeeperScript.ROLE_COMMAND, roleCommand));
        if (placement.channel() != null) {
            env.add(variable(KeeperScript.CHANNEL, placement.channel()));
        }
        if (placement.tokenValue() != null) {
            env.add(variable(nni.api.environment.EnvironmentSpec.TOKEN_VARIABLE, placement.tokenValue()));
        } else {
            env.add(Map.of("name", nni.api.environment.EnvironmentSpec.TOKEN_VARIABLE, "valueFrom",
                    Map.of("secretKeyRef", Map.of("name", placement.tokenSecret(), "key", placement.tokenKey()))));
        }
        if (gpus == 0) {
            env.add(variable("CUDA_VISIBLE_DEVICES", ""));
        }
        return env;
    }

    private static Map<String, Object> variable(String name, String value) {
        Map<String, Object> variable = new LinkedHashMap<>();
        variable.put("name", name);
        variable.put("value", value);
        return variable;
    }

    /**
     * Where an environment's keeper finds its files in the container and works.
     *
     * @param home        the folder with the keeper file(s) and the code archive
     * @param work        the keeper's directory
     * @param tokenSecret the Secret with the keeper's token
     * @param tokenKey    the token's key in that Secret ({@code token} in a Secret of its own)
     * @param tokenValue  the token itself, given as a plain value instead ({@link KeeperToken#ENVIRONMENT}), or null
     * @param channel     the keeper's channel folder (file transport) when it is not below {@code home}, or null:
     *                    given as {@value KeeperScript#CHANNEL}
     */
    public record KeeperPlacement(String home, String work, String tokenSecret, String tokenKey, String tokenValue, String channel) {

        public KeeperPlacement(String home, String work, String tokenSecret) {
            this(home, work, tokenSecret, "token", null, null);
        }

        /** @return this placement with the token given as a plain value, no Secret */
        public KeeperPlacement withPlainToken(String token) {
            return new KeeperPlacement(home, work, null, null, token, channel);
        }

        /** @return this placement with the token under {@code key} of a Secret shared by the environments ({@link KeeperToken#NAMED_SECRET}) */
        public KeeperPlacement withSharedSecret(String secret, String key) {
            return new KeeperPlacement(home, work, secret, key, null, channel);
        }

        /** @return this placement with the keeper's channel folder, given as a variable unless it is below {@code home} (or null) */
        public KeeperPlacement withChannel(String folder) {
            boolean belowHome = folder != null && folder.startsWith(home + "/");
            return new KeeperPlacement(home, work, tokenSecret, tokenKey, tokenValue, belowHome ? null : folder);
        }
    }
}
