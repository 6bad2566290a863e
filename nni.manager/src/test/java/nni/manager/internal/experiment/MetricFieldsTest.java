package nni.manager.internal.experiment;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import org.junit.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/** The metric readers give what {@code readTree} gives, for the fields the experiment uses. */
public class MetricFieldsTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String TRIAL = "Ab1cD";
    private static final String SDK_LINE = "{\"parameter_id\": 0, \"trial_job_id\": \"Ab1cD\", \"type\": \"PERIODICAL\","
            + " \"sequence\": 3, \"value\": \"0.5\"}";

    @Test
    public void aLineAsTheSdkPrintsItIsReadByHandAsJacksonReadsIt() throws IOException {
        MetricFields scanned = MetricFields.scan(SDK_LINE, TRIAL);
        assertNotNull("the SDK's line is read without Jackson", scanned);
        assertEquals(new MetricFields(true, "PERIODICAL", TRIAL, true, "0.5", null, 3, "0"), scanned);
        assertEquals(MetricFields.of(MetricFields.read(JSON, SDK_LINE)), scanned);
        for (String flat : List.of("{}", " {\t\"type\" :\"FINAL\" ,\r\n\"value\":null}trailing",
                "{\"trial_job_id\": null, \"parameter_id\": -0, \"sequence\": -123456789012345678}",
                "{\"type\": \"X\", \"value\": \"\", \"other\": 1.5e-3, \"flag\": false, \"parameter_id\": \"7\"}")) {
            assertNotNull(flat, MetricFields.scan(flat, TRIAL));
            assertEquals(flat, MetricFields.of(MetricFields.read(JSON, flat)), MetricFields.scan(flat, TRIAL));
        }
    }

    /**
     * The hand reader and Jackson agree on every line: lines near the SDK's, broken or changed one
     * character at a time (seeded, so a failure repeats), give the same fields or both fail.
     */
    @Test
    public void theHandReaderAgreesWithJacksonOnEveryLine() {
        List<String> lines = new ArrayList<>(List.of(SDK_LINE,
                "{\"type\": \"FINAL\", \"value\": \"{\\\"default\\\": 0.9}\", \"sequence\": 12345678901234567890}",
                "{\"type\": \"FINAL\", \"value\": 1e400, \"parameter_id\": 1.0, \"sequence\": \"7\", \"trial_job_id\": 5}",
                "{\"type\": null, \"value\": true, \"sequence\": null, \"parameter_id\": false, \"trial_job_id\": \"\u00e9\"}",
                "{\"type\": \"PERIODICAL\", \"value\": [1, {\"a\": null}], \"value\": \"2\", \"sequence\": -0, \"n\": -01}",
                "{\"type\": \"REQUEST_PARAMETER\", \"trial_job_id\": \"Ab1cD\", \"trial_job_id\": null, \"sequence\": 9.5}"));
        String alphabet = "{}[]\":,. -+0123456789eEtrufalsn\\\t\n\u0001\u00e9abcdTYPEvl_";
        Random random = new Random(28);
        for (int i = 0; i < 20_000; i++) {
            StringBuilder line = new StringBuilder(lines.get(random.nextBoolean() ? 0 : random.nextInt(6)));
            for (int edits = 1 + random.nextInt(3); edits > 0; edits--) {
                int at = random.nextInt(line.length() + 1);
                char c = alphabet.charAt(random.nextInt(alphabet.length()));
                switch (random.nextInt(3)) {
                    case 0 -> line.insert(at, c);
                    case 1 -> line.deleteCharAt(Math.min(at, line.length() - 1));
                    default -> line.setCharAt(Math.min(at, line.length() - 1), c);
                }
            }
            lines.add(line.toString());
        }
        int scanned = 0;
        for (String line : lines) {
            MetricFields expected;
            try {
                expected = MetricFields.of(MetricFields.read(JSON, line));
            } catch (IOException notJson) {
                expected = null;
            }
            MetricFields fields = MetricFields.scan(line, TRIAL);
            if (fields != null) {
                scanned++;
                assertEquals(line, expected, fields);
            }
            try {
                assertEquals(line, expected, MetricFields.of(JSON, line, TRIAL));
            } catch (IOException notJson) {
                assertNull(line + " is JSON for Jackson", expected);
            }
        }
        assertTrue("the comparison covers lines read by hand: " + scanned, scanned > 2_000);
    }

    @Test
    public void readsTheUsedFieldsAsReadTreeDoes() throws IOException {
        List<String> lines = List.of(
                "{\"parameter_id\": 0, \"trial_job_id\": \"Ab1cD\", \"type\": \"PERIODICAL\", \"sequence\": 3, \"value\": \"0.5\"}",
                "{\"parameter_id\": null, \"type\": \"FINAL\", \"sequence\": \"7\", \"value\": {\"default\": 0.9, \"loss\": [1, 2]}}",
                "{\"type\": \"FINAL\", \"value\": 12345678901234567890, \"extra\": {\"a\": [1, {\"b\": null}]}, \"sequence\": 4000000000}",
                "{\"type\": \"PERIODICAL\", \"value\": 1.5e3, \"parameter_id\": 2.0, \"sequence\": true, \"value\": false}",
                "{\"type\": \"REQUEST_PARAMETER\", \"trial_job_id\": \"x\\\"y\\u00e9\"}",
                "{}");
        for (String line : lines) {
            ObjectNode expected = (ObjectNode) JSON.readTree(line);
            expected.retain("type", "trial_job_id", "value", "sequence", "parameter_id");
            assertEquals(line, expected, MetricFields.read(JSON, line));
        }
        for (String notAnObject : List.of("5", "\"text\"", "[1, 2]", "null", "")) {
            assertEquals(notAnObject, JSON.readTree(notAnObject), MetricFields.read(JSON, notAnObject));
        }
        for (String broken : List.of("{\"type\": ", "{\"type\" \"FINAL\"}", "{\"value\": [1, }", "{'type': 1}")) {
            try {
                MetricFields.read(JSON, broken);
                fail("accepted " + broken);
            } catch (IOException expected) {
                // not JSON
            }
        }
    }

    @Test
    public void plainNumbersAndStringsAsJacksonReadsAndWritesThem() throws IOException {
        for (String number : List.of("0", "-1", "-0", "0.25", "1e3", "-2.5E-3", "1E+2", "0.0e-0", "10", "12345678901234567890", "1e400")) {
            assertEquals(number, JSON.readTree(number).asDouble(), MetricFields.plainNumber(number), 0);
        }
        for (String notPlain : List.of("NaN", "Infinity", "01", "-01", ".5", "1.", "+1", " 1", "1 ", "1d", "0x10", "\"1\"",
                "{\"default\": 1}", "", "-", "1e", "1e+", "1.5e", "--1", "1.2.3", "\u0663", "1\u0663")) {
            assertNull(notPlain, MetricFields.plainNumber(notPlain));
        }
        for (String text : List.of("0.5", "", "{\"default\": 1}", "a\\b", "tab\there", "é ü / ✓")) {
            String literal = MetricFields.plainStringLiteral(text);
            if (literal != null) {
                assertEquals(text, JSON.writeValueAsString(text), literal);
            }
        }
        assertNull(MetricFields.plainStringLiteral("{\"default\": 1}"));
        assertEquals("\"0.5\"", MetricFields.plainStringLiteral("0.5"));
    }
}
