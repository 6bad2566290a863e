package nni.store;

import java.util.Set;

/**
 * A trial as rebuilt from its events.
 *
 * @param status     the last status event (USER_TO_CANCEL counts as USER_CANCELED)
 * @param parameters the packed parameter JSON of index 0, or null
 * @param startTime  RUNNING time, else the first WAITING time; null when none
 * @param endTime    terminal time or null
 */
public record TrialRecord(String id, Long sequenceId, String status, String parameters, Long submitTime,
                          Long startTime, Long endTime, String logPath, String message) {

    private static final Set<String> STATUSES = Set.of("UNKNOWN", "WAITING", "RUNNING", "SUCCEEDED", "FAILED",
            "USER_CANCELED", "SYS_CANCELED", "EARLY_STOPPED");
    private static final Set<String> TERMINAL = Set.of("SUCCEEDED", "FAILED", "USER_CANCELED", "SYS_CANCELED",
            "EARLY_STOPPED");

    static TrialRecord first(TrialEvent event) {
        return new TrialRecord(event.trialId(), null, "WAITING", null, event.timestamp(), null, null, null, null)
                .apply(event);
    }

    TrialRecord apply(TrialEvent event) {
        String newStatus = status;
        if (STATUSES.contains(event.event())) {
            newStatus = event.event();
        } else if ("USER_TO_CANCEL".equals(event.event())) {
            newStatus = "USER_CANCELED";
        }
        Long start = startTime;
        if ("RUNNING".equals(event.event())) {
            start = event.timestamp();
        } else if (start == null && "WAITING".equals(event.event())) {
            start = event.timestamp();
        }
        // a cancel requested and never followed by the trial's end (the runtime died meanwhile) ends the trial then
        boolean ends = TERMINAL.contains(event.event()) || "USER_TO_CANCEL".equals(event.event());
        Long end = TERMINAL.contains(newStatus) ? (ends ? Long.valueOf(event.timestamp()) : endTime) : null;
        return new TrialRecord(id, sequenceId != null ? sequenceId : event.sequenceId(), newStatus,
                parameters != null || "ADD_HYPERPARAMETER".equals(event.event()) ? parameters : event.data(),
                submitTime, start, end, event.logPath() != null ? event.logPath() : logPath,
                event.message() != null ? event.message() : message);
    }

    public boolean terminal() {
        return TERMINAL.contains(status);
    }
}
