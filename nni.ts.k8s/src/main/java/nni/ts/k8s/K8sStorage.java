package nni.ts.k8s;

import java.util.List;
import java.util.Map;

import nni.api.config.ConfigReader;
import nni.api.platform.PlatformException;

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

    /**
     * @return the section's NFS {@code storage} ({@code server}, {@code path})
     * @throws PlatformException for {@code azureStorage}, which this version cannot use yet
     */
    @SuppressWarnings("unchecked")
    public static Map<String, Object> nfs(Map<String, Object> section) throws PlatformException {
        Object storage = section.get("storage");
        if (!(storage instanceof Map<?, ?> map)) {
            throw new PlatformException("trainingService.storage is missing: give an NFS share (storageType: nfs, server, path)");
        }
        Object type = map.get("storageType");
        if ("azureStorage".equals(type)) {
            throw new PlatformException("trainingService.storage: storageType azureStorage is not available yet in nni-osgi;"
                    + " use storageType nfs (server, path), mounted on the manager's machine too");
        }
        if (!"nfs".equals(type)) {
            throw new PlatformException("trainingService.storage: storageType " + type + " is not supported; use nfs");
        }
        return (Map<String, Object>) map;
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
