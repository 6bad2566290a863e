package nni.api.experiment;

import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * One trial in full, as NNI's {@code TrialJobInfo} has it ({@code GET /trial-jobs}): its stored
 * history (status, times, log path, every parameter set it got, its FINAL metrics) with what its
 * platform says of it now while it is tracked. A copy taken at one moment, read-only. Made with
 * {@link #builder(String)}; fields may be added in minor versions.
 *
 * @since 1.3
 */
public final class TrialDetail {

    private final String id;
    private final Long sequenceId;
    private final String status;
    private final String message;
    private final Instant startTime;
    private final Instant endTime;
    private final List<String> hyperParameters;
    private final String logPath;
    private final List<MetricInfo> finalMetrics;
    private final TrialInfo current;

    private TrialDetail(Builder b) {
        this.id = Objects.requireNonNull(b.id, "id");
        this.sequenceId = b.sequenceId;
        this.status = Objects.requireNonNull(b.status, "status");
        this.message = b.message;
        this.startTime = b.startTime;
        this.endTime = b.endTime;
        this.hyperParameters = List.copyOf(b.hyperParameters);
        this.logPath = Objects.requireNonNull(b.logPath, "logPath");
        this.finalMetrics = List.copyOf(b.finalMetrics);
        this.current = b.current;
    }

    public static Builder builder(String id) {
        return new Builder(id);
    }

    public String id() {
        return id;
    }

    /** @return its number in the experiment's sequence; empty for a trial stored without one */
    public Optional<Long> sequenceId() {
        return Optional.ofNullable(sequenceId);
    }

    /** @return its stored status, spelled as NNI spells it: WAITING, RUNNING, SUCCEEDED, FAILED, USER_CANCELED, ... */
    public String status() {
        return status;
    }

    /**
     * @return why it is where it is: what its platform says now while it has not ended (why it waits
     *         changes without a status change), else the last message stored; empty when there is none
     */
    public Optional<String> message() {
        return Optional.ofNullable(message).filter(text -> !text.isEmpty());
    }

    /** @return when it started running, else when it began to wait; empty when neither happened */
    public Optional<Instant> startTime() {
        return Optional.ofNullable(startTime);
    }

    /** @return when it ended; empty while it has not */
    public Optional<Instant> endTime() {
        return Optional.ofNullable(endTime);
    }

    /**
     * @return every parameter set it got, the first and those added while it ran (multi-phase), one
     *         per {@code parameter_index} (the first given wins), each as compact JSON text; a set
     *         that is not JSON is given as it was stored
     */
    public List<String> hyperParameters() {
        return hyperParameters;
    }

    /** @return where its output is, as a URL ({@code file://localhost/...} when its platform named none) */
    public String logPath() {
        return logPath;
    }

    /** @return its FINAL metrics in the order stored */
    public List<MetricInfo> finalMetrics() {
        return finalMetrics;
    }

    /**
     * @return the trial as its running experiment tracks it (placement, host, the platform's
     *         attributes); empty when the experiment has only its stored record
     */
    public Optional<TrialInfo> current() {
        return Optional.ofNullable(current);
    }

    @Override
    public String toString() {
        return "trial " + id + " " + status;
    }

    public static final class Builder {
        private final String id;
        private Long sequenceId;
        private String status;
        private String message;
        private Instant startTime;
        private Instant endTime;
        private List<String> hyperParameters = List.of();
        private String logPath;
        private List<MetricInfo> finalMetrics = List.of();
        private TrialInfo current;

        private Builder(String id) {
            this.id = id;
        }

        public Builder sequenceId(Long sequenceId) {
            this.sequenceId = sequenceId;
            return this;
        }

        public Builder status(String status) {
            this.status = status;
            return this;
        }

        public Builder message(String message) {
            this.message = message;
            return this;
        }

        public Builder startTime(Instant startTime) {
            this.startTime = startTime;
            return this;
        }

        public Builder endTime(Instant endTime) {
            this.endTime = endTime;
            return this;
        }

        public Builder hyperParameters(List<String> hyperParameters) {
            this.hyperParameters = hyperParameters;
            return this;
        }

        public Builder logPath(String logPath) {
            this.logPath = logPath;
            return this;
        }

        public Builder finalMetrics(List<MetricInfo> finalMetrics) {
            this.finalMetrics = finalMetrics;
            return this;
        }

        public Builder current(TrialInfo current) {
            this.current = current;
            return this;
        }

        public TrialDetail build() {
            return new TrialDetail(this);
        }
    }
}
