package nni.config.v1.internal;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import nni.api.config.ConfigConversion;
import nni.api.config.ConfigProblem;
import nni.api.config.KeyPaths;
import nni.api.config.Units;

/**
 * Converts an NNI v1 experiment file ({@code authorName}, {@code trainingServicePlatform},
 * {@code trial:}, ...) to the v2 form, as NNI's {@code convert.to_v2} does, and records for every
 * moved value the v1 key path it came from, so that the manager points problems it finds in the v2
 * form into the v1 file.
 * Beyond NNI, it also converts {@code adl}, {@code dlts} and {@code hybrid} files, which NNI cannot
 * convert, to sections with platforms {@code adl}, {@code dlts} and a training-service list.
 *
 * <p>v1 keys are matched exactly, as the v1 schema did. Keys NNI drops with a warning are dropped;
 * keys no v1 schema knows are problems.
 */
final class V1Converter {

    private static final Set<String> DROPPED = Set.of("authorName", "description", "multiThread", "versionCheck",
            "logCollection", "trainingServicePlatform");
    private static final List<String> PLATFORMS = List.of("local", "remote", "pai", "kubeflow", "frameworkcontroller",
            "aml", "adl", "dlts", "hybrid");

    /** A deep copy of the file's mapping: conversion takes values out of it to find the keys left over. */
    private final Map<String, Object> v1;
    /** Every key path of the v1 file, as it was before conversion took anything out. */
    private final List<String> sourcePaths = new ArrayList<>();
    private final Set<String> sourcePathSet = new HashSet<>();
    /** v2 key path to the v1 key path it came from. */
    private final Map<String, String> origins = new LinkedHashMap<>();
    private final List<ConfigProblem> problems = new ArrayList<>();
    private final Set<String> used = new LinkedHashSet<>();

    private V1Converter(Map<String, Object> root) {
        this.v1 = KeyPaths.copy(root);
        collectPaths(v1, "");
        sourcePathSet.addAll(sourcePaths);
    }

    private void collectPaths(Object node, String path) {
        sourcePaths.add(path);
        if (node instanceof Map<?, ?> map) {
            map.forEach((key, value) -> collectPaths(value, child(path, String.valueOf(key))));
        } else if (node instanceof List<?> list) {
            for (int i = 0; i < list.size(); i++) {
                collectPaths(list.get(i), path + "[" + i + "]");
            }
        }
    }

    /** @return whether NNI would treat the file as v1: a truthy top-level {@code trainingServicePlatform} */
    static boolean isV1(Map<String, Object> root) {
        Object platform = root.get("trainingServicePlatform");
        return platform != null && !Boolean.FALSE.equals(platform) && !"".equals(platform);
    }

    /** @return the v2 form, the v1 origin of its values, and the problems conversion found (paths in v1 spelling) */
    static ConfigConversion convert(Map<String, Object> root) {
        V1Converter converter = new V1Converter(root);
        ConfigConversion.Builder result = ConfigConversion.builder(converter.run());
        converter.origins.forEach(result::origin);
        converter.problems.forEach(result::problem);
        return result.build();
    }

