package nni.ts.k8s;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.net.URI;
import java.util.LinkedHashMap;
import java.util.Map;

import org.junit.Test;

/**
 * Shared Key's string to sign as Microsoft's "Authorize with Shared Key" lays it out, and its
 * signature checked against one computed outside Java (Python's {@code hmac} with SHA-256).
 */
public class SharedKeyTest {

    private static final String KEY = "bm5pLW9zZ2kgdGVzdCBrZXkgZm9yIHNoYXJlZCBrZXkgc2lnbmluZyAwMTIzNDU2Nzg5";

    private static Map<String, String> putRange() {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("x-ms-version", "2023-11-03");
        headers.put("X-MS-Write", "update");
        headers.put("x-ms-date", "Mon, 23 Nov 2026 06:00:00 GMT");
        headers.put("x-ms-range", "  bytes=0-4 ");
        headers.put("Content-Length", "5");
        return headers;
    }

    @Test
    public void theStringToSignHasTheStandardHeadersThenTheSortedMsHeadersThenTheResource() {
        URI uri = URI.create("https://acct.file.core.windows.net/share/nni/a%20b.txt?comp=range");
        assertEquals("PUT\n\n\n5\n\n\n\n\n\n\n\n\n"
                + "x-ms-date:Mon, 23 Nov 2026 06:00:00 GMT\nx-ms-range:bytes=0-4\nx-ms-version:2023-11-03\nx-ms-write:update\n"
                + "/acct/share/nni/a%20b.txt\ncomp:range", SharedKey.stringToSign("acct", "PUT", uri, putRange()));
    }

    @Test
    public void aZeroContentLengthIsSignedEmptyAndQueryParametersAreSortedLowerCasedAndDecoded() {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("Content-Length", "0");
        headers.put("x-ms-version", "2023-11-03");
        String text = SharedKey.stringToSign("acct", "put", URI.create("http://127.0.0.1:1234/acct/share?restype=share&Timeout=3%2C0"),
                headers);
        assertEquals("PUT\n\n\n\n\n\n\n\n\n\n\n\nx-ms-version:2023-11-03\n/acct/acct/share\nrestype:share\ntimeout:3,0", text);
    }

    @Test
    public void theSignatureIsHmacSha256WithTheDecodedKey() {
        URI uri = URI.create("https://acct.file.core.windows.net/share/nni/a%20b.txt?comp=range");
        assertEquals("SharedKey acct:1uN+bZYcYWEPWqFdTDc7lCw2R4v4EMETm9YDaDPXoF0=",
                new SharedKey("acct", KEY).authorization("PUT", uri, putRange()));
    }

    @Test
    public void requestDatesHaveATwoDigitDayAsHttpDatesDo() {
        assertEquals("Tue, 03 Nov 2026 06:00:00 GMT", AzureFiles.HTTP_DATE.format(java.time.ZonedDateTime.of(2026, 11, 3, 6, 0, 0, 0,
                java.time.ZoneOffset.UTC)));
    }

    @Test
    public void aKeyThatIsNotBase64IsRefusedWithoutQuotingIt() {
        try {
            new SharedKey("acct", "not base64 at all!");
            fail("accepted");
        } catch (IllegalArgumentException e) {
            assertTrue(e.getMessage(), e.getMessage().contains("storage account 'acct'"));
            assertFalse(e.getMessage(), e.getMessage().contains("not base64 at all!"));
        }
    }
}
