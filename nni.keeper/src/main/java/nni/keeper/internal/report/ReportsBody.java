package nni.keeper.internal.report;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;

import nni.http.HttpError;
import nni.http.JsonBodies;
import nni.http.WholeNumbers;

/**
 * A keeper's batch, {@code {"reports": [...]}}, checked and read into {@link KeeperReport}s: every
 * report needs a {@code kind} (a string) and a {@code seq} (a whole number from 1); {@code time}
 * (from 0) and {@code code} (an int) are whole numbers when given. A batch with any problem is
 * refused whole, with a 400 naming the first problem and the report's place.
 *
 * <p>The route's body is read in one pass ({@link #read(byte[])}): every metric a keeper reports
 * arrives here, fifty thousand a second at issue 28's rate, and a map per report with its boxed
 * numbers and its copies of the same kind and trial was a third of what the whole route allocated.
 * The answers stay those of reading the body with {@link JsonBodies#object} and checking the map
 * ({@link #of(Map)}, which the shared-storage channel still uses): the body's JSON is read to its
 * end under the same rules before any report's problem is answered, and the first report's problem
 * is the one answered. {@code ReportsBodyTest} compares the two on fuzzed bodies.
 */
final class ReportsBody {

    static final String WHAT = "the body";
    private static final String NOT_A_BATCH = "expected {\"reports\": [...]}";

    private ReportsBody() {
    }

    /**
     * @return the body's reports, in its order
     * @throws HttpError 400 for a body that is not strict JSON, not a batch, or holds a report with a problem
     */
    static List<KeeperReport> read(byte[] body) {
        return read(body, body.length);
    }

    /**
     * Reads the first {@code length} bytes of {@code body} as {@link #read(byte[])} reads an array of
     * that length; the reports keep none of the array (it is a buffer lent for the request).
     */
    static List<KeeperReport> read(byte[] body, int length) {
        BatchReader reader = new BatchReader();
        JsonBodies.read(body, length, WHAT, reader);
        if (reader.problem != null) {
            throw reader.problem;
        }
        return reader.reports;
    }

    /**
     * @param body a batch as a map, as the shared-storage channel reads its files
     * @return its reports, in its order
     * @throws HttpError 400 for a body that is not a batch or holds a report with a problem
     */
    static List<KeeperReport> of(Map<String, Object> body) {
        if (!(body.get("reports") instanceof List<?> reports)) {
            throw HttpError.badRequest(NOT_A_BATCH);
        }
        List<KeeperReport> checked = new ArrayList<>(reports.size());
        for (int i = 0; i < reports.size(); i++) {
            if (!(reports.get(i) instanceof Map<?, ?> map) || !(map.get("kind") instanceof String)) {
                throw needsSeqAndKind(i);
            }
            long seq;
            try {
                seq = WholeNumbers.require("seq", map.get("seq"), 1, Long.MAX_VALUE);
                WholeNumbers.optional("time", map.get("time"), 0, Long.MAX_VALUE);
                WholeNumbers.optional("code", map.get("code"), Integer.MIN_VALUE, Integer.MAX_VALUE);
            } catch (HttpError e) { // the report's place is named only when there is a problem: this runs for every report
                throw inReport(i, e);
            }
            @SuppressWarnings("unchecked")
            Map<String, Object> fields = (Map<String, Object>) map;
            checked.add(KeeperReport.of(seq, fields));
        }
        return checked;
    }

    private static HttpError needsSeqAndKind(int index) {
        return HttpError.badRequest("reports[" + index + "]: every report needs a 'seq' and a 'kind'");
    }

    private static HttpError inReport(int index, HttpError problem) {
        return HttpError.badRequest("reports[" + index + "]." + problem.getMessage());
    }

    /**
     * Reads the batch token by token. A report's {@code seq}, {@code kind}, {@code trial}, {@code line},
     * {@code time} and {@code code} are kept in fields of this reader (reused from report to report),
     * whole numbers unboxed; a map is made only for a report that is not a metric, or has other fields.
     * Every value is read, as {@link JsonBodies#value} reads it where this reader does not need to, so
     * that the parser stops, fails and names places exactly as it does there.
     */
    private static final class BatchReader implements JsonBodies.ValueReader<Void> {
        private static final int SEQ = 0;
        private static final int KIND = 1;
        private static final int TRIAL = 2;
        private static final int LINE = 3;
        private static final int TIME = 4;
        private static final int CODE = 5;
        private static final String[] NAMES = {"seq", "kind", "trial", "line", "time", "code"};
        /** The kinds keepers send, given as these constants rather than a copy per report. */
        private static final String[] KINDS = {KeeperReport.METRIC, "ready", "started", "ended", "log", "gpu"};