    private Map<String, Object> run() {
        Map<String, Object> v2 = new LinkedHashMap<>();
        origins.put("", "");
        String platform = String.valueOf(v1.get("trainingServicePlatform"));
        if (!PLATFORMS.contains(platform)) {
            problem("trainingServicePlatform", "expected one of " + String.join(", ", PLATFORMS) + ", got \"" + platform + "\"");
        }
        DROPPED.forEach(used::add);
        if (Boolean.TRUE.equals(v1.get("multiPhase"))) {
            problem("multiPhase", "multi-phase experiments are no longer supported (NNI 2.0 dropped them)");
        }
        used.add("multiPhase");
        moveAll(v1, "", v2, "",
                "experimentName", "experimentName", "trialConcurrency", "trialConcurrency",
                "maxExecDuration", "maxExperimentDuration", "maxTrialNum", "maxTrialNumber",
                "maxTrialDuration", "maxTrialDuration", "searchSpacePath", "searchSpaceFile",
                "nniManagerIp", "nniManagerIp", "logDir", "experimentWorkingDirectory", "debug", "debug",
                "logLevel", "logLevel", "useAnnotation", "useAnnotation", "sharedStorage", "sharedStorage");

        Map<String, Object> trial = mapping(v1, "", "trial");
        if (trial != null) {
            moveAll(trial, "trial", v2, "",
                    "command", "trialCommand", "codeDir", "trialCodeDirectory", "gpuNum", "trialGpuNumber");
        }
        for (String kind : List.of("tuner", "assessor", "advisor")) {
            Map<String, Object> algorithm = mapping(v1, "", kind);
            if (algorithm != null) {
                v2.put(kind, algorithm(algorithm, kind, v2));
            }
        }

        if (platform.equals("hybrid")) {
            Map<String, Object> hybrid = mapping(v1, "", "hybridConfig");
            List<Object> services = new ArrayList<>();
            Object platforms = hybrid == null ? null : hybrid.get("trainingServicePlatforms");
            if (platforms instanceof List<?> list) {
                for (Object each : list) {
                    String at = "trainingService[" + services.size() + "]";
                    services.add(service(String.valueOf(each), trial, v2, at));
                    alias("hybridConfig.trainingServicePlatforms[" + (services.size() - 1) + "]", at);
                }
                hybrid.remove("trainingServicePlatforms");
                leftovers(hybrid, "hybridConfig");
            } else {
                problem("hybridConfig.trainingServicePlatforms", "expected the list of platforms of a hybrid experiment");
            }
            v2.put("trainingService", services);
        } else {
            v2.put("trainingService", service(platform, trial, v2, "trainingService"));
            alias("trainingServicePlatform", "trainingService.platform");
        }
        if (trial != null) {
            leftovers(trial, "trial");
        }
        for (String key : v1.keySet()) {
            if (!used.contains(key)) {
                problem(key, "unknown key \"" + key + "\" in a v1 experiment file (trainingServicePlatform makes it v1)");
            }
        }
        // a v2 field the file leaves out has no line of its own: a problem with it points at the v1 key it belongs to
        List<String> sections = new ArrayList<>(List.of("trainingService"));
        if (v2.get("trainingService") instanceof List<?> services) {
            for (int i = 0; i < services.size(); i++) {
                sections.add("trainingService[" + i + "]");
            }
        }
        for (String section : sections) {
            near(section, platform.equals("hybrid") ? "hybridConfig" : "trainingServicePlatform");
            for (String field : List.of("trialCommand", "trialCodeDirectory", "trialGpuNumber")) {
                near(section + "." + field, "trial");
                near(field, "trial");
            }
        }
        return v2;
    }

    /** Gives {@code v2Path} the origin {@code v1Path}, when the file has it and {@code v2Path} has no origin of its own. */
    private void near(String v2Path, String v1Path) {
        if (sourcePathSet.contains(v1Path)) {
            origins.putIfAbsent(v2Path, v1Path);
        }
    }

    private Map<String, Object> algorithm(Map<String, Object> algorithm, String kind, Map<String, Object> v2) {
        Map<String, Object> result = new LinkedHashMap<>();
        String name = "builtin" + Character.toUpperCase(kind.charAt(0)) + kind.substring(1) + "Name";
        move(algorithm, kind, name, result, kind, "name");
        Object className = algorithm.remove("className");
        Object file = algorithm.remove("classFileName");
        if (className != null || file != null) {
            String module = String.valueOf(file);
            module = module.endsWith(".py") ? module.substring(0, module.length() - 3) : module;
            result.put("className", module + "." + className);
            alias(kind + (className != null ? ".className" : ".classFileName"), kind + ".className");
        }
        move(algorithm, kind, "codeDir", result, kind, "codeDirectory");
        move(algorithm, kind, "classArgs", result, kind, "classArgs");
        move(algorithm, kind, "gpuIndices", v2, "", "tunerGpuIndices");
        move(algorithm, kind, "includeIntermediateResults", result, kind, "includeIntermediateResults");
        leftovers(algorithm, kind);
        return result;
    }

