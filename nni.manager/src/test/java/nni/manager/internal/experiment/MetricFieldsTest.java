package nni.manager.internal.experiment;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.fail;

import java.io.IOException;
import java.util.List;

import org.junit.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/** The streaming metric reader gives what {@code readTree} gives, for the fields the experiment uses. */
public class MetricFieldsTest {

    private static final ObjectMapper JSON = new ObjectMapper();

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
