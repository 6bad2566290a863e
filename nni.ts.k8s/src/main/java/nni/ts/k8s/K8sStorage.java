package nni.ts.k8s;

import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import nni.api.config.ConfigReader;
import nni.api.platform.PlatformException;

/**
 * NNI's {@code K8sStorageConfig} ({@code storage:} of the Kubernetes platforms): an NFS export
 * ({@code server}, {@code path}) or an Azure file share whose account key is in Key Vault
 * ({@code azureAccount}, {@code azureShare}, {@code keyVaultName}, {@code keyVaultKey}). Platform bundles
 * export nothing, so kubeflow and frameworkcontroller each embed this package privately
 * (bnd {@code -conditionalpackage}) rather than importing it.
 */
public final class K8sStorage {

    private static final List<String> AZURE = List.of("azureAccount", "azureShare", "keyVaultName", "keyVaultKey");
    private static final List<String> NFS = List.of("server", "path");
    private static final Pattern ACCOUNT = Pattern.compile("[a-z0-9]{3,24}");
    private static final Pattern SHARE = Pattern.compile("(?=.{3,63}$)[a-z0-9]+(-[a-z0-9]+)*");
    private static final Pattern VAULT = Pattern.compile("[a-zA-Z][a-zA-Z0-9-]{1,22}[a-zA-Z0-9]");
    private static final Pattern SECRET = Pattern.compile("[0-9a-zA-Z-]{1,127}");

    private K8sStorage() {
    }

    /** The section's storage, as checked. */
    public sealed interface Choice permits Nfs, Azure {
    }

    /** {@code storageType: nfs} */
    public record Nfs(String server, String path) implements Choice {
    }

    /**
     * {@code storageType: azureStorage}
     *
     * @param account the storage account ({@code azureAccount})
     * @param share   the file share ({@code azureShare})
     * @param vault   the Key Vault holding the account's key ({@code keyVaultName})
     * @param secret  the name of the key's secret in the vault ({@code keyVaultKey}): never shown
     */
    public record Azure(String account, String share, String vault, String secret) implements Choice {
        @Override
        public String toString() {
            return "Azure file share " + account + "/" + share + " (key in Key Vault " + vault + ")";
        }
    }

    /**
     * @return the section's {@code storage}, as {@link #check} let it pass
     * @throws PlatformException when there is none
     */
    public static Choice of(Map<String, Object> section) throws PlatformException {
        if (!(section.get("storage") instanceof Map<?, ?> map)) {
            throw new PlatformException("trainingService.storage is missing: give an NFS share (storageType: nfs, server, path)"
                    + " or an Azure file share (storageType: azureStorage, azureAccount, azureShare, keyVaultName, keyVaultKey)");
        }
        if ("azureStorage".equals(map.get("storageType"))) {
            return new Azure(text(map, "azureAccount"), text(map, "azureShare"), text(map, "keyVaultName"), text(map, "keyVaultKey"));
        }
        return new Nfs(text(map, "server"), text(map, "path"));
    }

    private static String text(Map<?, ?> map, String key) {
        return map.get(key) == null ? null : String.valueOf(map.get(key)).strip();
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
        if ("azureStorage".equals(type)) {
            name(storage, "azureAccount", ACCOUNT, "a storage account name is 3 to 24 lower-case letters and digits");
            name(storage, "azureShare", SHARE, "a file share name is 3 to 63 lower-case letters, digits and single hyphens,"
                    + " starting and ending with a letter or digit");
            name(storage, "keyVaultName", VAULT, "a Key Vault name is 3 to 24 letters, digits and hyphens, starting with a letter");
            Object secret = storage.peek("keyVaultKey");
            if (secret instanceof String name && !SECRET.matcher(name).matches()) {
                storage.problem("keyVaultKey", "a Key Vault secret name is 1 to 127 letters, digits and hyphens");
            }
        }
        for (String key : forbidden) {
            if (storage.canonical(key) != null) {
                storage.problem(key, "expected no " + key + " with storageType " + type);
            }
        }
    }

    private static void name(ConfigReader storage, String key, Pattern rule, String expected) {
        Object value = storage.peek(key);
        if (value instanceof String name && !rule.matcher(name).matches()) {
            storage.problem(key, expected + ", got \"" + name + "\"");
        }
    }
}