        final List<KeeperReport> reports = new ArrayList<>();
        /** The first problem, answered once the whole body was read (a JSON error after it wins, as before). */
        HttpError problem;

        /** The known fields of the report being read, by their index in {@link #NAMES}. */
        private final Object[] values = new Object[NAMES.length];
        private final Whole seq = new Whole();
        private final Whole time = new Whole();
        private final Whole code = new Whole();
        /** The known fields seen in the report being read, in their order. */
        private final int[] order = new int[NAMES.length];
        private int seen;
        /** The fields of the report being read, made at its first other field; else null. */
        private Map<String, Object> fields;
        /** The trial of the metric before: consecutive metrics name the same one. */
        private String lastTrial = "";

        @Override
        public Void read(JsonParser parser, JsonToken first) throws IOException {
            if (first != JsonToken.START_OBJECT) {
                JsonBodies.value(parser, first, WHAT);
                problem = HttpError.badRequest(WHAT + " must be a JSON object");
                return null;
            }
            boolean batch = false;
            boolean batchSeen = false;
            Set<String> others = null; // the body's other keys, only to refuse one seen twice
            for (String key = parser.nextFieldName(); key != null; key = parser.nextFieldName()) {
                JsonToken token = parser.nextToken();
                boolean twice;
                if (key.equals("reports")) {
                    if (token == JsonToken.START_ARRAY && !batchSeen) {
                        reports(parser);
                        batch = true;
                    } else {
                        JsonBodies.value(parser, token, WHAT);
                    }
                    twice = batchSeen;
                    batchSeen = true;
                } else {
                    JsonBodies.value(parser, token, WHAT);
                    if (others == null) {
                        others = new HashSet<>();
                    }
                    twice = !others.add(key);
                }
                if (twice) {
                    throw JsonBodies.twice(parser, key, WHAT);
                }
            }
            if (!batch && problem == null) {
                problem = HttpError.badRequest(NOT_A_BATCH);
            }
            return null;
        }

        private void reports(JsonParser parser) throws IOException {
            int index = 0;
            for (JsonToken token = parser.nextToken(); token != JsonToken.END_ARRAY; token = parser.nextToken(), index++) {
                if (token == JsonToken.START_OBJECT) {
                    report(parser, index);
                } else {
                    JsonBodies.value(parser, token, WHAT);
                    if (problem == null) {
                        problem = needsSeqAndKind(index);
                    }
                }
            }
        }

        private void report(JsonParser parser, int index) throws IOException {
            Arrays.fill(values, null);
            seq.clear();
            time.clear();
            code.clear();
            seen = 0;
            fields = null;
            for (String key = parser.nextFieldName(); key != null; key = parser.nextFieldName()) {
                JsonToken token = parser.nextToken();
                int known = known(key);
                if (known < 0) {
                    Object value = JsonBodies.value(parser, token, WHAT);
                    if (fields == null) {
                        fields = knownFields();
                    }
                    int before = fields.size();
                    fields.put(key, value);
                    if (fields.size() == before) {
                        throw JsonBodies.twice(parser, key, WHAT);
                    }
                    continue;
                }
                switch (known) {
                    case SEQ -> seq.read(parser, token);
                    case TIME -> time.read(parser, token);
                    case CODE -> code.read(parser, token);
                    case KIND -> values[KIND] = token == JsonToken.VALUE_STRING ? kind(parser) : JsonBodies.value(parser, token, WHAT);
                    case TRIAL -> values[TRIAL] = token == JsonToken.VALUE_STRING ? trial(parser) : JsonBodies.value(parser, token, WHAT);
                    default -> values[LINE] = token == JsonToken.VALUE_STRING ? parser.getText() : JsonBodies.value(parser, token, WHAT);
                }
                for (int i = 0; i < seen; i++) {
                    if (order[i] == known) {
                        throw JsonBodies.twice(parser, key, WHAT);
                    }
                }
                order[seen++] = known;
                if (fields != null) {
                    fields.put(key, value(known));
                }
            }
            if (problem == null) {
                check(index);
            }
        }

