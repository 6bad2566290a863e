package nni.api.experiment;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * An experiment summed up for an overview, from {@link ExperimentReading#summary()}: its trials
 * counted in the one vocabulary the runtime's faces share, the best final result, the time left,
 * and the parts of its configuration an overview shows as written. A copy taken at one moment,
 * read-only and safe to share between threads; made with {@link #builder()} by the experiment's
 * provider. Fields may be added in minor versions.
 *
 * <p>Counting: SYS_CANCELED (the platform ended the trial) counts as failed, UNKNOWN (the platform
 * cannot tell now) as running, as NNI's web UI counts them.
 *
 * @since 1.5
 */
public final class ExperimentSummary {

    private final String configuredPlatform;
    private final String maxExperimentDurationText;
    private final String tuner;
    private final String assessor;
    private final int succeeded;
    private final int failed;
    private final int stoppedEarly;
    private final int cancelled;
    private final int running;
    private final int waiting;
    private final int started;
    private final String countsText;
    private final Integer maxTrials;
    private final String belowStarted;
    private final Map<String, Integer> byStatus;
    private final Double best;
    private final Duration timeLeft;
    private final String progressLine;

    private ExperimentSummary(Builder b) {
        this.configuredPlatform = b.configuredPlatform;
        this.maxExperimentDurationText = b.maxExperimentDurationText;
        this.tuner = b.tuner;
        this.assessor = b.assessor;
        this.succeeded = b.succeeded;
        this.failed = b.failed;
        this.stoppedEarly = b.stoppedEarly;
        this.cancelled = b.cancelled;
        this.running = b.running;
        this.waiting = b.waiting;
        this.started = b.started;
        this.countsText = Objects.requireNonNull(b.countsText, "countsText");
        this.maxTrials = b.maxTrials;
        this.belowStarted = b.belowStarted;
        this.byStatus = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(b.byStatus));
        this.best = b.best;
        this.timeLeft = b.timeLeft;
        this.progressLine = b.progressLine == null ? countsText : b.progressLine;
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * @return the platform its configuration names for its first (usually only) training service,
     *         as written: never {@code hybrid}, unlike {@link ExperimentInfo#platform()}; empty when
     *         not known
     */
    public Optional<String> configuredPlatform() {
        return Optional.ofNullable(configuredPlatform);
    }

    /**
     * @return its {@code maxExperimentDuration} as its configuration writes it ({@code 10m},
     *         {@code 2h}); empty when unlimited or not written as text (a limit changed at run time
     *         is kept as a number of seconds)
     */
    public Optional<String> maxExperimentDurationText() {
        return Optional.ofNullable(maxExperimentDurationText);
    }

    /** @return its tuner's name as configured; empty when it has none */
    public Optional<String> tuner() {
        return Optional.ofNullable(tuner);
    }

    /** @return its assessor's name as configured; empty when it has none */
    public Optional<String> assessor() {
        return Optional.ofNullable(assessor);
    }

    public int succeeded() {
        return succeeded;
    }

    /** @return trials that failed, those the platform ended (SYS_CANCELED) included */
    public int failed() {
        return failed;
    }

    public int stoppedEarly() {
        return stoppedEarly;
    }

    /** @return trials cancelled by the user */
    public int cancelled() {
        return cancelled;
    }

    /** @return trials running, those whose state the platform cannot tell now (UNKNOWN) included */
    public int running() {
        return running;
    }

    public int waiting() {
        return waiting;
    }

    /** @return every trial submitted so far, whatever became of it */
    public int started() {
        return started;
    }

    /**
     * @return the counts as a person reads them, as the console and the web UI show them:
     *         {@code succeeded 14  failed 6  of max 20}
     */
    public String countsText() {
        return countsText;
    }

    /** @return its {@code maxTrialNumber} the counts are shown against; empty when it has none */
    public Optional<Integer> maxTrials() {
        return Optional.ofNullable(maxTrials);
    }

    /**
     * @return a note saying so when its maximum number of trials is below the trials already
     *         started (as {@link ExperimentInfo#belowStarted()}); empty otherwise
     */
    public Optional<String> belowStarted() {
        return Optional.ofNullable(belowStarted);
    }

    /**
     * @return how many trials have each of NNI's trial statuses, every status present (0 when none
     *         has it), in the order NNI declares them; not to be changed
     */
    public Map<String, Integer> byStatus() {
        return byStatus;
    }

    /** @return the best final result of its trials, higher or lower as it optimises; empty while none has one */
    public Optional<Double> best() {
        return Optional.ofNullable(best);
    }

    /**
     * @return the time estimated until it ends by its limits, {@link Duration#ZERO} once it no
     *         longer counts time; empty while it cannot be told (no limit, or no trial finished yet)
     */
    public Optional<Duration> timeLeft() {
        return Optional.ofNullable(timeLeft);
    }

    /**
     * @return the experiment at a glance on one line, as the console's {@code nni:top} and the run
     *         mode show it: {@code abc12345 RUNNING  succeeded 3  failed 0  running 2  of max 8  best
     *         0.93 (Ab1cD)  elapsed 01:02  left 00:30}; the counts text when its provider gave none
     *         (since 1.5)
     */
    public String progressLine() {
        return progressLine;
    }

    @Override
    public String toString() {
        return countsText;
    }

    /** Not thread-safe; a builder is used by one thread and then dropped. */
    public static final class Builder {
        private String configuredPlatform;
        private String maxExperimentDurationText;
        private String tuner;
        private String assessor;
        private int succeeded;
        private int failed;
        private int stoppedEarly;
        private int cancelled;
        private int running;
        private int waiting;
        private int started;
        private String countsText;
        private Integer maxTrials;
        private String belowStarted;
        private Map<String, Integer> byStatus = Map.of();
        private Double best;
        private Duration timeLeft;
        private String progressLine;

        private Builder() {
        }

        public Builder configuredPlatform(String configuredPlatform) {
            this.configuredPlatform = configuredPlatform;
            return this;
        }

        public Builder maxExperimentDurationText(String maxExperimentDurationText) {
            this.maxExperimentDurationText = maxExperimentDurationText;
            return this;
        }

        public Builder tuner(String tuner) {
            this.tuner = tuner;
            return this;
        }

        public Builder assessor(String assessor) {
            this.assessor = assessor;
            return this;
        }

        /** The counts as the summary shows them, each 0 or more, and their text (required). */
        public Builder counts(int succeeded, int failed, int stoppedEarly, int cancelled, int running, int waiting,
                              int started, String text) {
            this.succeeded = succeeded;
            this.failed = failed;
            this.stoppedEarly = stoppedEarly;
            this.cancelled = cancelled;
            this.running = running;
            this.waiting = waiting;
            this.started = started;
            this.countsText = text;
            return this;
        }

        public Builder maxTrials(Integer maxTrials) {
            this.maxTrials = maxTrials;
            return this;
        }

        public Builder belowStarted(String belowStarted) {
            this.belowStarted = belowStarted;
            return this;
        }

        /** @param byStatus status to count, in the order shown; copied */
        public Builder byStatus(Map<String, Integer> byStatus) {
            this.byStatus = Objects.requireNonNull(byStatus, "byStatus");
            return this;
        }

        public Builder best(Double best) {
            this.best = best;
            return this;
        }

        public Builder timeLeft(Duration timeLeft) {
            this.timeLeft = timeLeft;
            return this;
        }

        public Builder progressLine(String progressLine) {
            this.progressLine = progressLine;
            return this;
        }

        /** @throws NullPointerException when no counts were given */
        public ExperimentSummary build() {
            return new ExperimentSummary(this);
        }
    }
}
