package nni.api.experiment;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

import nni.api.model.TrialJob;

/**
 * A trial as its experiment sees it at one moment: a copy, read-only. Made with
 * {@link #builder(String, TrialJob)}; fields may be added in minor versions.
 */
public final class TrialInfo {

    private final String experimentId;
    private final TrialJob job;
    private final Double finalValue;
    private final List<Double> intermediate;
    private final String platform;
    private final long sequenceId;
    private final String packedParameters;
    private final String waitingFor;

    private TrialInfo(Builder b) {
        this.experimentId = Objects.requireNonNull(b.experimentId, "experimentId");
        this.job = Objects.requireNonNull(b.job, "job");
        this.finalValue = b.finalValue;
        this.intermediate = List.copyOf(b.intermediate);
        this.platform = b.platform;
        this.sequenceId = b.sequenceId;
        this.packedParameters = b.packedParameters;
        this.waitingFor = b.waitingFor;
    }

    public static Builder builder(String experimentId, TrialJob job) {
        return new Builder(experimentId, job);
    }

    public String experimentId() {
        return experimentId;
    }

    /** @return its id, status, times and parameters, as its platform last reported them */
    public TrialJob job() {
        return job;
    }

    /** @return the FINAL metric as a number; empty until reported, or when it is no number */
    public Optional<Double> finalValue() {
        return Optional.ofNullable(finalValue);
    }

    /** @return the PERIODICAL metrics that are numbers, in arrival order */
    public List<Double> intermediate() {
        return intermediate;
    }

    /** @return the platform it was placed on (its {@code trainingService} entry's name); empty before placing */
    public Optional<String> platform() {
        return Optional.ofNullable(platform);
    }

    /** @return its number in the experiment's sequence; -1 for a trial stored without one (since 1.5) */
    public long sequenceId() {
        return sequenceId;
    }

    /**
     * @return the parameter set the tuner gave, packed as the trial reads it from {@code parameter.cfg}
     *         (NNI's {@code {"parameter_id": ..., "parameters": {...}}} JSON); empty when not known (since 1.5)
     */
    public Optional<String> packedParameters() {
        return Optional.ofNullable(packedParameters);
    }

    /** @return as {@link TrialSummary#waitingFor()} (since 1.5) */
    public Optional<String> waitingFor() {
        return Optional.ofNullable(waitingFor);
    }

    @Override
    public String toString() {
        return "trial " + job.id() + " of " + experimentId + " " + job.status();
    }

    public static final class Builder {
        private final String experimentId;
        private final TrialJob job;
        private Double finalValue;
        private List<Double> intermediate = List.of();
        private String platform;
        private long sequenceId = -1;
        private String packedParameters;
        private String waitingFor;

        private Builder(String experimentId, TrialJob job) {
            this.experimentId = experimentId;
            this.job = job;
        }

        public Builder finalValue(Double finalValue) {
            this.finalValue = finalValue;
            return this;
        }

        public Builder intermediate(List<Double> intermediate) {
            this.intermediate = intermediate;
            return this;
        }

        public Builder platform(String platform) {
            this.platform = platform;
            return this;
        }

        /** @since 1.5 */
        public Builder sequenceId(long sequenceId) {
            this.sequenceId = sequenceId;
            return this;
        }

        /** @since 1.5 */
        public Builder packedParameters(String packedParameters) {
            this.packedParameters = packedParameters;
            return this;
        }

        /** @since 1.5 */
        public Builder waitingFor(String waitingFor) {
            this.waitingFor = waitingFor;
            return this;
        }

        public TrialInfo build() {
            return new TrialInfo(this);
        }
    }
}
