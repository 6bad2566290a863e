package nni.api.experiment;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * One experiment of the list of every experiment under the root, from {@link ExperimentService#listing}:
 * what a list of experiments, open or stored, shows of each. A copy, read-only and safe to share
 * between threads; made with {@link #builder(String)} by the experiment's provider. Fields may be
 * added in minor versions.
 *
 * @since 1.5
 */
public final class ExperimentEntry {

    private final String id;
    private final String name;
    private final String status;
    private final boolean open;
    private final boolean maximizing;
    private final Instant startTime;
    private final Instant endTime;
    private final Duration execDuration;
    private final ExperimentSummary summary;

    private ExperimentEntry(Builder b) {
        this.id = Objects.requireNonNull(b.id, "id");
        this.name = b.name;
        this.status = Objects.requireNonNull(b.status, "status");
        this.open = b.open;
        this.maximizing = b.maximizing;
        this.startTime = b.startTime;
        this.endTime = b.endTime;
        this.execDuration = b.execDuration;
        this.summary = Objects.requireNonNull(b.summary, "summary");
    }

    public static Builder builder(String id) {
        return new Builder(id);
    }

    public String id() {
        return id;
    }

    /** @return its {@code experimentName}; empty when its configuration gives none */
    public Optional<String> name() {
        return Optional.ofNullable(name);
    }

    /**
     * @return an open experiment's own status ({@link ExperimentInfo#status()}); of one not open, the
     *         status it ended with as NNI's registry keeps it (DONE, ERROR, STOPPED), as
     *         {@link ExperimentService#endedStatus} answers
     */
    public String status() {
        return status;
    }

    /** @return true when it is open (running, or viewed) in this runtime */
    public boolean open() {
        return open;
    }

    /** @return true unless its tuner's {@code optimize_mode} is {@code minimize}, as {@link ExperimentInfo#maximizing()} */
    public boolean maximizing() {
        return maximizing;
    }

    /** @return when it started; empty for a stored one without a profile stored */
    public Optional<Instant> startTime() {
        return Optional.ofNullable(startTime);
    }

    /** @return when it ended; empty when it did not end, or its stored profile has none */
    public Optional<Instant> endTime() {
        return Optional.ofNullable(endTime);
    }

    /** @return how long it ran; empty for a stored one without a profile stored */
    public Optional<Duration> execDuration() {
        return Optional.ofNullable(execDuration);
    }

    /**
     * @return its trials counted, the best final result of its succeeded trials, its configured
     *         platform ({@link ExperimentSummary#configuredPlatform()}) and {@code maxTrialNumber};
     *         of a stored one not open, as its database has them
     */
    public ExperimentSummary summary() {
        return summary;
    }

    @Override
    public String toString() {
        return "experiment " + id + " " + status + (open ? " (open): " : ": ") + summary;
    }

    /** Not thread-safe; a builder is used by one thread and then dropped. */
    public static final class Builder {
        private final String id;
        private String name;
        private String status;
        private boolean open;
        private boolean maximizing = true;
        private Instant startTime;
        private Instant endTime;
        private Duration execDuration;
        private ExperimentSummary summary;

        private Builder(String id) {
            this.id = id;
        }

        public Builder name(String name) {
            this.name = name;
            return this;
        }

        /** Required. */
        public Builder status(String status) {
            this.status = status;
            return this;
        }

        public Builder open(boolean open) {
            this.open = open;
            return this;
        }

        public Builder maximizing(boolean maximizing) {
            this.maximizing = maximizing;
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

        public Builder execDuration(Duration execDuration) {
            this.execDuration = execDuration;
            return this;
        }

        /** Required. */
        public Builder summary(ExperimentSummary summary) {
            this.summary = summary;
            return this;
        }

        /** @throws NullPointerException when no status or summary is given */
        public ExperimentEntry build() {
            return new ExperimentEntry(this);
        }
    }
}
