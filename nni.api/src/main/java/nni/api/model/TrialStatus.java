package nni.api.model;

/**
 * NNI's eight trial statuses, spelled as NNI spells them on the wire and in its database.
 *
 * <pre>
 * WAITING ─► RUNNING ─► SUCCEEDED | FAILED | USER_CANCELED | EARLY_STOPPED | SYS_CANCELED
 *    └──────────────► USER_CANCELED | EARLY_STOPPED | SYS_CANCELED (cancelled before start)
 * </pre>
 *
 * {@link #UNKNOWN} means the platform cannot tell right now (for example a machine is unreachable);
 * the manager treats it like a live status and keeps the trial.
 */
public enum TrialStatus {
    UNKNOWN, WAITING, RUNNING, SUCCEEDED, FAILED, USER_CANCELED, SYS_CANCELED, EARLY_STOPPED;

    /** @return true for the five statuses a trial never leaves */
    public boolean isTerminal() {
        return switch (this) {
            case SUCCEEDED, FAILED, USER_CANCELED, SYS_CANCELED, EARLY_STOPPED -> true;
            default -> false;
        };
    }

    /** @return the status a cancelled trial ends in, as NNI decides it */
    public static TrialStatus cancelled(boolean earlyStopped) {
        return earlyStopped ? EARLY_STOPPED : USER_CANCELED;
    }
}
