package nni.api.experiment;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * An experiment as its engine sees it at one moment: a copy, read-only, not updated afterwards.
 * Made with {@link #builder(String)}; fields may be added in minor versions.
 */
public final class ExperimentInfo {

    private final String id;
    private final String status;
    private final Path directory;
    private final boolean readOnly;
    private final Instant startTime;
    private final Instant endTime;
    private final int trialConcurrency;
    private final Integer maxTrialNumber;
    private final Duration maxExperimentDuration;
    private final int trialCount;
    private final List<String> errors;
    private final String name;
    private final String platform;
    private final boolean settled;
    private final String belowStarted;
    private final boolean maximizing;
    private final Duration execDuration;
    private final String waitingForPlatform;
    private final int trialsWhenOpened;

    private ExperimentInfo(Builder b) {
        this.id = Objects.requireNonNull(b.id, "id");
        this.status = Objects.requireNonNull(b.status, "status");
        this.directory = b.directory;
        this.readOnly = b.readOnly;
        this.startTime = b.startTime;
        this.endTime = b.endTime;
        this.trialConcurrency = b.trialConcurrency;
        this.maxTrialNumber = b.maxTrialNumber;
        this.maxExperimentDuration = b.maxExperimentDuration;
        this.trialCount = b.trialCount;
        this.errors = List.copyOf(b.errors);
        this.name = b.name;
        this.platform = b.platform;
        this.settled = b.settled;
        this.belowStarted = b.belowStarted;
        this.maximizing = b.maximizing;
        this.execDuration = b.execDuration;
        this.waitingForPlatform = b.waitingForPlatform;
        this.trialsWhenOpened = b.trialsWhenOpened;
    }

    public static Builder builder(String id) {
        return new Builder(id);
    }

    public String id() {
        return id;
    }

    /** @return NNI's experiment status, spelled as NNI spells it: RUNNING, DONE, STOPPED, ... */
    public String status() {
        return status;
    }

    /** @return the experiment's folder (its database, trials' folders and logs) */
    public Path directory() {
        return directory;
    }

    /** @return true when opened for viewing only: it changes nothing and runs nothing */
    public boolean readOnly() {
        return readOnly;
    }

    public Instant startTime() {
        return startTime;
    }

    public Optional<Instant> endTime() {
        return Optional.ofNullable(endTime);
    }

    public int trialConcurrency() {
        return trialConcurrency;
    }

    /** @return the maximum number of trials; empty when unlimited */
    public Optional<Integer> maxTrialNumber() {
        return Optional.ofNullable(maxTrialNumber);
    }

    /** @return the maximum experiment duration; empty when unlimited */
    public Optional<Duration> maxExperimentDuration() {
        return Optional.ofNullable(maxExperimentDuration);
    }

    /** @return how many trials it has submitted so far */
    public int trialCount() {
        return trialCount;
    }

    /** @return why it is in ERROR, or failed in part; empty when nothing went wrong */
    public List<String> errors() {
        return errors;
    }

    /** @return its {@code experimentName}; empty when the configuration gives none (since 1.1) */
    public Optional<String> name() {
        return Optional.ofNullable(name);
    }

    /**
     * @return the platform it runs on ({@code local}, {@code remote}, ...), {@code hybrid} when it uses
     *         several, as NNI's experiment list shows it; empty when not known (since 1.1)
     */
    public Optional<String> platform() {
        return Optional.ofNullable(platform);
    }

    /**
     * @return true when it will not start trials any more by itself: DONE, ERROR, STOPPED or VIEWED
     *         (NNI's single-experiment port then serves it as the experiment that ended) (since 1.3)
     */
    public boolean settled() {
        return settled;
    }

    /**
     * @return a note saying so when its maximum number of trials was lowered below the trials already
     *         started (they run on; none is cancelled); empty otherwise (since 1.3)
     */
    public Optional<String> belowStarted() {
        return Optional.ofNullable(belowStarted);
    }

    /**
     * @return true unless its tuner's {@code optimize_mode} is {@code minimize}: whether a higher
     *         default metric is better, as NNI reads it (since 1.5)
     */
    public boolean maximizing() {
        return maximizing;
    }

    /** @return how long it has run, to the millisecond: the time while it may start trials (since 1.5) */
    public Duration execDuration() {
        return execDuration;
    }

    /** @return why it waits for a platform that is away (gone, or not yet back); empty when none is (since 1.5) */
    public Optional<String> waitingForPlatform() {
        return Optional.ofNullable(waitingForPlatform);
    }

    /**
     * @return how many trials it had when it was opened: those stored for one resumed or viewed, 0 for
     *         one created; unlike {@link #trialCount()}, not moved by the trials it starts since (since 1.5)
     */
    public int trialsWhenOpened() {
        return trialsWhenOpened;
    }

    @Override
    public String toString() {
        return "experiment " + id + " " + status;
    }

    public static final class Builder {
        private final String id;
        private String status;
        private Path directory;
        private boolean readOnly;
        private Instant startTime;
        private Instant endTime;
        private int trialConcurrency;
        private Integer maxTrialNumber;
        private Duration maxExperimentDuration;
        private int trialCount;
        private List<String> errors = List.of();
        private String name;
        private String platform;
        private boolean settled;
        private String belowStarted;
        private boolean maximizing = true;
        private Duration execDuration = Duration.ZERO;
        private String waitingForPlatform;
        private int trialsWhenOpened;

        private Builder(String id) {
            this.id = id;
        }

        public Builder status(String status) {
            this.status = status;
            return this;
        }

        public Builder directory(Path directory) {
            this.directory = directory;
            return this;
        }

        public Builder readOnly(boolean readOnly) {
            this.readOnly = readOnly;
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

        public Builder trialConcurrency(int trialConcurrency) {
            this.trialConcurrency = trialConcurrency;
            return this;
        }

        public Builder maxTrialNumber(Integer maxTrialNumber) {
            this.maxTrialNumber = maxTrialNumber;
            return this;
        }

        public Builder maxExperimentDuration(Duration maxExperimentDuration) {
            this.maxExperimentDuration = maxExperimentDuration;
            return this;
        }

        public Builder trialCount(int trialCount) {
            this.trialCount = trialCount;
            return this;
        }

        public Builder errors(List<String> errors) {
            this.errors = errors;
            return this;
        }

        /** @since 1.1 */
        public Builder name(String name) {
            this.name = name;
            return this;
        }

        /** @since 1.1 */
        public Builder platform(String platform) {
            this.platform = platform;
            return this;
        }

        /** @since 1.3 */
        public Builder settled(boolean settled) {
            this.settled = settled;
            return this;
        }

        /** @since 1.3 */
        public Builder belowStarted(String belowStarted) {
            this.belowStarted = belowStarted;
            return this;
        }

        /** @since 1.5 */
        public Builder maximizing(boolean maximizing) {
            this.maximizing = maximizing;
            return this;
        }

        /** @since 1.5 */
        public Builder execDuration(Duration execDuration) {
            this.execDuration = Objects.requireNonNull(execDuration, "execDuration");
            return this;
        }

        /** @since 1.5 */
        public Builder waitingForPlatform(String waitingForPlatform) {
            this.waitingForPlatform = waitingForPlatform;
            return this;
        }

        /** @since 1.5 */
        public Builder trialsWhenOpened(int trialsWhenOpened) {
            this.trialsWhenOpened = trialsWhenOpened;
            return this;
        }

        public ExperimentInfo build() {
            return new ExperimentInfo(this);
        }
    }
}
