package nni.api.experiment;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * One thing that happened to a trial, as its experiment stored it (NNI's {@code TrialJobEvent}
 * row): a status it took, or {@code USER_TO_CANCEL}, {@code ADD_CUSTOMIZED},
 * {@code ADD_HYPERPARAMETER}, {@code ADD_RESUMED}. A copy, read-only. Made with
 * {@link #builder(Instant, String, String)}; fields may be added in minor versions (since 1.5).
 */
public final class TrialEvent {

    private final Instant timestamp;
    private final String trialId;
    private final String event;
    private final long sequenceId;
    private final String message;

    private TrialEvent(Builder b) {
        this.timestamp = Objects.requireNonNull(b.timestamp, "timestamp");
        this.trialId = Objects.requireNonNull(b.trialId, "trialId");
        this.event = Objects.requireNonNull(b.event, "event");
        this.sequenceId = b.sequenceId;
        this.message = b.message;
    }

    /**
     * @param timestamp when it happened, to the millisecond
     * @param event     a trial status's name, or one of the other events above
     */
    public static Builder builder(Instant timestamp, String trialId, String event) {
        return new Builder(timestamp, trialId, event);
    }

    /** @return when it happened, to the millisecond */
    public Instant timestamp() {
        return timestamp;
    }

    public String trialId() {
        return trialId;
    }

    /** @return a trial status's name ({@code RUNNING}), or {@code USER_TO_CANCEL}, {@code ADD_CUSTOMIZED}, ... */
    public String event() {
        return event;
    }

    /** @return the trial's number in the experiment's sequence as stored with this event; -1 when stored without one */
    public long sequenceId() {
        return sequenceId;
    }

    /** @return why, as stored with the event (a failed trial's reason); empty when none was */
    public Optional<String> message() {
        return Optional.ofNullable(message);
    }

    @Override
    public String toString() {
        return "trial " + trialId + " " + event + " at " + timestamp;
    }

    public static final class Builder {
        private final Instant timestamp;
        private final String trialId;
        private final String event;
        private long sequenceId = -1;
        private String message;

        private Builder(Instant timestamp, String trialId, String event) {
            this.timestamp = timestamp;
            this.trialId = trialId;
            this.event = event;
        }

        public Builder sequenceId(long sequenceId) {
            this.sequenceId = sequenceId;
            return this;
        }

        public Builder message(String message) {
            this.message = message;
            return this;
        }

        public TrialEvent build() {
            return new TrialEvent(this);
        }
    }
}
