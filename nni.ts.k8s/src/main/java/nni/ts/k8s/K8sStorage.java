package nni.ts.k8s;

import java.util.List;

import nni.api.config.ConfigReader;

/**
 * NNI's {@code K8sStorageConfig} ({@code storage:} of the Kubernetes platforms). Platform bundles
 * export nothing, so kubeflow and frameworkcontroller each embed this package privately
 * (bnd {@code -conditionalpackage}) rather than importing it.
 */
public final class K8sStorage {

    private static final List<String> AZURE = List.of("azureAccount", "azureShare", "keyVaultName", "keyVaultKey");
    private static final List<String> NFS = List.of("server", "path");

    private K8sStorage() {
    }

    /** Checks the {@code storage} object below {@code parent}, recording problems on it. */
    public static void check(ConfigReader parent) {
        ConfigReader storage = parent.object("storage", true);
        if (storage == null) {
            return;
        }
        String type = storage.oneOf("storageType", null, true, "nfs", "azureStorage");
        storage.string("azureAccount");
        storage.string("azureShare");
        storage.string("keyVaultName");
        storage.secret("keyVaultKey", false);
        storage.string("server");
        storage.string("path");
        List<String> required = "nfs".equals(type) ? NFS : "azureStorage".equals(type) ? AZURE : List.of();
        List<String> forbidden = "nfs".equals(type) ? AZURE : "azureStorage".equals(type) ? NFS : List.of();
        for (String key : required) {
            if (storage.canonical(key) == null) {
                storage.problem(key, key + " is required with storageType " + type);
            }
        }
        for (String key : forbidden) {
            if (storage.canonical(key) != null) {
                storage.problem(key, "expected no " + key + " with storageType " + type);
            }
        }
    }
}
