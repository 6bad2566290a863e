package nni.api.model;

import java.util.Objects;

/**
 * What the manager asks a platform to run: NNI's {@code TrialJobApplicationForm}.
 *
 * @param trialId         the id the trial must get. The manager chooses ids (NNI's five-character
 *                        form) so that a resumed trial keeps its id; platforms never invent one.
 * @param sequenceId      the experiment-wide 0-based sequence number ({@code NNI_TRIAL_SEQ_ID})
 * @param hyperParameters the first parameter set (index 0)
 * @param placement       GPU needs; {@link Placement#NONE} when the experiment says nothing
 */
public record TrialApplication(String trialId, long sequenceId, HyperParameters hyperParameters, Placement placement) {
    public TrialApplication {
        Objects.requireNonNull(trialId, "trialId");
        Objects.requireNonNull(hyperParameters, "hyperParameters");
        Objects.requireNonNull(placement, "placement");
    }
}
