package nni.ts.k8s;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import org.junit.After;
import org.junit.Before;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import nni.api.platform.PlatformException;
import nni.itest.cloud.emulator.CloudEmulator;
import nni.itest.cloud.emulator.azure.AzureFilesEmulator;
import nni.itest.cloud.emulator.azure.KeyVaultEmulator;
import nni.ts.cloud.AzureCredential;
import nni.ts.cloud.CloudException;
import nni.ts.cloud.HttpCalls;

/**
 * The Kubernetes platforms' Azure clients ({@link KeyVault}, {@link AzureFiles} with
 * {@link SharedKey}) against the emulators of Microsoft Entra ID, Key Vault and Azure Files, which
 * check what the service checks (tokens, api-version, x-ms-version, the Shared Key signature
 * recomputed from the request as received); and the emulators' own answers to what a client gets
 * wrong. (In package {@code nni.ts.k8s} to reach the clients, which the platform bundles keep private.)
 */
public class AzureStorageClientsTest {

    private static final String TENANT = "72f988bf-0000-4000-8000-2d7cd011db47";
    private static final String CLIENT = "0c3f1e2d-1111-4222-8333-444455556666";
    private static final String CLIENT_SECRET = "client~secret.Xy9";
    private static final String KEY = Base64.getEncoder().encodeToString("the account key of nniaccount, 64 bytes long as Azure's are!!!"
            .getBytes(java.nio.charset.StandardCharsets.US_ASCII));

    @Rule
    public TemporaryFolder folder = new TemporaryFolder();

    private KeyVaultEmulator vault;
    private AzureFilesEmulator files;
    private HttpCalls http;

    @Before
    public void emulators() throws Exception {
        vault = new KeyVaultEmulator(TENANT, CLIENT, CLIENT_SECRET, "nnivault");
        files = new AzureFilesEmulator("nniaccount", KEY, folder.newFolder("shares").toPath());
        http = new HttpCalls("the emulators", Duration.ofSeconds(20), "test");
    }

    @After
    public void close() throws Exception {
        http.close();
        vault.close();
        files.close();
    }

    private AzureCredential credential(String secret) throws CloudException {
        Map<String, String> environment = Map.of("AZURE_TENANT_ID", TENANT, "AZURE_CLIENT_ID", CLIENT, "AZURE_CLIENT_SECRET", secret,
                "AZURE_AUTHORITY_HOST", vault.address());
        return AzureCredential.of(AzureCredential.Source.ENVIRONMENT, environment::get, "https://vault.azure.net/", "az",
                Duration.ofSeconds(20));
    }

    @Test
    public void keyVaultGivesTheSecretToATokenOfItsAudienceAtApiVersion74() throws Exception {
        vault.put("nnikey", KEY);
        assertEquals(KEY, KeyVault.secret(http, credential(CLIENT_SECRET), vault.address() + "/nnivault", "nnivault", "nnikey"));
        List<CloudEmulator.Request> reads = vault.vaultRequests();
        assertEquals(1, reads.size());
        assertEquals("GET /nnivault/secrets/nnikey?api-version=7.4", reads.get(0).toString());
    }

    @Test
    public void aMissingSecretADeniedPrincipalAndAWrongClientSecretSayWhatIsWrongWithoutTheSecretsName() throws Exception {
        try {
            KeyVault.secret(http, credential(CLIENT_SECRET), vault.address() + "/nnivault", "nnivault", "nnikey");
            fail("a missing secret was read");
        } catch (PlatformException e) {
            assertTrue(e.getMessage(), e.getMessage().startsWith("trainingService.storage: Key Vault 'nnivault' has no secret of the name"
                    + " in trainingService.storage.keyVaultKey"));
            assertTrue(e.getMessage(), e.getMessage().contains("SecretNotFound") || e.getMessage().contains("was not found"));
            assertFalse(e.getMessage(), e.getMessage().contains("nnikey"));
        }
        vault.put("nnikey", KEY);
        vault.denyAccess(true);
        try {
            KeyVault.secret(http, credential(CLIENT_SECRET), vault.address() + "/nnivault", "nnivault", "nnikey");
            fail("a denied principal read the secret");
        } catch (PlatformException e) {
            assertTrue(e.getMessage(), e.getMessage().contains("Key Vault 'nnivault' refused service principal " + CLIENT + " of tenant "
                    + TENANT) && e.getMessage().contains("does not have secrets get permission"));
        }
        vault.denyAccess(false);
        try {
            KeyVault.secret(http, credential("wrong"), vault.address() + "/nnivault", "nnivault", "nnikey");
            fail("a wrong client secret got a token");
        } catch (PlatformException e) {
            assertTrue(e.getMessage(), e.getMessage().contains("cannot read the storage key from Key Vault 'nnivault': no token for service"
                    + " principal " + CLIENT) && e.getMessage().contains("AADSTS7000215"));
            assertFalse(e.getMessage(), e.getMessage().contains(KEY));
        }
    }

