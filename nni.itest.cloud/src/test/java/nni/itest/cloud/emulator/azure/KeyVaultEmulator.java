package nni.itest.cloud.emulator.azure;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

import nni.itest.cloud.emulator.CloudEmulator;
import nni.itest.cloud.emulator.EntraTokens;

/**
 * Azure Key Vault's secrets as a client of one vault meets them, with the Microsoft Entra ID that
 * issues its tokens: {@code POST /<tenant>/oauth2/v2.0/token} (client credentials, scope
 * {@code https://vault.azure.net/.default}) and Get Secret, {@code GET /<vault>/secrets/<name>[/<version>]
 * ?api-version=} one of the stable versions (the vault's host name is the path's first segment here).
 * As the service does: 401 with the {@code WWW-Authenticate} challenge without a valid bearer token,
 * 400 {@code BadParameter} for an api-version it does not know, 404 {@code SecretNotFound} (naming
 * the secret, as Key Vault does), 403 {@code Forbidden} for a principal without the secrets get
 * permission ({@link #denyAccess}), the secret bundle ({@code value}, {@code id},
 * {@code attributes}) otherwise. Failures can be injected ({@link #faults()}).
 */
public final class KeyVaultEmulator extends CloudEmulator {

    /** The stable data-plane versions of Key Vault's REST API. */
    public static final Set<String> API_VERSIONS = Set.of("7.0", "7.1", "7.2", "7.3", "7.4", "7.5");
    private static final Pattern NAME = Pattern.compile("[0-9a-zA-Z-]{1,127}");

    private final String tenant;
    private final String clientId;
    private final String vault;
    private final EntraTokens entra;
    private final Map<String, String> secrets = new ConcurrentHashMap<>();
    private volatile boolean denied;

    public KeyVaultEmulator(String tenant, String clientId, String clientSecret, String vault) throws Exception {
        this.tenant = tenant;
        this.clientId = clientId;
        this.vault = vault;
        this.entra = new EntraTokens(tenant, clientId, clientSecret, "https://vault.azure.net/.default");
        listen();
    }

    /** Stores a secret (a new version of it). */
    public void put(String name, String value) {
        secrets.put(name, value);
    }

    /** Removes a secret. */
    public void remove(String name) {
        secrets.remove(name);
    }

    /** The service principal loses (or gets back) its secrets get permission in the vault's access policy. */
    public void denyAccess(boolean deny) {
        denied = deny;
    }

    @Override
    protected Answer handle(Request request, Map<String, String> headers) {
        if (entra.isTokenRequest(request)) {
            return entra.issue(request.body());
        }
        String[] parts = request.path().substring(1).split("/");
        if (parts.length < 3 || parts.length > 4 || !parts[0].equals(vault) || !parts[1].equals("secrets")) {
            return Answer.json(404, error("NotFound", "no such API: " + request.method() + " " + request.path()));
        }
        if (!entra.accepts(headers.get("authorization"))) {
            return Answer.json(401, error("Unauthorized", headers.containsKey("authorization") ? "AKV10022: Invalid audience or token."
                    : "AKV10000: Request is missing a Bearer or PoP token.")).with("WWW-Authenticate",
                    "Bearer authorization=\"https://login.microsoftonline.com/" + tenant + "\", resource=\"https://vault.azure.net\"");
        }
        String version = query(request.query(), "api-version");
        if (version == null || !API_VERSIONS.contains(version)) {
            return Answer.json(400, error("BadParameter", "The specified version (" + version + ") is not recognized. Consider using"
                    + " the latest supported version (7.5)."));
        }
        if (!request.method().equals("GET")) {
            return Answer.json(405, error("MethodNotAllowed", "the emulator serves Get Secret only"));
        }
        String name = decode(parts[2]);
        if (!NAME.matcher(name).matches()) {
            return Answer.json(400, error("BadParameter", "The request URI contains an invalid name: " + name));
        }
        if (denied) {
            return Answer.json(403, map("error", map("code", "Forbidden", "message", "The user, group or application 'appid="
                    + clientId + ";oid=" + UUID.nameUUIDFromBytes(clientId.getBytes()) + "' does not have secrets get permission on"
                    + " key vault '" + vault + ";location=westeurope'.", "innererror", map("code", "AccessDenied"))));
        }
        String value = secrets.get(name);
        if (value == null) {
            return Answer.json(404, error("SecretNotFound", "A secret with (name/id) " + name + " was not found in this key vault. If"
                    + " you recently deleted this secret you may be able to recover it using the correct recovery command."));
        }
        String id = "https://" + vault + ".vault.azure.net/secrets/" + name + "/" + Integer.toHexString(value.hashCode());
        long now = System.currentTimeMillis() / 1000;
        return Answer.json(200, map("value", value, "id", id, "attributes", map("enabled", true, "created", now, "updated", now,
                "recoveryLevel", "Recoverable+Purgeable", "recoverableDays", 90), "tags", map()));
    }

    @Override
    protected Answer injected(int status) {
        return Answer.json(status, error(status == 429 ? "Throttled" : "ServiceUnavailable", "injected failure"));
    }

    private static Map<String, Object> error(String code, String message) {
        return map("error", map("code", code, "message", message));
    }

    @Override
    protected void endJobs() {
        // a vault runs no jobs
    }

    /** @return the Key Vault requests received (the token requests left out) */
    public List<Request> vaultRequests() {
        return requests().stream().filter(r -> r.path().startsWith("/" + vault + "/")).toList();
    }
}
