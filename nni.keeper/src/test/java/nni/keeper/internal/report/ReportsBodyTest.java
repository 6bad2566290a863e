package nni.keeper.internal.report;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertSame;
import static org.junit.Assert.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.StringJoiner;

import org.junit.Test;

import nni.http.HttpError;
import nni.http.JsonBodies;
import nni.http.WholeNumbers;

/**
 * The one-pass reader of a keeper's batch answers as reading the body into maps and checking them
 * did (the route's code before it, kept here as {@link #byMaps}): the same reports, or the same
 * 400 with the same message, on batches as keepers send them, on odd ones, and on both broken one
 * character at a time (seeded, so that a failure repeats).
 */
public class ReportsBodyTest {

    private static final String METRIC_LINE = "{\\\"parameter_id\\\": 0, \\\"trial_job_id\\\": \\\"Tr001\\\", \\\"type\\\":"
            + " \\\"PERIODICAL\\\", \\\"sequence\\\": 3, \\\"value\\\": \\\"0.5\\\"}";

    @Test
    public void aBatchOfMetricsGivesEachMetricByItsTrialAndLineAndOneTrialText() {
        StringJoiner reports = new StringJoiner(",", "{\"reports\":[", "]}");
        for (int seq = 7; seq < 10; seq++) {
            reports.add("{\"seq\":" + seq + ",\"kind\":\"metric\",\"trial\":\"Tr001\",\"line\":\"" + METRIC_LINE + "\"}");
        }
        List<KeeperReport> read = ReportsBody.read(bytes(reports.toString()));
        assertEquals(3, read.size());
        for (int i = 0; i < 3; i++) {
            KeeperReport report = read.get(i);
            assertEquals(new KeeperReport(7 + i, "metric", "Tr001", METRIC_LINE.replace("\\\"", "\""), null), report);
            assertSame("the kind is the reader's constant", KeeperReport.METRIC, report.kind());
            assertSame("consecutive metrics of one trial share its text", read.get(0).trial(), report.trial());
        }
        assertEquals(byMaps(bytes(reports.toString())), read);
    }

    @Test
    public void anyOtherReportKeepsItsFieldsAsTheMapsHadThem() {
        String body = "{\"reports\":[{\"kind\":\"started\",\"seq\":2,\"trial\":\"Tr001\",\"time\":1700000000000,\"dir\":\"/w\"},"
                + "{\"seq\":3,\"kind\":\"metric\",\"line\":5,\"trial\":\"Tr001\"},"
                + "{\"seq\":4,\"kind\":\"gpu\",\"gpuCount\":1,\"gpuInfos\":[{\"index\":0,\"util\":0.5}]}]}";
        List<KeeperReport> read = ReportsBody.read(bytes(body));
        assertEquals(Map.of("kind", "started", "seq", 2, "trial", "Tr001", "time", 1700000000000L, "dir", "/w"), read.get(0).fields());
        assertEquals(List.of("kind", "seq", "trial", "time", "dir"), new ArrayList<>(read.get(0).fields().keySet()));
        assertNull("a metric whose line is no string is not a metric to store", read.get(1).line());
        assertEquals("gpu", read.get(2).kind());
        assertEquals(outcome(body, ReportsBodyTest::byMaps), outcome(body, ReportsBody::read));
    }

