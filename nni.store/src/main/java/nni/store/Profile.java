package nni.store;

/**
 * One {@code ExperimentProfile} row, NNI's experiment profile.
 *
 * @param params              the canonical configuration as JSON
 * @param execDurationSeconds seconds the experiment has been running
 * @param endTime             null while not ended
 */
public record Profile(String params, String id, long execDurationSeconds, long startTime, Long endTime, String logDir,
                      long nextSequenceId, long revision) {
}
