package nni.api.experiment;

import java.util.List;
import java.util.Objects;

import nni.api.platform.ReportChannel;

/**
 * One installed training platform as the runtime lists it ({@code nni:platforms},
 * {@code /api/v1/nni/platforms}): the bundle that provides it, whether it answers to its name, the
 * experiment sessions it serves and how their trials report. A copy taken at one moment, read-only.
 * Made with {@link #builder(String)}; fields may be added in minor versions.
 *
 * @since 1.5
 */
public final class PlatformView {

    /** {@link #state()} of the platform that answers to its name. */
    public static final String ACTIVE = "active";
    /** {@link #state()} of a platform another service answers to the name for (a higher ranking, or bound first). */
    public static final String SHADOWED = "shadowed";

    private final String name;
    private final String bundle;
    private final String version;
    private final String state;
    private final int sessions;
    private final boolean runsTrials;
    private final List<SessionReports> reports;

    private PlatformView(Builder b) {
        this.name = Objects.requireNonNull(b.name, "name");
        this.bundle = Objects.requireNonNull(b.bundle, "bundle");
        this.version = Objects.requireNonNull(b.version, "version");
        this.state = Objects.requireNonNull(b.state, "state");
        this.sessions = b.sessions;
        this.runsTrials = b.runsTrials;
        this.reports = List.copyOf(b.reports);
    }

    public static Builder builder(String name) {
        return new Builder(name);
    }

    /** @return the platform name experiments use ({@code trainingService.platform}) */
    public String name() {
        return name;
    }

    /** @return the symbolic name of the bundle that provides it */
    public String bundle() {
        return bundle;
    }

    /** @return that bundle's version */
    public String version() {
        return version;
    }

    /** @return {@value #ACTIVE}, or {@value #SHADOWED} when another service answers to the name */
    public String state() {
        return state;
    }

    /** @return how many experiment sessions it serves now */
    public int sessions() {
        return sessions;
    }

    /** @return whether trials can run there; false for a platform whose bundle only checks experiment sections */
    public boolean runsTrials() {
        return runsTrials;
    }

    /** @return how the trials of each open session report, for the sessions whose platform says */
    public List<SessionReports> reports() {
        return reports;
    }

    @Override
    public String toString() {
        return "platform " + name + " (" + bundle + " " + version + ") " + state;
    }

    /**
     * How one experiment's trials report on this platform: the experiment and the channel its
     * session said ({@link nni.api.platform.TrainingSession#reportChannel()}). A value; a final
     * class rather than a record, so that it can gain fields in a minor version.
     */
    public static final class SessionReports {
        private final String experiment;
        private final ReportChannel channel;

        private SessionReports(String experiment, ReportChannel channel) {
            this.experiment = Objects.requireNonNull(experiment, "experiment");
            this.channel = Objects.requireNonNull(channel, "channel");
        }

        /**
         * @param experiment the experiment's id
         * @param channel    how its trials report, and why
         */
        public static SessionReports of(String experiment, ReportChannel channel) {
            return new SessionReports(experiment, channel);
        }

        /** @return the experiment's id */
        public String experiment() {
            return experiment;
        }

        /** @return how its trials report ({@link ReportChannel#transport()}) and why ({@link ReportChannel#why()}) */
        public ReportChannel channel() {
            return channel;
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof SessionReports that && experiment.equals(that.experiment) && channel.equals(that.channel);
        }

        @Override
        public int hashCode() {
            return Objects.hash(experiment, channel);
        }

        @Override
        public String toString() {
            return "experiment " + experiment + " reports over " + channel.transport() + ": " + channel.why();
        }
    }

    public static final class Builder {
        private final String name;
        private String bundle;
        private String version;
        private String state = ACTIVE;
        private int sessions;
        private boolean runsTrials = true;
        private List<SessionReports> reports = List.of();

        private Builder(String name) {
            this.name = name;
        }

        public Builder bundle(String bundle) {
            this.bundle = bundle;
            return this;
        }

        public Builder version(String version) {
            this.version = version;
            return this;
        }

        /** @param state {@value #ACTIVE} (the default) or {@value #SHADOWED} */
        public Builder state(String state) {
            this.state = state;
            return this;
        }

        public Builder sessions(int sessions) {
            this.sessions = sessions;
            return this;
        }

        /** @param runsTrials false for a platform that only checks sections; true by default */
        public Builder runsTrials(boolean runsTrials) {
            this.runsTrials = runsTrials;
            return this;
        }

        public Builder reports(List<SessionReports> reports) {
            this.reports = reports;
            return this;
        }

        public PlatformView build() {
            return new PlatformView(this);
        }
    }
}
