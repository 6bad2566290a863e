package nni.ts.k8s;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;

import nni.api.platform.PlatformException;
import nni.ts.cloud.AzureCredential;
import nni.ts.cloud.CloudException;
import nni.ts.cloud.HttpCalls;

/**
 * The experiment's Azure file share ({@code storage: {storageType: azureStorage, azureAccount,
 * azureShare, keyVaultName, keyVaultKey}}), set up as NNI sets it up: the account's key read from
 * Key Vault ({@link KeyVault}), the share created if it is missing, a Secret
 * {@code nni-secret-<8 characters>} in the namespace with {@code azurestorageaccountname} and
 * {@code azurestorageaccountkey} (NNI's labels {@code app} and {@code expId}, so that the experiment's
 * end deletes it), and the pods' volume {@code nni-vol: {azureFile: {secretName, shareName}}}. The
 * keeper, the code and the SDK are staged in a local folder and uploaded to {@code nni/<experiment>/}
 * through Azure Files REST ({@link AzureFiles}); a call that fails for now (no answer, 5xx) is tried
 * again twice, 5 s apart, as NNI does with its uploads. The key is kept in memory and in the Secret only, never in a message or a log.
 *
 * <p>When the share is mounted on this machine too (an SMB mount; the component setting
 * {@code azureStorage.mount} names where), the experiment's folder there is {@link #readableFolder}:
 * the keepers' file transport then works through it ({@link ReportRoute}). The uploads stay as they
 * are; once they are done, the mount must show them, or it is not this share.
 */
public final class AzureFileShare implements ExperimentShare {

    private static final Logger LOG = LoggerFactory.getLogger(AzureFileShare.class);
    private static final int UPLOAD_RETRIES = 2;
    private static final int RETRY_PAUSE_SECONDS = 5;
    /** How many seconds the mount may take to show an upload. */
    private static final int MOUNT_CHECKS = 5;
    private static final SecureRandom RANDOM = new SecureRandom();

    /**
     * The platform component's Azure settings.
     *
     * @param credential       which Microsoft Entra credential reads Key Vault
     * @param azCommand        the Azure CLI's command, for {@code credential = azure-cli}
     * @param keyVaultUrl      a vault's address, {@code {vault}} standing for its name
     * @param keyVaultResource the token audience of Key Vault
     * @param filesUrl         a storage account's file endpoint, {@code {account}} standing for its name
     * @param timeout          how long one request may take
     * @param mount            {@code azureStorage.mount}: where the share is mounted on this machine, or blank
     */
    public record Settings(AzureCredential.Source credential, String azCommand, String keyVaultUrl, String keyVaultResource,
                           String filesUrl, Duration timeout, String mount) {
    }

    private final K8sStorage.Azure storage;
    private final String endpoint;
    private final AzureFiles files;
    private final HttpCalls http;
    private final Path staging;
    private final String secretName;
    private final Path mount;

    private AzureFileShare(K8sStorage.Azure storage, String endpoint, AzureFiles files, HttpCalls http, Path staging, String secretName,
                           Path mount) {
        this.storage = storage;
        this.endpoint = endpoint;
        this.files = files;
        this.http = http;
        this.staging = staging;
        this.secretName = secretName;
        this.mount = mount;
    }