    @Test
    public void filesAreUploadedRangeByRangeWithSharedKeyAndReadBackAndListed() throws Exception {
        AzureFiles client = new AzureFiles("nniaccount", files.address() + "/nniaccount", KEY, http);
        assertTrue(client.createShare("nnishare"));
        assertFalse("it exists now", client.createShare("nnishare"));
        client.createDirectory("nnishare", "nni");
        client.createDirectory("nnishare", "nni");
        client.createDirectory("nnishare", "nni/exp 1");
        byte[] content = new byte[AzureFiles.RANGE * 2 + 1234];
        new Random(7).nextBytes(content);
        Path local = folder.newFile("code.tar.gz").toPath();
        Files.write(local, content);
        client.upload("nnishare", "nni/exp 1/nni-code.tar.gz", local);
        assertEquals(List.of(), files.refused());
        assertArrayEquals(content, Files.readAllBytes(files.folder("nnishare").resolve("nni/exp 1/nni-code.tar.gz")));
        long ranges = files.requests().stream().filter(r -> "comp=range".equals(r.query())).count();
        assertEquals("three ranges of at most 4 MiB", 3, ranges);
        // Get File and List Directories and Files, signed as any client signs them
        HttpResponse<byte[]> read = signed("GET", "/nnishare/nni/exp%201/nni-code.tar.gz", null, KEY);
        assertEquals(200, read.statusCode());
        assertArrayEquals(content, read.body());
        HttpResponse<byte[]> list = signed("GET", "/nnishare/nni/exp%201", "restype=directory&comp=list", KEY);
        String xml = new String(list.body(), java.nio.charset.StandardCharsets.UTF_8);
        assertTrue(xml, xml.contains("<File><Name>nni-code.tar.gz</Name><Properties><Content-Length>" + content.length + "</Content-Length>"));
        HttpResponse<byte[]> missing = signed("GET", "/nnishare/nni/none", null, KEY);
        assertEquals(404, missing.statusCode());
        assertEquals("ResourceNotFound", missing.headers().firstValue("x-ms-error-code").orElse(""));
        try {
            client.createDirectory("nnishare", "no/parent");
            fail("a directory without its parent was created");
        } catch (CloudException e) {
            assertTrue(e.getMessage(), e.getMessage().contains("HTTP 404") && e.getMessage().contains("ParentNotFound: The specified parent"
                    + " path does not exist."));
        }
    }

    @Test
    public void aWrongKeyIsRefused403AuthenticationFailedAndNeitherKeyIsQuoted() throws Exception {
        String wrong = Base64.getEncoder().encodeToString(new byte[64]);
        AzureFiles client = new AzureFiles("nniaccount", files.address() + "/nniaccount", wrong, http);
        try {
            client.createShare("nnishare");
            fail("a wrong key created a share");
        } catch (CloudException e) {
            assertEquals(CloudException.Kind.AUTH, e.kind());
            assertTrue(e.getMessage(), e.getMessage().contains("answered HTTP 403 while creating file share nnishare: AuthenticationFailed:"
                    + " Server failed to authenticate the request."));
            assertFalse(e.getMessage(), e.getMessage().contains(wrong) || e.getMessage().contains(KEY));
        }
        assertEquals(1, files.refused().size());
        assertTrue(files.refused().get(0), files.refused().get(0).startsWith("signature mismatch"));
        assertFalse(Files.exists(files.folder("nnishare")));
        // the service's own checks: no x-ms-version, an unknown one
        HttpResponse<String> unversioned = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(files.address()
                + "/nniaccount/nnishare?restype=share")).PUT(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(400, unversioned.statusCode());
        assertTrue(unversioned.body(), unversioned.body().contains("<Code>MissingRequiredHeader</Code>"));
    }

    @Test
    public void anInjectedOutageIsAPassingFailure() throws Exception {
        AzureFiles client = new AzureFiles("nniaccount", files.address() + "/nniaccount", KEY, http);
        files.faults().failNext(1, 503);
        try {
            client.createShare("nnishare");
            fail("the outage was not met");
        } catch (CloudException e) {
            assertEquals(CloudException.Kind.TRANSIENT, e.kind());
            assertTrue(e.getMessage(), e.getMessage().contains("ServerBusy"));
        }
        assertTrue(client.createShare("nnishare"));
    }

    /** A request signed with {@link SharedKey}, answered as bytes. */
    private HttpResponse<byte[]> signed(String method, String path, String query, String key) throws Exception {
        URI uri = URI.create(files.address() + "/nniaccount" + path + (query == null ? "" : "?" + query));
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("x-ms-date", AzureFiles.HTTP_DATE.format(ZonedDateTime.now(ZoneOffset.UTC)));
        headers.put("x-ms-version", AzureFiles.VERSION);
        HttpRequest.Builder request = HttpRequest.newBuilder(uri).method(method, HttpRequest.BodyPublishers.noBody());
        headers.forEach(request::header);
        request.header("Authorization", new SharedKey("nniaccount", key).authorization(method, uri, headers));
        return HttpClient.newHttpClient().send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
    }
}
