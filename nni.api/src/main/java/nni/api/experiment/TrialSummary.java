package nni.api.experiment;

import java.util.Map;
import java.util.Objects;
import java.util.Optional;

import nni.api.model.TrialJob;

/**
 * A trial as its experiment sees it at one moment, its intermediate results counted rather than
 * copied: what views over many trials read (a table page, a chart of final results), where
 * {@link TrialInfo} would copy every trial's whole series. A copy, read-only. Made with
 * {@link #builder(String, TrialJob)}; fields may be added in minor versions (since 1.5).
 */
public final class TrialSummary {

    private final String experimentId;
    private final TrialJob job;
    private final long sequenceId;
    private final Map<String, Object> parameters;
    private final Double finalValue;
    private final Double latestValue;
    private final int intermediateCount;
    private final String platform;
    private final String waitingFor;

    private TrialSummary(Builder b) {
        this.experimentId = Objects.requireNonNull(b.experimentId, "experimentId");
        this.job = Objects.requireNonNull(b.job, "job");
        this.sequenceId = b.sequenceId;
        this.parameters = b.parameters;
        this.finalValue = b.finalValue;
        this.latestValue = b.latestValue;
        this.intermediateCount = b.intermediateCount;
        this.platform = b.platform;
        this.waitingFor = b.waitingFor;
    }

    /** @param job its id, status, times, as its platform last reported them */
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

    /** @return its number in the experiment's sequence; -1 for a trial stored without one */
    public long sequenceId() {
        return sequenceId;
    }

    /**
     * @return the parameters the trial sees (the tuner's set unpacked), in the order the tuner gave
     *         them; a map not to be changed (it is not copied)
     */
    public Map<String, Object> parameters() {
        return parameters;
    }

    /** @return the FINAL metric as a number; empty until reported, or when it is no number */
    public Optional<Double> finalValue() {
        return Optional.ofNullable(finalValue);
    }

    /** @return the latest PERIODICAL metric that is a number; empty before the first */
    public Optional<Double> latestValue() {
        return Optional.ofNullable(latestValue);
    }

    /** @return how many PERIODICAL metrics that are numbers it reported */
    public int intermediateCount() {
        return intermediateCount;
    }

    /** @return the platform it was placed on (its {@code trainingService} entry's name); empty before placing */
    public Optional<String> platform() {
        return Optional.ofNullable(platform);
    }

    /**
     * @return why a WAITING trial waits when its platform is away (gone, or not yet back); empty
     *         otherwise, and always for an experiment opened read-only
     */
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
        private long sequenceId = -1;
        private Map<String, Object> parameters = Map.of();
        private Double finalValue;
        private Double latestValue;
        private int intermediateCount;
        private String platform;
        private String waitingFor;

        private Builder(String experimentId, TrialJob job) {
            this.experimentId = experimentId;
            this.job = job;
        }

        public Builder sequenceId(long sequenceId) {
            this.sequenceId = sequenceId;
            return this;
        }

        /** @param parameters kept as given, not copied: pass one nobody changes */
        public Builder parameters(Map<String, Object> parameters) {
            this.parameters = Objects.requireNonNull(parameters, "parameters");
            return this;
        }

        public Builder finalValue(Double finalValue) {
            this.finalValue = finalValue;
            return this;
        }

        public Builder latestValue(Double latestValue) {
            this.latestValue = latestValue;
            return this;
        }

        public Builder intermediateCount(int intermediateCount) {
            this.intermediateCount = intermediateCount;
            return this;
        }

        public Builder platform(String platform) {
            this.platform = platform;
            return this;
        }

        public Builder waitingFor(String waitingFor) {
            this.waitingFor = waitingFor;
            return this;
        }

        public TrialSummary build() {
            return new TrialSummary(this);
        }
    }
}
