package nni.api.model;

import java.util.Objects;

/**
 * One metric a trial reported, as NNI's trial SDK writes it:
 * {@code {"parameter_id": 0, "trial_job_id": "Ab1cD", "type": "FINAL", "sequence": 0, "value": "0.93"}}.
 *
 * @param trialId     the trial the report was attributed to by the platform (it must equal the
 *                    report's own {@code trial_job_id}; the manager rejects a mismatch)
 * @param parameterId the report's {@code parameter_id} as JSON text ({@code 0}, {@code "a"} or {@code null})
 * @param type        PERIODICAL, FINAL or REQUEST_PARAMETER
 * @param sequence    the report's {@code sequence}
 * @param value       the report's {@code value}: itself JSON text of the user's value
 *                    ({@code 0.93} or {@code {"default": 0.93}}), never double-encoded here
 * @param raw         the report line exactly as the trial wrote it, without the trailing newline
 */
public record TrialMetric(String trialId, String parameterId, MetricType type, long sequence, String value, String raw) {
    public TrialMetric {
        Objects.requireNonNull(trialId, "trialId");
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(raw, "raw");
        parameterId = parameterId == null ? "null" : parameterId;
    }
}
