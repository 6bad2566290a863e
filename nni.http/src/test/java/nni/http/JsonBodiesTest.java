package nni.http;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import org.junit.Test;

/** What every JSON request body is read by: one value, as written, and nothing that Jackson would let pass. */
public class JsonBodiesTest {

    private static Object read(String text) {
        return JsonBodies.read(text.getBytes(StandardCharsets.UTF_8), "the body");
    }

    private static String refusal(byte[] body) {
        HttpError error = assertThrows(HttpError.class, () -> JsonBodies.read(body, "the body"));
        assertEquals(400, error.status());
        return error.getMessage();
    }

    private static String refusal(String text) {
        return refusal(text.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    public void valuesAreReadAsWrittenInTheirOrder() {
        Object value = read(" {\"b\": [1, 4294967296, 123456789012345678901234567890, 1.5, 1e400, \"s\", true, null], \"a\": {}} ");
        assertEquals(Map.of("b", Arrays.asList(1, 4294967296L, new BigInteger("123456789012345678901234567890"),
                new BigDecimal("1.5"), new BigDecimal("1e400"), "s", true, null), "a", Map.of()), value);
        assertEquals(List.of("b", "a"), List.copyOf(((Map<?, ?>) value).keySet()));
        assertEquals("x", read("\"x\""));
    }

    @Test
    public void trailingContentADuplicateKeyABomOrANulIsRefusedNamingIt() {
        String trailing = refusal("{\"a\": 1} {\"a\": 2}");
        assertTrue(trailing, trailing.contains("more after its JSON value") && trailing.contains("line 1, column 9"));
        assertTrue(refusal("{\"a\": 1}garbage").contains("more after its JSON value"));
        String twice = refusal("{\"a\": {\"k\": 1, \"k\": null}}");
        assertTrue(twice, twice.contains("the key \"k\" twice"));
        assertTrue(refusal("{\"a\": null, \"a\": null}").contains("the key \"a\" twice"));
        byte[] bom = {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF, '{', '}'};
        assertTrue(refusal(bom).contains("byte order mark"));
        byte[] nul = {'{', '}', 0};
        assertTrue(refusal(nul), refusal(nul).contains("NUL byte at offset 2"));
        assertTrue(refusal("").contains("is empty"));
        assertTrue(refusal("{\"a\": }").contains("is not JSON"));
    }

    @Test
    public void aBodyInALentBufferIsReadToItsLengthOnly() {
        byte[] buffer = "{\"a\": [1, 2]}\u0000 {\"b\": 1}".getBytes(StandardCharsets.UTF_8);
        assertEquals(Map.of("a", List.of(1, 2)), readLent(buffer, 13));
        HttpError torn = assertThrows(HttpError.class, () -> readLent(buffer, 12));
        assertEquals(refusal("{\"a\": [1, 2]"), torn.getMessage());
        HttpError empty = assertThrows(HttpError.class, () -> readLent(buffer, 0));
        assertEquals(refusal(""), empty.getMessage());
    }

    private static Object readLent(byte[] buffer, int length) {
        return JsonBodies.read(buffer, length, "the body", (parser, first) -> JsonBodies.value(parser, first, "the body"));
    }

    @Test
    public void aNumberNoValueCanHoldIsRefusedNamingWhere() {
        String refusal = refusal("{\"a\": [1, 9223372E36854775808]}");
        assertTrue(refusal, refusal.contains("holds a number no value can hold") && refusal.contains("line 1, column 11"));
        assertTrue(refusal("1e2147483648").contains("holds a number no value can hold"));
    }
}
