package nni.api.experiment;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * A stored experiment summed up from its database alone, from {@link ExperimentService#storedSummary}:
 * what a list of old experiments shows, without reading one whole as {@link ExperimentService#read}
 * does. A copy, read-only and safe to share between threads; made with {@link #builder(String)} by
 * the experiment's provider. Fields may be added in minor versions.
 *
 * @since 1.5
 */
public final class StoredExperiment {

    private final String id;
    private final String name;
    private final boolean maximizing;
    private final Instant startTime;
    private final Instant endTime;
    private final Duration execDuration;
    private final ExperimentSummary summary;

    private StoredExperiment(Builder b) {
        this.id = Objects.requireNonNull(b.id, "id");
        this.name = b.name;
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

    /** @return its {@code experimentName}; empty when its stored configuration gives none */
    public Optional<String> name() {
        return Optional.ofNullable(name);
    }

    /** @return true unless its tuner's {@code optimize_mode} is {@code minimize}, as {@link ExperimentInfo#maximizing()} */
    public boolean maximizing() {
        return maximizing;
    }

    /** @return when it started, as its stored profile says; empty when it has no profile stored */
    public Optional<Instant> startTime() {
        return Optional.ofNullable(startTime);
    }

    /** @return when it ended, as its stored profile says; empty when it has none or did not end */
    public Optional<Instant> endTime() {
        return Optional.ofNullable(endTime);
    }

    /** @return how long it ran, in whole seconds as its profile stores it; empty when it has no profile stored */
    public Optional<Duration> execDuration() {
        return Optional.ofNullable(execDuration);
    }

    /**
     * @return its trials counted (a status this runtime does not know counted as UNKNOWN), the best
     *         final result of its succeeded trials, its configured platform and {@code maxTrialNumber};
     *         no time left, tuner or assessor
     */
    public ExperimentSummary summary() {
        return summary;
    }

    @Override
    public String toString() {
        return "stored experiment " + id + ": " + summary;
    }

    /** Not thread-safe; a builder is used by one thread and then dropped. */
    public static final class Builder {
        private final String id;
        private String name;
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

        /** @throws NullPointerException when no summary is given */
        public StoredExperiment build() {
            return new StoredExperiment(this);
        }
    }
}