    @Test
    public void theOnePassReaderAnswersEveryBodyAsTheMapsDid() {
        Random random = new Random(38);
        List<String> bodies = new ArrayList<>(List.of("", " ", "{}", "[]", "null", "5", "\"x\"", "{\"reports\":null}",
                "{\"reports\":{}}", "{\"reports\":[]}", "{\"reports\":[]} {\"reports\":[]}", "{\"reports\":[],\"reports\":[]}",
                "{\"reports\":[1]}", "{\"reports\":[{}]}", "{\"reports\":[{\"seq\":1}]}", "{\"reports\":[{\"kind\":\"ready\"}]}",
                "{\"reports\":[{\"seq\":1,\"seq\":2,\"kind\":\"ready\"}]}", "{\"reports\":[{\"seq\":1,\"kind\":\"ready\",\"x\":1,\"x\":2}]}",
                "\uFEFF{\"reports\":[]}", "{\"reports\":[]}\u0000", "{\"reports\":[{\"seq\":1,\"kind\":\"ready\"},2,{\"seq\":0}]}",
                "{\"reports\":[{\"seq\":0,\"kind\":\"ready\"},{\"seq\":1,\"kind\":\"x\",\"a\":{\"b\":1,\"b\":2}}]}",
                "{\"reports\":[{\"seq\":1e400,\"kind\":\"ready\"}]}", "{\"reports\":[{\"seq\":1,\"kind\":\"ready\",\"time\":-1}]}",
                "{\"reports\":[{\"seq\":1,\"kind\":\"ended\",\"code\":2147483648}]}", "{\"reports\":[{\"seq\":\"1\",\"kind\":\"ready\"}]}",
                "{\"reports\":[{\"seq\":9223372036854775808,\"kind\":\"ready\"}]}", "{\"reports\":[{\"seq\":null,\"kind\":\"ready\"}]}",
                "{\"reports\":[{\"seq\":1,\"kind\":\"ready\",\"time\":null,\"code\":null}]}", "{\"x\":1,\"reports\":[],\"x\":2}",
                "{\"reports\":[{\"seq\":1,\"kind\":\"metr\\u0069c\",\"trial\":\"T\\u0031\",\"line\":\"{}\"}]}"));
        for (int i = 0; i < 4_000; i++) {
            bodies.add(batch(random));
        }
        String alphabet = "{}[]\":,. -+0123456789eEtrufalsn\\\t\n\u0001\u00e9\u0000kindseqtrialine";
        for (int i = 0; i < 12_000; i++) {
            StringBuilder body = new StringBuilder(bodies.get(random.nextInt(bodies.size())));
            for (int edits = 1 + random.nextInt(3); edits > 0; edits--) {
                int at = random.nextInt(body.length() + 1);
                char c = alphabet.charAt(random.nextInt(alphabet.length()));
                switch (body.length() == 0 ? 0 : random.nextInt(4)) {
                    case 0 -> body.insert(at, c);
                    case 1 -> body.deleteCharAt(Math.min(at, body.length() - 1));
                    case 2 -> body.setCharAt(Math.min(at, body.length() - 1), c);
                    default -> body.setLength(at); // torn
                }
            }
            bodies.add(body.toString());
        }
        int accepted = 0;
        int reportRefused = 0; // the others: refused for the body's JSON or shape
        byte[][] lent = {new byte[0]}; // as the route's buffer, reused: the bytes of earlier bodies stay behind each one
        for (String body : bodies) {
            String expected = outcome(body, ReportsBodyTest::byMaps);
            assertEquals(body, expected, outcome(body, ReportsBody::read));
            assertEquals(body, expected, outcome(body, b -> {
                if (lent[0].length < b.length) {
                    lent[0] = Arrays.copyOf(lent[0], b.length + 64);
                }
                System.arraycopy(b, 0, lent[0], 0, b.length);
                return ReportsBody.read(lent[0], b.length);
            }));
            accepted += expected.startsWith("reports") ? 1 : 0;
            reportRefused += expected.startsWith("400 reports[") ? 1 : 0;
            if (!expected.startsWith("400 the body")) { // a map the shared-storage channel reads: its check is the same
                assertEquals(body, expected, outcome(body, b -> ReportsBody.of(JsonBodies.object(b, ReportsBody.WHAT))));
            }
        }
        assertTrue("bodies accepted: " + accepted, accepted > 1_500);
        assertTrue("bodies refused for a report's field: " + reportRefused, reportRefused > 1_000);
    }

    /** @return the reports the body holds as the route read them before, the maps turned into reports as its peer took them */
    private static List<KeeperReport> byMaps(byte[] bytes) {
        Map<String, Object> body = JsonBodies.object(bytes, "the body");
        if (!(body.get("reports") instanceof List<?> reports)) {
            throw HttpError.badRequest("expected {\"reports\": [...]}");
        }
        long[] sequences = new long[reports.size()];
        for (int i = 0; i < reports.size(); i++) {
            if (!(reports.get(i) instanceof Map<?, ?> map) || !(map.get("kind") instanceof String)) {
                throw HttpError.badRequest("reports[" + i + "]: every report needs a 'seq' and a 'kind'");
            }
            try {
                sequences[i] = WholeNumbers.require("seq", map.get("seq"), 1, Long.MAX_VALUE);
                WholeNumbers.optional("time", map.get("time"), 0, Long.MAX_VALUE);
                WholeNumbers.optional("code", map.get("code"), Integer.MIN_VALUE, Integer.MAX_VALUE);
            } catch (HttpError e) {
                throw HttpError.badRequest("reports[" + i + "]." + e.getMessage());
            }
        }
        List<KeeperReport> read = new ArrayList<>();
        for (int i = 0; i < reports.size(); i++) {
            @SuppressWarnings("unchecked")
            Map<String, Object> report = (Map<String, Object>) reports.get(i);
            // the session stored a metric by String.valueOf(trial) and its line when the line was a string
            if (report.get("kind").equals("metric") && report.get("line") instanceof String line) {
                read.add(new KeeperReport(sequences[i], "metric", String.valueOf(report.get("trial")), line, null));
            } else {
                read.add(new KeeperReport(sequences[i], (String) report.get("kind"), null, null, report));
            }
        }
        return read;
    }

    private interface Reader {
        List<KeeperReport> read(byte[] body);
    }