    /**
     * Reads the key, creates the share if it is missing and the Secret in the namespace.
     *
     * @param staging a local folder of the experiment where files wait for their upload
     * @throws PlatformException naming the vault, account or share and what failed; never the key
     */
    static AzureFileShare open(K8sStorage.Azure storage, Settings settings, Cluster cluster, String namespace, String experimentId,
                               Path staging) throws PlatformException {
        Path mount = mount(storage, settings.mount());
        String key = readKey(storage, settings);
        String endpoint = strip(settings.filesUrl().replace("{account}", storage.account()));
        HttpCalls http = new HttpCalls("storage account '" + storage.account() + "' (Azure Files at " + endpoint + ")",
                settings.timeout(), "nni-azure-files-" + experimentId);
        try {
            AzureFiles files;
            try {
                files = new AzureFiles(storage.account(), endpoint, key, http);
            } catch (IllegalArgumentException e) {
                throw new PlatformException("trainingService.storage: the secret read from Key Vault '" + storage.vault()
                        + "' is not a storage account key: " + e.getMessage(), e);
            }
            boolean[] created = new boolean[1];
            retrying("creating file share " + storage.share(), () -> created[0] = files.createShare(storage.share()), e ->
                    new PlatformException("trainingService.storage: " + (e instanceof CloudException c && c.kind() == CloudException.Kind.AUTH
                            ? "storage account '" + storage.account() + "' refused the key read from Key Vault '" + storage.vault()
                            + "' (is the secret the account's current key?): " : "cannot create file share '" + storage.share()
                            + "': ") + e.getMessage(), e));
            LOG.info("experiment {}: file share {} of storage account {} {}", experimentId, storage.share(), storage.account(),
                    created[0] ? "created" : "exists");
            String secretName = "nni-secret-" + randomName();
            try {
                cluster.client().secrets().inNamespace(namespace).resource(new SecretBuilder().withNewMetadata().withName(secretName)
                        .withNamespace(namespace).withLabels(NniObjects.experimentLabels(experimentId)).endMetadata()
                        .withType("Opaque")
                        .addToData("azurestorageaccountname", base64(storage.account()))
                        .addToData("azurestorageaccountkey", base64(key)).build()).create();
            } catch (KubernetesClientException e) {
                throw cluster.refused(e, "secrets in namespace '" + namespace + "' (for the Azure file share's key)");
            }
            return new AzureFileShare(storage, endpoint, files, http, staging, secretName, mount);
        } catch (PlatformException | RuntimeException e) {
            http.close();
            throw e;
        }
    }

    /** @return where the share is mounted here, or null when the setting is blank */
    private static Path mount(K8sStorage.Azure storage, String setting) throws PlatformException {
        if (setting == null || setting.isBlank()) {
            return null;
        }
        Path root = Path.of(setting.strip()).toAbsolutePath().normalize();
        if (!Files.isDirectory(root) || !Files.isWritable(root)) {
            throw new PlatformException("azureStorage.mount " + root + " (where the Azure file share " + storage.account() + "/"
                    + storage.share() + " is mounted on this machine) is not a writable directory");
        }
        return root;
    }

    private static String readKey(K8sStorage.Azure storage, Settings settings) throws PlatformException {
        AzureCredential credential;
        try {
            credential = AzureCredential.of(settings.credential(), System::getenv, settings.keyVaultResource(), settings.azCommand(),
                    settings.timeout());
        } catch (CloudException e) {
            throw new PlatformException("trainingService.storage: no credential to read Key Vault '" + storage.vault() + "': "
                    + e.getMessage(), e);
        }
        String vaultUrl = strip(settings.keyVaultUrl().replace("{vault}", storage.vault()));
        try (HttpCalls vault = new HttpCalls("Key Vault '" + storage.vault() + "' at " + vaultUrl, settings.timeout(), "nni-keyvault")) {
            return KeyVault.secret(vault, credential, vaultUrl, storage.vault(), storage.secret());
        } finally {
            credential.close();
        }
    }

    @Override
    public Map<String, Object> volume() {
        Map<String, Object> azureFile = new LinkedHashMap<>();
        azureFile.put("secretName", secretName);
        azureFile.put("shareName", storage.share());
        azureFile.put("readOnly", false);
        return Map.of("name", NniObjects.STORAGE_VOLUME, "azureFile", azureFile);
    }

    @Override
    public Path stagingFolder(String experimentId) throws PlatformException {
        try {
            return Files.createDirectories(staging);
        } catch (IOException e) {
            throw new PlatformException("cannot create " + staging + ": " + e.getMessage(), e);
        }
    }

