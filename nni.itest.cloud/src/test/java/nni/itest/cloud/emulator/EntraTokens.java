package nni.itest.cloud.emulator;

import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import nni.itest.cloud.emulator.CloudEmulator.Answer;

/**
 * Microsoft Entra ID's token endpoint for one service principal of one tenant, as an emulator
 * serves it beside the service it protects: {@code POST /<tenant>/oauth2/v2.0/token} with OAuth 2.0
 * client credentials for one scope, errors worded as Entra ID words them (AADSTS codes), and bearer
 * tokens that the service then accepts for an hour. Thread-safe.
 */
public final class EntraTokens {

    private final String tenant;
    private final String clientId;
    private final String clientSecret;
    private final String scope;
    private final Map<String, Instant> tokens = new HashMap<>();

    /** @param scope the one scope tokens are issued for, {@code https://management.azure.com/.default} */
    public EntraTokens(String tenant, String clientId, String clientSecret, String scope) {
        this.tenant = tenant;
        this.clientId = clientId;
        this.clientSecret = clientSecret;
        this.scope = scope;
    }

    /** @return whether the request is for the token endpoint */
    public boolean isTokenRequest(CloudEmulator.Request request) {
        return request.method().equals("POST") && request.path().equals("/" + tenant + "/oauth2/v2.0/token");
    }

    /** @return the token endpoint's answer to a form */
    public Answer issue(String form) {
        Map<String, String> fields = new HashMap<>();
        for (String pair : form.split("&")) {
            int equals = pair.indexOf('=');
            if (equals > 0) {
                fields.put(CloudEmulator.decode(pair.substring(0, equals)), CloudEmulator.decode(pair.substring(equals + 1)));
            }
        }
        if (!"client_credentials".equals(fields.get("grant_type"))) {
            return Answer.json(400, CloudEmulator.map("error", "unsupported_grant_type", "error_description", "AADSTS70003: The app "
                    + "requested an unsupported grant type."));
        }
        if (!clientId.equals(fields.get("client_id"))) {
            return Answer.json(400, CloudEmulator.map("error", "unauthorized_client", "error_description", "AADSTS700016: Application "
                    + "with identifier '" + fields.get("client_id") + "' was not found in the directory."));
        }
        if (!clientSecret.equals(fields.get("client_secret"))) {
            return Answer.json(401, CloudEmulator.map("error", "invalid_client", "error_description", "AADSTS7000215: Invalid client "
                    + "secret provided. Ensure the secret being sent in the request is the client secret value, not the client secret "
                    + "ID, for a secret added to app '" + clientId + "'.", "error_codes", List.of(7000215)));
        }
        if (!scope.equals(fields.get("scope"))) {
            return Answer.json(400, CloudEmulator.map("error", "invalid_scope", "error_description", "AADSTS70011: The provided value "
                    + "for the input parameter 'scope' is not valid."));
        }
        String token = "eyJ0eXAi." + UUID.randomUUID();
        synchronized (tokens) {
            tokens.put(token, Instant.now().plusSeconds(3600));
        }
        return Answer.json(200, CloudEmulator.map("token_type", "Bearer", "expires_in", 3599, "ext_expires_in", 3599,
                "access_token", token));
    }

    /** @return whether an {@code Authorization} header carries a token issued here that has not expired */
    public boolean accepts(String authorization) {
        if (authorization == null || !authorization.startsWith("Bearer ")) {
            return false;
        }
        synchronized (tokens) {
            Instant expires = tokens.get(authorization.substring(7));
            return expires != null && Instant.now().isBefore(expires);
        }
    }
}