    /** @return the refusal's status and message, or the reports with every value's type and every map's key order */
    private static String outcome(String body, Reader reader) {
        try {
            StringJoiner reports = new StringJoiner("\n", "reports\n", "");
            for (KeeperReport report : reader.read(bytes(body))) {
                reports.add(report.seq() + " " + report.kind() + " " + report.trial() + " " + report.line() + " " + typed(report.fields()));
            }
            return reports.toString();
        } catch (HttpError e) {
            return e.status() + " " + e.getMessage();
        } catch (RuntimeException e) { // a number Jackson cannot convert (9E36854775808) fails so on the route, a 500: the same here
            return e.getClass().getName() + " " + e.getMessage();
        }
    }

    private static String typed(Object value) {
        if (value instanceof Map<?, ?> map) {
            StringJoiner fields = new StringJoiner(", ", "{", "}");
            map.forEach((key, field) -> fields.add(key + "=" + typed(field)));
            return fields.toString();
        }
        if (value instanceof List<?> list) {
            StringJoiner items = new StringJoiner(", ", "[", "]");
            list.forEach(item -> items.add(typed(item)));
            return items.toString();
        }
        return value == null ? "null" : value.getClass().getSimpleName() + ":" + value;
    }

    /** @return a batch near what keepers send: mostly metrics, some other reports, some fields odd, missing or twice */
    private static String batch(Random random) {
        StringJoiner reports = new StringJoiner(",", "[", "]");
        int seq = 1 + random.nextInt(5);
        for (int n = random.nextInt(6); n > 0; n--) {
            reports.add(random.nextInt(40) == 0 ? pick(random, "1", "null", "\"r\"", "[]") : report(random, seq++));
        }
        List<String> fields = new ArrayList<>(List.of("\"reports\":" + reports));
        if (random.nextInt(8) == 0) {
            fields.add(random.nextInt(fields.size() + 1), "\"pad\":" + value(random, 2));
        }
        if (random.nextInt(20) == 0) {
            fields.add(random.nextInt(fields.size() + 1), "\"reports\":" + value(random, 1));
        }
        StringJoiner body = new StringJoiner(",", "{", "}");
        fields.forEach(body::add);
        return body.toString();
    }

    private static String report(Random random, int seq) {
        String kind = random.nextInt(3) > 0 ? "metric" : pick(random, "ready", "started", "ended", "log", "gpu", "other", "metr\\u0069c");
        List<String> fields = new ArrayList<>();
        fields.add("\"seq\":" + (random.nextInt(20) > 0 ? Integer.toString(seq)
                : pick(random, "0", "-1", "2147483648", "9223372036854775807", "9223372036854775808", "1.0", "1e3", "\"5\"", "null", "true")));
        fields.add("\"kind\":" + (random.nextInt(30) > 0 ? "\"" + kind + "\"" : pick(random, "5", "null", "{}", "\"\"")));
        if (random.nextInt(6) > 0) {
            fields.add("\"trial\":" + pick(random, "\"Tr001\"", "\"Tr001\"", "\"Tr002\"", "\"\"", "null", "7", "\"T\\\"x\""));
        }
        if (kind.equals("metric") && random.nextInt(8) > 0) {
            fields.add("\"line\":" + (random.nextInt(10) > 0 ? "\"" + METRIC_LINE + "\"" : value(random, 1)));
        }
        for (String name : List.of("time", "code")) {
            if (random.nextInt(6) == 0) {
                fields.add("\"" + name + "\":" + pick(random, "0", "1700000000000", "-1", "2147483648", "1e400", "1.5", "\"x\"", "null"));
            }
        }
        for (int extra = random.nextInt(4) == 0 ? 1 + random.nextInt(3) : 0; extra > 0; extra--) {
            fields.add("\"" + pick(random, "dir", "error", "text", "gpuInfos", "request", "x") + "\":" + value(random, 2));
        }
        if (random.nextInt(25) == 0) {
            fields.add(fields.get(random.nextInt(fields.size()))); // a key twice
        }
        for (int i = fields.size() - 1; i > 0; i--) { // in any order
            int j = random.nextInt(i + 1);
            String moved = fields.get(i);
            fields.set(i, fields.get(j));
            fields.set(j, moved);
        }
        StringJoiner report = new StringJoiner(",", "{", "}");
        fields.forEach(report::add);
        return report.toString();
    }

    private static String value(Random random, int depth) {
        int choice = random.nextInt(depth > 0 ? 12 : 9);
        return switch (choice) {
            case 0 -> "null";
            case 1 -> "true";
            case 2 -> "-12";
            case 3 -> "12345678901234567890";
            case 4 -> "0.25";
            case 5 -> "1e400";
            case 6 -> "\"t\\u00e9xt\"";
            case 7 -> "\"\"";
            case 8 -> "\"a\\\\b\"";
            case 9 -> "[" + value(random, depth - 1) + "," + value(random, depth - 1) + "]";
            case 10 -> "{\"a\":" + value(random, depth - 1) + ",\"b\":" + value(random, depth - 1) + "}";
            default -> "{\"a\":1,\"a\":" + value(random, depth - 1) + "}";
        };
    }

    private static String pick(Random random, String... choices) {
        return choices[random.nextInt(choices.length)];
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