        /** Checks the report just read as the map's check does, and keeps it when it has no problem. */
        private void check(int index) {
            if (!(values[KIND] instanceof String kind)) {
                problem = needsSeqAndKind(index);
                return;
            }
            long sequence;
            try {
                sequence = seq.require("seq", 1, Long.MAX_VALUE);
                time.optional("time", 0, Long.MAX_VALUE);
                code.optional("code", Integer.MIN_VALUE, Integer.MAX_VALUE);
            } catch (HttpError e) {
                problem = inReport(index, e);
                return;
            }
            if (kind.equals(KeeperReport.METRIC) && values[LINE] instanceof String line) {
                reports.add(new KeeperReport(sequence, KeeperReport.METRIC, String.valueOf(values[TRIAL]), line, null));
            } else {
                reports.add(new KeeperReport(sequence, kind, null, null, fields != null ? fields : knownFields()));
            }
        }

        /** @return the index of a known field's name in {@link #NAMES}, or -1 */
        private static int known(String key) {
            return switch (key) {
                case "seq" -> SEQ;
                case "kind" -> KIND;
                case "trial" -> TRIAL;
                case "line" -> LINE;
                case "time" -> TIME;
                case "code" -> CODE;
                default -> -1;
            };
        }

        /** @return the known fields seen so far, in their order, their values as {@link JsonBodies} gives them */
        private Map<String, Object> knownFields() {
            Map<String, Object> known = new LinkedHashMap<>();
            for (int i = 0; i < seen; i++) {
                known.put(NAMES[order[i]], value(order[i]));
            }
            return known;
        }

        private Object value(int known) {
            return switch (known) {
                case SEQ -> seq.boxed();
                case TIME -> time.boxed();
                case CODE -> code.boxed();
                default -> values[known];
            };
        }

        /** @return the kind string, one of {@link #KINDS} when it is one */
        private static String kind(JsonParser parser) throws IOException {
            char[] text = parser.getTextCharacters();
            int offset = parser.getTextOffset();
            int length = parser.getTextLength();
            for (String kind : KINDS) {
                if (same(kind, text, offset, length)) {
                    return kind;
                }
            }
            return parser.getText();
        }

        /** @return the trial string, the metric before's when it is the same */
        private String trial(JsonParser parser) throws IOException {
            if (!same(lastTrial, parser.getTextCharacters(), parser.getTextOffset(), parser.getTextLength())) {
                lastTrial = parser.getText();
            }
            return lastTrial;
        }

        private static boolean same(String known, char[] text, int offset, int length) {
            if (known.length() != length) {
                return false;
            }
            for (int i = 0; i < length; i++) {
                if (known.charAt(i) != text[offset + i]) {
                    return false;
                }
            }
            return true;
        }
    }

    /**
     * A whole-number field of a report as read: a plain int or long unboxed, any other value as
     * {@link JsonBodies} gives it. Checked as {@link WholeNumbers} checks the value it gives.
     */
    private static final class Whole {
        private boolean plain;
        private long number;
        private Object value;

        void clear() {
            plain = false;
            value = null;
        }

        void read(JsonParser parser, JsonToken token) throws IOException {
            if (token == JsonToken.VALUE_NUMBER_INT) {
                JsonParser.NumberType type = parser.getNumberType();
                if (type == JsonParser.NumberType.INT || type == JsonParser.NumberType.LONG) {
                    plain = true;
                    number = parser.getLongValue();
                    return;
                }
            }
            plain = false;
            value = JsonBodies.value(parser, token, WHAT);
        }

        long require(String field, long min, long max) {
            return plain && number >= min && number <= max ? number : WholeNumbers.require(field, boxed(), min, max);
        }

        void optional(String field, long min, long max) {
            if (!plain || number < min || number > max) {
                WholeNumbers.optional(field, boxed(), min, max);
            }
        }

        /** @return the value as {@link JsonBodies} gives it: a plain number as Integer when it fits one, else Long */
        Object boxed() {
            if (!plain) {
                return value;
            }
            return number == (int) number ? (Object) Integer.valueOf((int) number) : (Object) Long.valueOf(number);
        }
    }
}