    private Map<String, Object> service(String platform, Map<String, Object> trial, Map<String, Object> v2, String at) {
        Map<String, Object> service = new LinkedHashMap<>();
        String v2Platform = platform.equals("pai") ? "openpai" : platform;
        service.put("platform", v2Platform);
        Map<String, Object> trialCopy = trial == null ? new LinkedHashMap<>() : trial;
        switch (platform) {
            case "local" -> {
                Map<String, Object> local = mapping(v1, "", "localConfig");
                if (local != null) {
                    moveAll(local, "localConfig", service, at,
                            "gpuIndices", "gpuIndices", "maxTrialNumPerGpu", "maxTrialNumberPerGpu",
                            "useActiveGpu", "useActiveGpu");
                    leftovers(local, "localConfig");
                }
            }
            case "remote" -> {
                Map<String, Object> remote = mapping(v1, "", "remoteConfig");
                if (remote != null) {
                    move(remote, "remoteConfig", "reuse", service, at, "reuseMode");
                    leftovers(remote, "remoteConfig");
                }
                used.add("machineList");
                Object machines = v1.get("machineList");
                if (machines instanceof List<?> list) {
                    List<Object> converted = new ArrayList<>();
                    for (int i = 0; i < list.size(); i++) {
                        String v1At = "machineList[" + i + "]";
                        String v2At = at + ".machineList[" + i + "]";
                        alias(v1At, v2At);
                        converted.add(list.get(i) instanceof Map<?, ?> machine ? machine(cast(machine), v1At, v2At) : list.get(i));
                    }
                    service.put("machineList", converted);
                } else if (machines != null) {
                    service.put("machineList", machines);
                    alias("machineList", at + ".machineList");
                }
            }
            case "pai" -> {
                moveAll(trialCopy, "trial", service, at,
                        "nniManagerNFSMountPath", "localStorageMountPoint",
                        "containerNFSMountPath", "containerStorageMountPoint", "cpuNum", "trialCpuNumber",
                        "memoryMB", "trialMemorySize", "image", "dockerImage",
                        "virtualCluster", "virtualCluster", "paiStorageConfigName", "storageConfigName",
                        "paiConfigPath", "openpaiConfigFile");
                trialCopy.remove("shmMB");
                Map<String, Object> pai = mapping(v1, "", "paiConfig");
                if (pai != null) {
                    moveAll(pai, "paiConfig", service, at,
                            "userName", "username", "token", "token", "host", "host", "reuse", "reuseMode",
                            "gpuNum", "trialGpuNumber", "cpuNum", "trialCpuNumber",
                            "memoryMB", "trialMemorySize");
                    for (String dropped : List.of("passWord", "maxTrialNumPerGpu", "useActiveGpu")) {
                        pai.remove(dropped);
                    }
                    leftovers(pai, "paiConfig");
                }
            }
            case "aml" -> {
                move(trialCopy, "trial", "image", service, at, "dockerImage");
                Map<String, Object> aml = mapping(v1, "", "amlConfig");
                if (aml != null) {
                    for (String key : List.of("subscriptionId", "resourceGroup", "workspaceName", "computeTarget")) {
                        move(aml, "amlConfig", key, service, at, key);
                    }
                    move(aml, "amlConfig", "maxTrialNumPerGpu", service, at, "maxTrialNumberPerGpu");
                    aml.remove("useActiveGpu");
                    leftovers(aml, "amlConfig");
                }
            }
            case "kubeflow" -> {
                Map<String, Object> kubeflow = mapping(v1, "", "kubeflowConfig");
                if (kubeflow != null) {
                    move(kubeflow, "kubeflowConfig", "operator", service, at, "operator");
                    move(kubeflow, "kubeflowConfig", "apiVersion", service, at, "apiVersion");
                    service.put("storage", storage(kubeflow, "kubeflowConfig", at + ".storage"));
                    move(kubeflow, "kubeflowConfig", "reuse", service, at, "reuseMode");
                    move(kubeflow, "kubeflowConfig", "namespace", service, at, "namespace");
                    kubeflow.remove("uploadRetryCount");
                    leftovers(kubeflow, "kubeflowConfig");
                }
                trialCopy.remove("nasMode");
                for (String role : List.of("worker", "ps", "master")) {
                    Map<String, Object> v1Role = mapping(trialCopy, "trial", role);
                    if (v1Role != null) {
                        Map<String, Object> v2Role = role(v1Role, "trial." + role, at + "." + role);
                        v2Role.put("codeDirectory", v2.getOrDefault("trialCodeDirectory", "."));
                        service.put(role, v2Role);
                        trialCopy.remove(role);
                    }
                }
            }
            case "frameworkcontroller" -> {
                Map<String, Object> fc = mapping(v1, "", "frameworkcontrollerConfig");
                if (fc != null) {
                    // an explicit null (the namespace's default account, as v2 allows) is kept, unlike NNI's
                    // converter, which drops it and then refuses the file for lacking the field
                    if (fc.containsKey("serviceAccountName") && fc.get("serviceAccountName") == null) {
                        fc.remove("serviceAccountName");
                        service.put("serviceAccountName", null);
                        alias("frameworkcontrollerConfig.serviceAccountName", at + ".serviceAccountName");
                    } else {
                        move(fc, "frameworkcontrollerConfig", "serviceAccountName", service, at, "serviceAccountName");
                    }
                    service.put("storage", storage(fc, "frameworkcontrollerConfig", at + ".storage"));
                    move(fc, "frameworkcontrollerConfig", "reuse", service, at, "reuseMode");
                    move(fc, "frameworkcontrollerConfig", "namespace", service, at, "namespace");
                    // NNI does not convert configPath (a per-trial-mode template); the v2 roles replace it
                    fc.remove("configPath");
                    leftovers(fc, "frameworkcontrollerConfig");
                }
                // optional in v1's schema, but NNI's converter moves it only when given and v2 requires it
                // (possibly null): NNI 3.0 refuses a v1 file without it, and so do we
                Object roles = trialCopy.remove("taskRoles");
                if (roles instanceof List<?> list) {
                    List<Object> converted = new ArrayList<>();
                    for (int i = 0; i < list.size(); i++) {
                        String v1At = "trial.taskRoles[" + i + "]";
                        String v2At = at + ".taskRoles[" + i + "]";
                        alias(v1At, v2At);
                        if (list.get(i) instanceof Map<?, ?> role) {
                            Map<String, Object> v1Role = cast(role);
                            Map<String, Object> v2Role = new LinkedHashMap<>();
                            move(v1Role, v1At, "name", v2Role, v2At, "name");
                            move(v1Role, v1At, "taskNum", v2Role, v2At, "taskNumber");
                            Map<String, Object> policy = mapping(v1Role, v1At, "frameworkAttemptCompletionPolicy");
                            if (policy != null) {
                                Map<String, Object> v2Policy = new LinkedHashMap<>();
                                String p1 = v1At + ".frameworkAttemptCompletionPolicy";
                                String p2 = v2At + ".frameworkAttemptCompletionPolicy";
                                alias(p1, p2);
                                move(policy, p1, "minFailedTaskCount", v2Policy, p2, "minFailedTaskCount");
                                move(policy, p1, "minSucceededTaskCount", v2Policy, p2, "minSucceedTaskCount");
                                leftovers(policy, p1);
                                v2Role.put("frameworkAttemptCompletionPolicy", v2Policy);
                            }
                            v2Role.putAll(role(v1Role, v1At, v2At));
                            if (v2.get("trialCommand") == null || "".equals(v2.get("trialCommand"))) {
                                v2.put("trialCommand", v2Role.get("command"));
                            }
                            converted.add(v2Role);
                        } else {
                            converted.add(list.get(i));
                        }
                    }
                    service.put("taskRoles", converted);
                }
            }
            case "adl" -> {
                for (String key : List.of("image", "namespace", "imagePullSecrets", "nfs", "adaptive", "checkpoint",
                        "cpuNum", "memorySize")) {
                    move(trialCopy, "trial", key, service, at, key);
                }
            }
            case "dlts" -> {
                move(trialCopy, "trial", "image", service, at, "image");
                Map<String, Object> dlts = mapping(v1, "", "dltsConfig");
                if (dlts != null) {
                    for (String key : List.of("dashboard", "cluster", "team", "email", "password")) {
                        move(dlts, "dltsConfig", key, service, at, key);
                    }
                    leftovers(dlts, "dltsConfig");
                }
            }
            default -> {
                // unknown platform: reported above
            }
        }
        return service;
    }

