package nni.api.experiment;

import java.util.List;
import java.util.Objects;

/**
 * One installed algorithm service as the runtime lists it ({@link InstalledAlgorithms}): what it is,
 * the names an experiment file may give it (matched ignoring case) and the bundle that provides it.
 * A copy taken at one moment, read-only. Made with {@link #builder(String)}; fields may be added in
 * minor versions.
 *
 * @since 1.5
 */
public final class AlgorithmView {

    /** {@link #kind()} of a tuner written in Java. */
    public static final String TUNER = "tuner";
    /** {@link #kind()} of an assessor written in Java. */
    public static final String ASSESSOR = "assessor";
    /** {@link #kind()} of a dispatcher that runs advisors (and the algorithms it names) in Java. */
    public static final String ADVISOR = "advisor";
    /** {@link #kind()} of a dispatcher that runs the algorithms it names through NNI's own dispatcher (python3 and NNI's nni package). */
    public static final String NNI_DISPATCHER = "NNI dispatcher";

    private final String kind;
    private final List<String> names;
    private final String bundle;
    private final String version;

    private AlgorithmView(Builder b) {
        this.kind = Objects.requireNonNull(b.kind, "kind");
        this.names = List.copyOf(b.names);
        this.bundle = Objects.requireNonNull(b.bundle, "bundle");
        this.version = Objects.requireNonNull(b.version, "version");
    }

    /** @param kind {@link #TUNER}, {@link #ASSESSOR}, {@link #ADVISOR} or {@link #NNI_DISPATCHER} */
    public static Builder builder(String kind) {
        return new Builder(kind);
    }

    /** @return {@link #TUNER}, {@link #ASSESSOR}, {@link #ADVISOR} or {@link #NNI_DISPATCHER} */
    public String kind() {
        return kind;
    }

    /**
     * @return the names it answers to as it spells them: a tuner's or an assessor's one name; the
     *         algorithms a dispatcher runs, sorted (none when it names none)
     */
    public List<String> names() {
        return names;
    }

    /** @return the symbolic name of the bundle that provides it; {@code ?} when it is not known */
    public String bundle() {
        return bundle;
    }

    /** @return that bundle's version; {@code ?} when it is not known */
    public String version() {
        return version;
    }

    @Override
    public String toString() {
        return kind + " " + names + " from " + bundle + " " + version;
    }

    public static final class Builder {
        private final String kind;
        private List<String> names = List.of();
        private String bundle = "?";
        private String version = "?";

        private Builder(String kind) {
            this.kind = kind;
        }

        public Builder names(List<String> names) {
            this.names = names;
            return this;
        }

        public Builder bundle(String bundle) {
            this.bundle = bundle;
            return this;
        }

        public Builder version(String version) {
            this.version = version;
            return this;
        }

        public AlgorithmView build() {
            return new AlgorithmView(this);
        }
    }
}
