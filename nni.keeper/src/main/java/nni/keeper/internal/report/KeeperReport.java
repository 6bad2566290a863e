package nni.keeper.internal.report;

import java.util.Map;

/**
 * One numbered report of a keeper, its fields checked ({@code seq} a whole number from 1, {@code kind}
 * a string, {@code time} and {@code code} whole numbers when given). A metric report whose line is a
 * string (every metric a keeper sends) is given by its trial and line alone: a batch carries
 * thousands of them and a map each cost more than the metric. Any other report keeps all its fields,
 * as {@link nni.http.JsonBodies} reads them.
 *
 * @param seq    the report's sequence number
 * @param kind   {@code metric}, {@code ready}, {@code started}, {@code ended}, {@code log}, {@code gpu}, or
 *               one this manager does not know
 * @param trial  for a metric: its {@code trial} field as text ({@code "null"} when absent); else null
 * @param line   for a metric: the metric line as the trial printed it; else null
 * @param fields for any other report: its fields; null for a metric
 */
public record KeeperReport(long seq, String kind, String trial, String line, Map<String, Object> fields) {

    static final String METRIC = "metric";

    /** @return whether this is a metric report ({@link #trial()} and {@link #line()} given) */
    public boolean isMetric() {
        return line != null;
    }

    /** @return the report of these fields, which were checked: a metric by its trial and line */
    static KeeperReport of(long seq, Map<String, Object> fields) {
        String kind = (String) fields.get("kind");
        if (kind.equals(METRIC) && fields.get("line") instanceof String line) {
            return new KeeperReport(seq, METRIC, String.valueOf(fields.get("trial")), line, null);
        }
        return new KeeperReport(seq, kind, null, null, fields);
    }
}
