package nni.api.experiment;

import java.util.Objects;
import java.util.Optional;

import nni.api.platform.SessionView;

/**
 * One member (training service) of a running experiment as it is at one moment, from
 * {@link ExperimentReading#members()}: its platform, its session's state and what the session
 * showed of its machines when asked ({@link nni.api.platform.TrainingSession#view()}, answered from
 * what the session last read, so asking costs no round trip to any machine). A copy, read-only and
 * safe to share between threads; made with {@link #builder(int, String)} by the experiment's
 * provider. Fields may be added in minor versions.
 *
 * @since 1.5
 */
public final class ExperimentMember {

    /** Where a member's session is. */
    public enum State {
        /** its session is open */
        OPEN,
        /** its platform is gone; {@link #away()} says why */
        AWAY,
        /** its session is not open yet */
        OPENING
    }

    private final int index;
    private final String platform;
    private final State state;
    private final String away;
    private final SessionView view;
    private final String viewFailure;

    private ExperimentMember(Builder b) {
        this.index = b.index;
        this.platform = Objects.requireNonNull(b.platform, "platform");
        this.state = Objects.requireNonNull(b.state, "state");
        this.away = b.away;
        this.view = b.view;
        this.viewFailure = b.viewFailure;
    }

    /**
     * @param index    its place in the configuration's {@code trainingService}
     * @param platform its platform's name
     */
    public static Builder builder(int index, String platform) {
        return new Builder(index, platform);
    }

    /** @return its place in the configuration's {@code trainingService}, from 0 */
    public int index() {
        return index;
    }

    /** @return its platform's name */
    public String platform() {
        return platform;
    }

    public State state() {
        return state;
    }

    /** @return why its platform is away, when it is; empty otherwise */
    public Optional<String> away() {
        return Optional.ofNullable(away);
    }

    /** @return what its open session showed; empty when it is not open or shows nothing */
    public Optional<SessionView> view() {
        return Optional.ofNullable(view);
    }

    /**
     * @return the failure of its open session's view, as the exception read (a platform's bug, shown
     *         on this member alone); empty when the view answered
     */
    public Optional<String> viewFailure() {
        return Optional.ofNullable(viewFailure);
    }

    @Override
    public String toString() {
        return "member " + index + " (" + platform + ") " + state;
    }

    /** Not thread-safe; a builder is used by one thread and then dropped. */
    public static final class Builder {
        private final int index;
        private final String platform;
        private State state = State.OPENING;
        private String away;
        private SessionView view;
        private String viewFailure;

        private Builder(int index, String platform) {
            this.index = index;
            this.platform = platform;
        }

        /** Its state; {@link State#OPENING} unless given. */
        public Builder state(State state) {
            this.state = state;
            return this;
        }

        public Builder away(String away) {
            this.away = away;
            return this;
        }

        public Builder view(SessionView view) {
            this.view = view;
            return this;
        }

        public Builder viewFailure(String viewFailure) {
            this.viewFailure = viewFailure;
            return this;
        }

        /** @throws NullPointerException when no platform or state is given */
        public ExperimentMember build() {
            return new ExperimentMember(this);
        }
    }
}
