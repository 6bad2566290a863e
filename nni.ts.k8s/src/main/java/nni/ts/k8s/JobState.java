package nni.ts.k8s;

/**
 * A job's state as NNI reads it from the operator's status, mapped to what the platform does:
 * keep waiting, note that it runs, or end the environment with a reason.
 *
 * @param phase   where the job is
 * @param message the operator's words about it (a condition's message, a completion phrase), or empty
 */
public record JobState(Phase phase, String message) {

    /** Where a job is, as NNI maps each operator's states. */
    public enum Phase {
        /** created or being scheduled: NNI's WAITING */
        PENDING,
        /** its pods run */
        RUNNING,
        /** ended well */
        SUCCEEDED,
        /** ended badly */
        FAILED,
        /** a state NNI leaves the trial's status unchanged on (restarting, suspended, being deleted) */
        UNCHANGED;

        public boolean isTerminal() {
            return this == SUCCEEDED || this == FAILED;
        }
    }

    public static JobState of(Phase phase) {
        return new JobState(phase, "");
    }

    public static JobState of(Phase phase, String message) {
        return new JobState(phase, message == null ? "" : message);
    }
}
