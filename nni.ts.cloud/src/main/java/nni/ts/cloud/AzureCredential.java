package nni.ts.cloud;

import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * A Microsoft Entra ID access token for an Azure service (Resource Manager, Key Vault), got the way Azure users have their credentials, in the
 * order of azure-identity's {@code DefaultAzureCredential}: a service principal from the environment
 * ({@code AZURE_TENANT_ID}, {@code AZURE_CLIENT_ID}, {@code AZURE_CLIENT_SECRET}; OAuth 2.0 client
 * credentials at {@code AZURE_AUTHORITY_HOST}, default {@code https://login.microsoftonline.com}),
 * a managed identity (App Service's {@code IDENTITY_ENDPOINT}/{@code IDENTITY_HEADER}, else the
 * instance metadata service), or the Azure CLI's login ({@code az account get-access-token}).
 * azure-identity itself is not used: see nni.ts.cloud/README.md ("Azure ML") for why it does not run in this
 * runtime. Shared by the platforms that call Azure (aml; the Kubernetes platforms' Azure File storage,
 * which reads its key from Key Vault). No cryptography is done here: Microsoft Entra ID, the identity endpoint or the CLI issue
 * the token; it is kept until five minutes before it expires. The secret never appears in a message.
 *
 * <p>Thread-safe: {@link #token()} is synchronized, so one token request is under way at a time.
 */
public final class AzureCredential {

    /** Which source {@link #of} picks. */
    public enum Source {
        AUTO, ENVIRONMENT, MANAGED_IDENTITY, AZURE_CLI;

        /**
         * @param text a setting's value: {@code auto}, {@code environment}, {@code managed-identity} or {@code azure-cli}
         * @throws IllegalArgumentException naming the values allowed
         */
        public static Source of(String text) {
            for (Source source : values()) {
                if (source.name().replace('_', '-').equalsIgnoreCase(text.strip())) {
                    return source;
                }
            }
            throw new IllegalArgumentException("credential must be auto, environment, managed-identity or azure-cli, got \"" + text + "\"");
        }
    }

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration EARLY = Duration.ofMinutes(5);
    private static final String IMDS = "http://169.254.169.254";

    private interface Flow {
        /** @return the token and when it expires */
        Token fetch() throws CloudException;
    }

    private record Token(String value, Instant expires) {
    }

    private final String description;
    private final Flow flow;
    private final AutoCloseable resources;
    private Token token;

    private AzureCredential(String description, Flow flow, AutoCloseable resources) {
        this.description = description;
        this.flow = flow;
        this.resources = resources;
    }

    /**
     * @param source      which credential; {@code AUTO} takes the first the environment offers
     * @param environment the runtime's environment variables
     * @param resource    the audience, with its final slash: {@code https://management.azure.com/}, {@code https://vault.azure.net/}
     * @param azCommand   the Azure CLI's command
     * @param timeout     how long one token request may take
     */
    public static AzureCredential of(Source source, Function<String, String> environment, String resource, String azCommand,
                              Duration timeout) throws CloudException {
        String tenant = environment.apply("AZURE_TENANT_ID");
        String client = environment.apply("AZURE_CLIENT_ID");
        String secret = environment.apply("AZURE_CLIENT_SECRET");
        boolean principal = present(tenant) && present(client) && present(secret);
        boolean appService = present(environment.apply("IDENTITY_ENDPOINT")) && present(environment.apply("IDENTITY_HEADER"));
        Source chosen = source;
        if (source == Source.AUTO) {
            chosen = principal ? Source.ENVIRONMENT : appService ? Source.MANAGED_IDENTITY
                    : onPath(azCommand, environment) ? Source.AZURE_CLI : Source.MANAGED_IDENTITY;
        }
        switch (chosen) {
            case ENVIRONMENT -> {
                if (!principal) {
                    throw new CloudException(CloudException.Kind.AUTH, 0, "credential = environment needs AZURE_TENANT_ID, "
                            + "AZURE_CLIENT_ID and AZURE_CLIENT_SECRET in the runtime's environment (missing: "
                            + String.join(", ", missing(environment, "AZURE_TENANT_ID", "AZURE_CLIENT_ID", "AZURE_CLIENT_SECRET")) + ")", null);
                }
                String authority = strip(present(environment.apply("AZURE_AUTHORITY_HOST"))
                        ? environment.apply("AZURE_AUTHORITY_HOST") : "https://login.microsoftonline.com");
                String what = "service principal " + client + " of tenant " + tenant;
                HttpCalls http = new HttpCalls("Microsoft Entra ID at " + authority, timeout, "nni-azure-login");
                return new AzureCredential(what + " (from AZURE_CLIENT_ID, AZURE_TENANT_ID, AZURE_CLIENT_SECRET)",
                        () -> clientCredentials(http, authority, tenant, client, secret, resource, what), http);
            }
            case MANAGED_IDENTITY -> {
                HttpCalls http = new HttpCalls("the managed identity endpoint", auto(source) && !appService
                        ? Duration.ofSeconds(2) : timeout, "nni-azure-login");
                if (appService) {
                    String endpoint = environment.apply("IDENTITY_ENDPOINT");
                    String header = environment.apply("IDENTITY_HEADER");
                    return new AzureCredential("the managed identity (IDENTITY_ENDPOINT)", () -> managedIdentity(http,
                            URI.create(endpoint + "?api-version=2019-08-01&resource=" + encode(resource)
                                    + (present(client) ? "&client_id=" + encode(client) : "")),
                            "X-IDENTITY-HEADER", header, null), http);
                }
                String host = present(environment.apply("AZURE_POD_IDENTITY_AUTHORITY_HOST"))
                        ? strip(environment.apply("AZURE_POD_IDENTITY_AUTHORITY_HOST")) : IMDS;
                String otherwise = auto(source) ? "no Azure credential was found: set AZURE_TENANT_ID, AZURE_CLIENT_ID and "
                        + "AZURE_CLIENT_SECRET (a service principal), log in with the Azure CLI (az login), or run on an Azure "
                        + "machine with a managed identity; " : null;
                return new AzureCredential("the managed identity of this Azure machine", () -> managedIdentity(http,
                        URI.create(host + "/metadata/identity/oauth2/token?api-version=2018-02-01&resource=" + encode(resource)
                                + (present(client) ? "&client_id=" + encode(client) : "")), "Metadata", "true", otherwise), http);
            }
            case AZURE_CLI -> {
                return new AzureCredential("the Azure CLI's login (" + azCommand + ")", () -> azureCli(azCommand, resource, timeout),
                        () -> { });
            }
            default -> throw new IllegalStateException(chosen.name());
        }
    }

    /** @return what the credential is, for messages: never the secret */
    public String description() {
        return description;
    }

    /**
     * @return a token valid for at least a few more minutes
     * @throws CloudException {@link CloudException.Kind#AUTH} when the credential is refused or there is none
     */
    public synchronized String token() throws CloudException {
        if (token == null || Instant.now().plus(EARLY).isAfter(token.expires())) {
            token = flow.fetch();
        }
        return token.value();
    }

    public void close() {
        try {
            resources.close();
        } catch (Exception e) {
            // only threads end here
        }
    }

    private static Token clientCredentials(HttpCalls http, String authority, String tenant, String client, String secret,
                                           String resource, String what) throws CloudException {
        String form = "grant_type=client_credentials&client_id=" + encode(client) + "&client_secret=" + encode(secret)
                + "&scope=" + encode(resource + ".default");
        try {
            JsonNode answer = HttpCalls.json(http.send(HttpRequest.newBuilder(URI.create(authority + "/" + encode(tenant)
                    + "/oauth2/v2.0/token")).header("Content-Type", "application/x-www-form-urlencoded")
                    .POST(HttpRequest.BodyPublishers.ofString(form)), "getting a token for " + what), "the token");
            return new Token(answer.path("access_token").asText(),
                    Instant.now().plusSeconds(answer.path("expires_in").asLong(3600)));
        } catch (CloudException e) {
            String message = e.getMessage().replace(secret, "********");
            if (e.kind() == CloudException.Kind.REFUSED || e.kind() == CloudException.Kind.AUTH || e.kind() == CloudException.Kind.NOT_FOUND) {
                // Entra ID answers 400 (invalid_request, unauthorized_client) or 401 (invalid_client): not worth asking again
                throw new CloudException(CloudException.Kind.AUTH, e.status(), message + "; check AZURE_TENANT_ID, AZURE_CLIENT_ID "
                        + "and AZURE_CLIENT_SECRET", null);
            }
            throw new CloudException(e.kind(), e.status(), message, e.retryAfter().orElse(null));
        }
    }

    private static Token managedIdentity(HttpCalls http, URI uri, String header, String value, String otherwise)
            throws CloudException {
        JsonNode answer;
        try {
            answer = HttpCalls.json(http.send(HttpRequest.newBuilder(uri).header(header, value).GET(),
                    "getting a token for the managed identity"), "the token");
        } catch (CloudException e) {
            if (otherwise != null && e.status() == 0) {
                throw new CloudException(CloudException.Kind.AUTH, 0, otherwise + e.getMessage(), null);
            }
            throw e.kind() == CloudException.Kind.TRANSIENT ? e
                    : new CloudException(CloudException.Kind.AUTH, e.status(), e.getMessage(), null);
        }
        return new Token(answer.path("access_token").asText(), expiry(answer.path("expires_on").asText("")));
    }

    private static Token azureCli(String azCommand, String resource, Duration timeout) throws CloudException {
        Path output = null;
        Path errors = null;
        try {
            output = Files.createTempFile("nni-az", ".json");
            errors = Files.createTempFile("nni-az", ".err");
            Process process = new ProcessBuilder(azCommand, "account", "get-access-token", "--output", "json", "--resource", resource)
                    .redirectOutput(output.toFile()).redirectError(errors.toFile()).redirectInput(ProcessBuilder.Redirect.PIPE).start();
            process.getOutputStream().close();
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                throw new CloudException(CloudException.Kind.TRANSIENT, 0, "the Azure CLI did not give a token within "
                        + timeout.toSeconds() + " s", null);
            }
            if (process.exitValue() != 0) {
                List<String> lines = Files.readAllLines(errors).stream().filter(l -> !l.isBlank()).toList();
                throw new CloudException(CloudException.Kind.AUTH, 0, "the Azure CLI gave no token (exit code " + process.exitValue()
                        + (lines.isEmpty() ? "" : ": " + String.join(" ", lines.subList(Math.max(0, lines.size() - 2), lines.size())))
                        + "); log in with az login", null);
            }
            JsonNode answer = JSON.readTree(output.toFile());
            String expires = answer.hasNonNull("expires_on") ? answer.get("expires_on").asText() : null;
            Instant when = expires != null ? expiry(expires) : cliLocalTime(answer.path("expiresOn").asText(""));
            return new Token(answer.path("accessToken").asText(), when);
        } catch (IOException e) {
            throw new CloudException(CloudException.Kind.AUTH, 0, "the Azure CLI (" + azCommand + ") cannot be run: " + e.getMessage(), null);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CloudException(CloudException.Kind.TRANSIENT, 0, "interrupted while asking the Azure CLI for a token", null);
        } finally {
            delete(output);
            delete(errors);
        }
    }

    /** @return an {@code expires_on}: seconds since the epoch, as the identity endpoints and newer CLIs give it */
    private static Instant expiry(String epochSeconds) {
        try {
            return Instant.ofEpochSecond(Long.parseLong(epochSeconds.strip()));
        } catch (NumberFormatException e) {
            return Instant.now().plus(Duration.ofMinutes(30));
        }
    }

    /** Older CLIs give only {@code expiresOn}, a local time {@code 2024-01-01 12:00:00.000000}. */
    private static Instant cliLocalTime(String text) {
        try {
            return java.time.LocalDateTime.parse(text.strip().replace(' ', 'T')).atZone(java.time.ZoneId.systemDefault()).toInstant();
        } catch (java.time.format.DateTimeParseException e) {
            return Instant.now().plus(Duration.ofMinutes(30));
        }
    }

    private static boolean onPath(String command, Function<String, String> environment) {
        if (command.contains("/")) {
            return Files.isExecutable(Path.of(command));
        }
        String path = environment.apply("PATH");
        if (path == null) {
            return false;
        }
        for (String folder : path.split(java.io.File.pathSeparator)) {
            if (!folder.isEmpty() && Files.isExecutable(Path.of(folder, command))) {
                return true;
            }
        }
        return false;
    }

    private static List<String> missing(Function<String, String> environment, String... names) {
        List<String> missing = new ArrayList<>();
        for (String name : names) {
            if (!present(environment.apply(name))) {
                missing.add(name);
            }
        }
        return missing;
    }

    private static boolean auto(Source source) {
        return source == Source.AUTO;
    }

    private static boolean present(String value) {
        return value != null && !value.isBlank();
    }

    private static String strip(String url) {
        return url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
    }

    private static String encode(String text) {
        return URLEncoder.encode(text, StandardCharsets.UTF_8);
    }

    private static void delete(Path file) {
        if (file != null) {
            try {
                Files.deleteIfExists(file);
            } catch (IOException e) {
                // a temporary file left behind
            }
        }
    }
}