    private Map<String, Object> machine(Map<String, Object> machine, String v1At, String v2At) {
        Map<String, Object> result = new LinkedHashMap<>();
        // NNI keeps 'passphrase' under that name, which the v2 machine does not have (an NNI bug); we
        // convert it to the v2 field so that the file works.
        moveAll(machine, v1At, result, v2At,
                "ip", "host", "port", "port", "username", "user", "sshKeyPath", "sshKeyFile",
                "passphrase", "sshPassphrase", "gpuIndices", "gpuIndices", "maxTrialNumPerGpu", "maxTrialNumberPerGpu",
                "useActiveGpu", "useActiveGpu", "pythonPath", "pythonPath", "passwd", "password");
        leftovers(machine, v1At);
        return result;
    }

    private Map<String, Object> role(Map<String, Object> role, String v1At, String v2At) {
        alias(v1At, v2At);
        Map<String, Object> result = new LinkedHashMap<>();
        moveAll(role, v1At, result, v2At, "replicas", "replicas", "command", "command", "gpuNum", "gpuNumber",
                "cpuNum", "cpuNumber", "memoryMB", "memorySize", "image", "dockerImage");
        role.remove("privateRegistryAuthPath");
        leftovers(role, v1At);
        return result;
    }

    private Map<String, Object> storage(Map<String, Object> config, String v1At, String v2At) {
        Map<String, Object> storage = new LinkedHashMap<>();
        Object kind = config.remove("storage");
        if (kind == null) {
            kind = config.containsKey("nfs") ? "nfs" : "azureStorage";
        }
        alias(v1At + ".storage", v2At + ".storageType");
        storage.put("storageType", kind);
        Map<String, Object> nfs = mapping(config, v1At, "nfs");
        if (nfs != null) {
            move(nfs, v1At + ".nfs", "server", storage, v2At, "server");
            move(nfs, v1At + ".nfs", "path", storage, v2At, "path");
            leftovers(nfs, v1At + ".nfs");
        }
        Map<String, Object> azure = mapping(config, v1At, "azureStorage");
        if (azure != null) {
            move(azure, v1At + ".azureStorage", "accountName", storage, v2At, "azureAccount");
            move(azure, v1At + ".azureStorage", "azureShare", storage, v2At, "azureShare");
            leftovers(azure, v1At + ".azureStorage");
        }
        Map<String, Object> vault = mapping(config, v1At, "keyVault");
        if (vault != null) {
            move(vault, v1At + ".keyVault", "vaultName", storage, v2At, "keyVaultName");
            move(vault, v1At + ".keyVault", "name", storage, v2At, "keyVaultKey");
            leftovers(vault, v1At + ".keyVault");
        }
        Map<String, Object> pvc = mapping(config, v1At, "pvc");
        if (pvc != null) {
            move(pvc, v1At + ".pvc", "path", storage, v2At, "path");
            leftovers(pvc, v1At + ".pvc");
        }
        return storage;
    }

