package nni.ts.cloud;

import java.util.Objects;

/**
 * What a cluster says about one job, reduced to what a {@link JobLauncher} acts on. Immutable.
 */
public final class JobStatus {

    /** Where the job is. */
    public enum Phase {
        /** accepted, not running yet (queued, scheduling, pulling its image) */
        WAITING,
        /** its tasks run */
        RUNNING,
        /** being stopped: still alive */
        STOPPING,
        /** over, whatever the outcome ({@link #detail()} says which and why) */
        ENDED,
        /** the cluster does not know the job (404, or absent from a list) */
        MISSING,
        /** the cluster knows the job but cannot tell its state now: alive as far as known */
        UNKNOWN
    }

    private static final JobStatus MISSING = new JobStatus(Phase.MISSING, "", "");

    private final Phase phase;
    private final String detail;
    private final String url;

    private JobStatus(Phase phase, String detail, String url) {
        this.phase = Objects.requireNonNull(phase, "phase");
        this.detail = detail == null ? "" : detail;
        this.url = url == null ? "" : url;
    }

    /**
     * @param detail what a person should read: for WAITING why it waits, for ENDED the outcome with
     *               the exit code and the cluster's diagnostics; never a secret
     * @param url    the job's page on the cluster, or empty
     */
    public static JobStatus of(Phase phase, String detail, String url) {
        return new JobStatus(phase, detail, url);
    }

    public static JobStatus missing() {
        return MISSING;
    }

    public Phase phase() {
        return phase;
    }

    public String detail() {
        return detail;
    }

    public String url() {
        return url;
    }

    /** @return whether the job still lives (or may, as far as the cluster tells) */
    public boolean alive() {
        return phase != Phase.ENDED && phase != Phase.MISSING;
    }

    @Override
    public String toString() {
        return phase + (detail.isEmpty() ? "" : " (" + detail + ")");
    }
}
