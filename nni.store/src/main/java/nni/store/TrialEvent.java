package nni.store;

/**
 * One {@code TrialJobEvent} row.
 *
 * @param event      a trial status, or {@code USER_TO_CANCEL}, {@code ADD_CUSTOMIZED},
 *                   {@code ADD_HYPERPARAMETER}, {@code ADD_RESUMED}
 * @param data       the packed parameter JSON on the first WAITING event, else null
 * @param sequenceId the trial's sequence id, or null
 */
public record TrialEvent(long timestamp, String trialId, String event, String data, String logPath, Long sequenceId,
                         String message) {
}
