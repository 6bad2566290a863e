package nni.store;

/**
 * One {@code MetricData} row, which is also NNI's REST {@code MetricDataRecord}.
 *
 * @param data the trial's {@code value} JSON-encoded once more, as NNI stores it
 *             (value {@code "0.93"} &rarr; {@code "\"0.93\""})
 */
public record MetricRecord(long timestamp, String trialJobId, String parameterId, String type, long sequence,
                           String data) {
}
