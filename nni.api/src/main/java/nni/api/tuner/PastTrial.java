package nni.api.tuner;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalDouble;
import java.util.OptionalLong;

import nni.api.model.TrialStatus;

/**
 * A trial a resumed experiment had before this run ({@link DispatcherContext#pastTrials()}): what
 * an algorithm that keeps its own record of trials (a Java {@link Tuner}) needs to go on where the
 * earlier run stopped. Immutable; made with {@link #builder(String)}; fields may be added in minor
 * versions.
 *
 * @since 1.2
 */
public final class PastTrial {

    private final String trialId;
    private final Long parameterId;
    private final Map<String, Object> parameters;
    private final Double finalResult;
    private final List<Double> intermediateResults;
    private final TrialStatus status;

    private PastTrial(Builder builder) {
        this.trialId = builder.trialId;
        this.parameterId = builder.parameterId;
        this.parameters = Collections.unmodifiableMap(new LinkedHashMap<>(builder.parameters));
        this.finalResult = builder.finalResult;
        this.intermediateResults = List.copyOf(builder.intermediateResults);
        this.status = Objects.requireNonNull(builder.status, "status");
    }

    /** @param trialId the trial's id ({@code trial_job_id}) */
    public static Builder builder(String trialId) {
        return new Builder(Objects.requireNonNull(trialId, "trialId"));
    }

    public String trialId() {
        return trialId;
    }

    /**
     * @return the parameter id the trial was started with, or empty when it is not an integer (a
     *         trial added by hand, or one whose parameters came from an algorithm with ids of its own)
     */
    public OptionalLong parameterId() {
        return parameterId == null ? OptionalLong.empty() : OptionalLong.of(parameterId);
    }

    /** @return the parameters the trial was started with, as a trial sees them; empty when it had none */
    public Map<String, Object> parameters() {
        return parameters;
    }

    /** @return the number of its final result (a dict result's {@code default}), or empty when it has none */
    public OptionalDouble finalResult() {
        return finalResult == null ? OptionalDouble.empty() : OptionalDouble.of(finalResult);
    }

    /** @return the numbers of its intermediate results, in sequence order */
    public List<Double> intermediateResults() {
        return intermediateResults;
    }

    /** @return its status when the experiment was resumed: terminal, or WAITING/RUNNING when it continues now */
    public TrialStatus status() {
        return status;
    }

    @Override
    public String toString() {
        return "PastTrial[" + trialId + ", parameter " + parameterId + ", " + status
                + (finalResult == null ? "" : ", final " + finalResult) + "]";
    }

    /** Builds a {@link PastTrial}. */
    public static final class Builder {
        private final String trialId;
        private Long parameterId;
        private Map<String, Object> parameters = Map.of();
        private Double finalResult;
        private List<Double> intermediateResults = List.of();
        private TrialStatus status;

        private Builder(String trialId) {
            this.trialId = trialId;
        }

        /** @param parameterId the integer parameter id, or null when it has none */
        public Builder parameterId(Long parameterId) {
            this.parameterId = parameterId;
            return this;
        }

        public Builder parameters(Map<String, Object> parameters) {
            this.parameters = parameters == null ? Map.of() : parameters;
            return this;
        }

        /** @param finalResult the final result's number, or null when it has none */
        public Builder finalResult(Double finalResult) {
            this.finalResult = finalResult;
            return this;
        }

        public Builder intermediateResults(List<Double> intermediateResults) {
            this.intermediateResults = intermediateResults == null ? List.of() : intermediateResults;
            return this;
        }

        public Builder status(TrialStatus status) {
            this.status = status;
            return this;
        }

        /** @throws NullPointerException when no status was given */
        public PastTrial build() {
            return new PastTrial(this);
        }
    }
}