    // ---- helpers ---------------------------------------------------------------------------------

    @SuppressWarnings("unchecked")
    private static Map<String, Object> cast(Map<?, ?> map) {
        return (Map<String, Object>) map;
    }

    /** Takes a nested v1 mapping out of {@code parent} (a copy, so that leftovers can be found). */
    private Map<String, Object> mapping(Map<String, Object> parent, String parentPath, String key) {
        Object value;
        if (parent == v1) {
            used.add(key);
            value = parent.get(key);
        } else {
            value = parent.remove(key);
        }
        if (value == null) {
            return null;
        }
        if (!(value instanceof Map<?, ?> map)) {
            problem(child(parentPath, key), "expected a mapping, got " + Units.describe(value));
            return null;
        }
        return new LinkedHashMap<>(cast(map));
    }

    /**
     * {@link #move} for several keys: {@code renames} holds v1 and v2 names in pairs, in the order
     * the v2 section lists them.
     */
    private void moveAll(Map<String, Object> source, String sourcePath, Map<String, Object> target, String targetPath,
            String... renames) {
        for (int i = 0; i < renames.length; i += 2) {
            move(source, sourcePath, renames[i], target, targetPath, renames[i + 1]);
        }
    }

    private void move(Map<String, Object> source, String sourcePath, String key, Map<String, Object> target,
            String targetPath, String targetKey) {
        if (source == v1) {
            used.add(key);
        }
        if (!source.containsKey(key)) {
            return;
        }
        Object value = source.remove(key);
        if (value != null) {
            target.put(targetKey, value);
            alias(child(sourcePath, key), child(targetPath, targetKey));
        }
    }

    /** Every key path at or under {@code v1Path} in the file is the origin of the same place under {@code v2Path}. */
    private void alias(String v1Path, String v2Path) {
        for (String path : sourcePaths) {
            if (path.equals(v1Path)) {
                origins.put(v2Path, path);
            } else if (path.startsWith(v1Path + ".") || path.startsWith(v1Path + "[")) {
                origins.put(v2Path + path.substring(v1Path.length()), path);
            }
        }
    }

    private void leftovers(Map<String, Object> rest, String path) {
        for (String key : rest.keySet()) {
            problem(child(path, key), "unknown key \"" + key + "\" in a v1 experiment file");
        }
    }

    private void problem(String v1Path, String message) {
        problems.add(new ConfigProblem(v1Path, message));
    }

    private static String child(String path, String key) {
        return path.isEmpty() ? key : path + "." + key;
    }
}