    /** Uploads the staging folder to {@code nni/<experiment>/}: directories first, then each file. */
    @Override
    public void publish(String experimentId) throws PlatformException {
        String base = "nni/" + experimentId;
        List<Path> all;
        try (Stream<Path> walk = Files.walk(staging)) {
            all = walk.filter(p -> !p.equals(staging)).sorted().toList();
        } catch (IOException e) {
            throw new PlatformException("cannot read " + staging + ": " + e.getMessage(), e);
        }
        List<String> directories = new ArrayList<>(List.of("nni", base));
        for (Path path : all) {
            if (Files.isDirectory(path)) {
                directories.add(base + "/" + relative(path));
            }
        }
        java.util.function.Function<Exception, PlatformException> failure = e -> new PlatformException(
                "cannot put the trial keeper and code on " + describe() + ": " + e.getMessage(), e);
        for (String directory : directories) {
            retrying("creating " + directory + " on " + describe(), () -> files.createDirectory(storage.share(), directory), failure);
        }
        for (Path path : all) {
            if (Files.isRegularFile(path)) {
                String target = base + "/" + relative(path);
                retrying("uploading " + target + " to " + describe(), () -> files.upload(storage.share(), target, path), failure);
            }
        }
        LOG.info("experiment {}: {} files uploaded to {}", experimentId, all.stream().filter(Files::isRegularFile).count(), describe());
        if (mount != null) {
            checkMount(experimentId, all.stream().filter(Files::isRegularFile).findFirst().orElse(null));
        }
    }

    /** The mount must show what was just uploaded: else the keepers' channels there would never reach the pods. */
    private void checkMount(String experimentId, Path uploaded) throws PlatformException {
        if (uploaded == null) {
            return;
        }
        Path seen = mount.resolve("nni").resolve(experimentId).resolve(relative(uploaded));
        for (int attempt = 0; !Files.isRegularFile(seen); attempt++) {
            if (attempt == MOUNT_CHECKS) {
                throw new PlatformException("azureStorage.mount " + mount + " does not show " + describe() + ": nni/" + experimentId + "/"
                        + relative(uploaded) + " was uploaded there but is not at " + seen);
            }
            try {
                Thread.sleep(1000); // an SMB client caches a directory's attributes for a second (actimeo=1)
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new PlatformException("interrupted while looking for " + seen, e);
            }
        }
    }

    /** @return the experiment's folder on the share's mount here (created), or null when it is not mounted here */
    @Override
    public Path readableFolder(String experimentId) throws PlatformException {
        if (mount == null) {
            return null;
        }
        Path folder = mount.resolve("nni").resolve(experimentId);
        try {
            return Files.createDirectories(folder);
        } catch (IOException e) {
            throw new PlatformException("cannot create " + folder + " on azureStorage.mount: " + e.getMessage(), e);
        }
    }

    @Override
    public String mountHint() {
        return "azureStorage.mount in the platform's configuration names where it is mounted here";
    }

    private String relative(Path path) {
        return staging.relativize(path).toString().replace('\\', '/');
    }

    private interface Call {
        void run() throws CloudException, IOException;
    }

    /** Runs {@code call}, again after {@value #RETRY_PAUSE_SECONDS} s, twice at most, while it fails for now (no answer, 5xx, 429). */
    private static void retrying(String what, Call call, java.util.function.Function<Exception, PlatformException> failure)
            throws PlatformException {
        for (int attempt = 0; ; attempt++) {
            try {
                call.run();
                return;
            } catch (CloudException e) {
                if (e.kind() != CloudException.Kind.TRANSIENT || attempt >= UPLOAD_RETRIES) {
                    throw failure.apply(e);
                }
                LOG.info("{} failed ({}); trying again in {} s", what, e.getMessage(), RETRY_PAUSE_SECONDS);
            } catch (IOException e) {
                throw failure.apply(e);
            }
            try {
                Thread.sleep(RETRY_PAUSE_SECONDS * 1000L); // NNI's pause between upload attempts
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new PlatformException("interrupted while " + what, e);
            }
        }
    }

    @Override
    public String url(String experimentId, String environmentId) {
        return endpoint + "/" + storage.share() + "/nni/" + experimentId + "/envs/" + environmentId;
    }

    @Override
    public String describe() {
        return "the Azure file share " + storage.account() + "/" + storage.share();
    }

    @Override
    public List<String> release() {
        http.close();
        return List.of();
    }

    /** @return NNI's 8 random lower-case letters and digits */
    private static String randomName() {
        String alphabet = "abcdefghijklmnopqrstuvwxyz0123456789";
        StringBuilder name = new StringBuilder();
        for (int i = 0; i < 8; i++) {
            name.append(alphabet.charAt(RANDOM.nextInt(alphabet.length())));
        }
        return name.toString();
    }

    private static String base64(String text) {
        return Base64.getEncoder().encodeToString(text.getBytes(StandardCharsets.UTF_8));
    }

    private static String strip(String url) {
        return url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
    }
}
