package nni.api.experiment;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * An experiment's profile at one moment, the pieces of NNI's {@code ExperimentProfile} (what
 * {@code GET /experiment} answers and nnictl and NNI's Python client read): its configuration with
 * secrets masked, its clock, folder and how far its trial sequence and profile revisions went.
 * Read-only. Made with {@link #builder(String)}; fields may be added in minor versions.
 *
 * @since 1.3
 */
public final class ExperimentProfile {

    private final String id;
    private final Map<String, Object> params;
    private final Duration execDuration;
    private final Path logDir;
    private final Instant startTime;
    private final Instant endTime;
    private final long nextSequenceId;
    private final long revision;

    private ExperimentProfile(Builder b) {
        this.id = Objects.requireNonNull(b.id, "id");
        this.params = Collections.unmodifiableMap(Objects.requireNonNull(b.params, "params"));
        this.execDuration = Objects.requireNonNull(b.execDuration, "execDuration");
        this.logDir = Objects.requireNonNull(b.logDir, "logDir");
        this.startTime = Objects.requireNonNull(b.startTime, "startTime");
        this.endTime = b.endTime;
        this.nextSequenceId = b.nextSequenceId;
        this.revision = b.revision;
    }

    public static Builder builder(String id) {
        return new Builder(id);
    }

    public String id() {
        return id;
    }

    /**
     * @return the configuration as NNI would POST it (camelCase keys in NNI's order), every secret
     *         masked: a JSON tree of maps, lists, strings, numbers and booleans, not to be changed
     */
    public Map<String, Object> params() {
        return params;
    }

    /** @return how long it has run (NNI's {@code execDuration}: time while it may start trials) */
    public Duration execDuration() {
        return execDuration;
    }

    /** @return its folder (NNI's {@code logDir}) */
    public Path logDir() {
        return logDir;
    }

    public Instant startTime() {
        return startTime;
    }

    /** @return when it ended; empty while it has not */
    public Optional<Instant> endTime() {
        return Optional.ofNullable(endTime);
    }

    /** @return the sequence id its next trial gets: how many trials it has had */
    public long nextSequenceId() {
        return nextSequenceId;
    }

    /** @return the revision of its stored profile, raised by each change of its configuration; 0 before any */
    public long revision() {
        return revision;
    }

    @Override
    public String toString() {
        return "profile of experiment " + id + " revision " + revision;
    }

    public static final class Builder {
        private final String id;
        private Map<String, Object> params;
        private Duration execDuration = Duration.ZERO;
        private Path logDir;
        private Instant startTime;
        private Instant endTime;
        private long nextSequenceId;
        private long revision;

        private Builder(String id) {
            this.id = id;
        }

        public Builder params(Map<String, Object> params) {
            this.params = params;
            return this;
        }

        public Builder execDuration(Duration execDuration) {
            this.execDuration = execDuration;
            return this;
        }

        public Builder logDir(Path logDir) {
            this.logDir = logDir;
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

        public Builder nextSequenceId(long nextSequenceId) {
            this.nextSequenceId = nextSequenceId;
            return this;
        }

        public Builder revision(long revision) {
            this.revision = revision;
            return this;
        }

        public ExperimentProfile build() {
            return new ExperimentProfile(this);
        }
    }
}
