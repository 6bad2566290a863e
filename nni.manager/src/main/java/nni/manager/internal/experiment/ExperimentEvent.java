package nni.manager.internal.experiment;

/**
 * Something changed in an experiment. Events say what changed, not the new state: a listener that
 * needs the state reads it from the experiment, so a burst of events can be folded into one read.
 *
 * @param experimentId the experiment
 * @param kind         what changed
 * @param trialId      the trial, for {@link Kind#TRIAL} and {@link Kind#METRICS}; else null
 */
public record ExperimentEvent(String experimentId, Kind kind, String trialId) {

    /** What changed. */
    public enum Kind {
        /** the experiment was created, resumed or opened for viewing */
        OPENED,
        /** its status, or why it waits for its platform */
        STATUS,
        /** a limit or the search space ({@code nnictl update}) */
        CONFIG,
        /** a trial was submitted, changed status or message */
        TRIAL,
        /** metrics of a trial were stored */
        METRICS,
        /** the experiment was stopped or released; it is no longer open */
        CLOSED
    }
}
