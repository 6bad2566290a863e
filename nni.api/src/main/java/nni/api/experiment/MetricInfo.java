package nni.api.experiment;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * One metric a trial reported, as stored (NNI's {@code MetricDataRecord}): read-only. Made with
 * {@link #builder(String)}; fields may be added in minor versions.
 */
public final class MetricInfo {

    private final String trialId;
    private final String type;
    private final long sequence;
    private final Instant timestamp;
    private final String data;
    private final String parameterId;

    private MetricInfo(Builder b) {
        this.trialId = Objects.requireNonNull(b.trialId, "trialId");
        this.type = Objects.requireNonNull(b.type, "type");
        this.sequence = b.sequence;
        this.timestamp = Objects.requireNonNull(b.timestamp, "timestamp");
        this.data = Objects.requireNonNull(b.data, "data");
        this.parameterId = b.parameterId;
    }

    public static Builder builder(String trialId) {
        return new Builder(trialId);
    }

    public String trialId() {
        return trialId;
    }

    /** @return FINAL, PERIODICAL or CUSTOM, as NNI names them */
    public String type() {
        return type;
    }

    /** @return its number among the trial's metrics */
    public long sequence() {
        return sequence;
    }

    public Instant timestamp() {
        return timestamp;
    }

    /** @return the value as NNI stores it: the trial's JSON, JSON-encoded once more */
    public String data() {
        return data;
    }

    /**
     * @return the id of the parameter set the trial reported it for, as NNI's trial SDK sends it
     *         ({@code parameter_id}, kept as text); empty when the trial sent none (since 1.3)
     */
    public Optional<String> parameterId() {
        return Optional.ofNullable(parameterId);
    }

    @Override
    public String toString() {
        return type + " metric " + sequence + " of trial " + trialId;
    }

    public static final class Builder {
        private final String trialId;
        private String type;
        private long sequence;
        private Instant timestamp;
        private String data;
        private String parameterId;

        private Builder(String trialId) {
            this.trialId = trialId;
        }

        public Builder type(String type) {
            this.type = type;
            return this;
        }

        public Builder sequence(long sequence) {
            this.sequence = sequence;
            return this;
        }

        public Builder timestamp(Instant timestamp) {
            this.timestamp = timestamp;
            return this;
        }

        public Builder data(String data) {
            this.data = data;
            return this;
        }

        /** @since 1.3 */
        public Builder parameterId(String parameterId) {
            this.parameterId = parameterId;
            return this;
        }

        public MetricInfo build() {
            return new MetricInfo(this);
        }
    }
}
