package nni.ts.k8s;

import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;

import com.fasterxml.jackson.databind.JsonNode;

import nni.api.platform.PlatformException;
import nni.ts.cloud.AzureCredential;
import nni.ts.cloud.CloudException;
import nni.ts.cloud.HttpCalls;

/**
 * Key Vault's Get Secret ({@code GET <vault>/secrets/<name>?api-version=}{@value #API_VERSION}, the
 * latest version of the secret) with a Microsoft Entra token for Key Vault. Where NNI runs
 * {@code az keyvault secret show}, this is the same call without the CLI. The secret's name and value
 * appear in no message (NNI's {@code keyVaultKey} is kept as a secret of the experiment).
 */
final class KeyVault {

    static final String API_VERSION = "7.4";

    private KeyVault() {
    }

    /**
     * @param vaultUrl the vault's address, {@code https://<vault>.vault.azure.net}
     * @param vault    its name, for messages
     * @return the secret's value
     * @throws PlatformException naming the vault and what failed
     */
    static String secret(HttpCalls http, AzureCredential credential, String vaultUrl, String vault, String name)
            throws PlatformException {
        String where = "Key Vault '" + vault + "'";
        String token;
        try {
            token = credential.token();
        } catch (CloudException e) {
            throw new PlatformException("trainingService.storage: cannot read the storage key from " + where + ": no token for "
                    + credential.description() + ": " + e.getMessage(), e);
        }
        try {
            URI uri = URI.create((vaultUrl.endsWith("/") ? vaultUrl : vaultUrl + "/") + "secrets/"
                    + URLEncoder.encode(name, StandardCharsets.UTF_8) + "?api-version=" + API_VERSION);
            JsonNode secret = HttpCalls.json(http.send(HttpRequest.newBuilder(uri).header("Authorization", "Bearer " + token)
                    .header("Accept", "application/json").GET(), "reading the storage key (trainingService.storage.keyVaultKey)"),
                    "the secret");
            if (!secret.path("value").isTextual() || secret.path("value").asText().isBlank()) {
                throw new PlatformException(where + " gave no value for the secret named in trainingService.storage.keyVaultKey");
            }
            return secret.path("value").asText();
        } catch (CloudException e) {
            String message = switch (e.kind()) {
                case NOT_FOUND -> where + " has no secret of the name in trainingService.storage.keyVaultKey (or no such vault"
                        + " is reachable at this address)";
                case AUTH -> where + " refused " + credential.description() + " (it needs the secrets get permission there)";
                default -> "cannot read the storage key from " + where;
            };
            // the vault's own words may quote the secret's name: so they are not kept as the cause either (logs print causes)
            throw new PlatformException("trainingService.storage: " + message + ": " + e.getMessage().replaceAll(
                    "(?<![A-Za-z0-9-])" + java.util.regex.Pattern.quote(name) + "(?![A-Za-z0-9-])", "********"));
        }
    }
}
