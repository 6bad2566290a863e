package nni.api.model;

import java.util.Objects;

/**
 * What the manager asks a platform to run: NNI's {@code TrialJobApplicationForm}. Immutable; made
 * with {@link #builder(String)}.
 */
public final class TrialApplication {

    private final String trialId;
    private final long sequenceId;
    private final HyperParameters hyperParameters;
    private final Placement placement;

    private TrialApplication(Builder builder) {
        this.trialId = builder.trialId;
        this.sequenceId = builder.sequenceId;
        this.hyperParameters = Objects.requireNonNull(builder.hyperParameters, "hyperParameters");
        this.placement = builder.placement;
    }

    /**
     * @param trialId the id the trial must get. The manager chooses ids (NNI's five-character form)
     *                so that a resumed trial keeps its id; platforms never invent one.
     */
    public static Builder builder(String trialId) {
        return new Builder(trialId);
    }

    public String trialId() {
        return trialId;
    }

    /** @return the experiment-wide 0-based sequence number ({@code NNI_TRIAL_SEQ_ID}) */
    public long sequenceId() {
        return sequenceId;
    }

    /** @return the first parameter set (index 0) */
    public HyperParameters hyperParameters() {
        return hyperParameters;
    }

    /** @return GPU needs; {@link Placement#none()} when the experiment says nothing */
    public Placement placement() {
        return placement;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof TrialApplication that && trialId.equals(that.trialId) && sequenceId == that.sequenceId
                && hyperParameters.equals(that.hyperParameters) && placement.equals(that.placement);
    }

    @Override
    public int hashCode() {
        return Objects.hash(trialId, sequenceId, hyperParameters, placement);
    }

    @Override
    public String toString() {
        return "TrialApplication[" + trialId + ", sequence " + sequenceId + ", " + placement + "]";
    }

    /** Builds a {@link TrialApplication}; not thread-safe. {@code hyperParameters} is required. */
    public static final class Builder {
        private final String trialId;
        private long sequenceId;
        private HyperParameters hyperParameters;
        private Placement placement = Placement.none();

        private Builder(String trialId) {
            this.trialId = Objects.requireNonNull(trialId, "trialId");
        }

        public Builder sequenceId(long sequenceId) {
            this.sequenceId = sequenceId;
            return this;
        }

        public Builder hyperParameters(HyperParameters hyperParameters) {
            this.hyperParameters = Objects.requireNonNull(hyperParameters, "hyperParameters");
            return this;
        }

        public Builder placement(Placement placement) {
            this.placement = Objects.requireNonNull(placement, "placement");
            return this;
        }

        /** @throws NullPointerException if no hyperParameters were given */
        public TrialApplication build() {
            return new TrialApplication(this);
        }
    }
}
