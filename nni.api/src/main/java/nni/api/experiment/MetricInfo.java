package nni.api.experiment;

import java.time.Instant;
import java.util.Objects;

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

    private MetricInfo(Builder b) {
        this.trialId = Objects.requireNonNull(b.trialId, "trialId");
        this.type = Objects.requireNonNull(b.type, "type");
        this.sequence = b.sequence;
        this.timestamp = Objects.requireNonNull(b.timestamp, "timestamp");
        this.data = Objects.requireNonNull(b.data, "data");
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

        public MetricInfo build() {
            return new MetricInfo(this);
        }
    }
}
