package nni.manager.internal.experiment;

/** NNI's experiment statuses (nni-core §2.4), spelled as NNI spells them. */
public enum ExperimentStatus {
    INITIALIZED, RUNNING, ERROR, STOPPING, STOPPED, DONE, NO_MORE_TRIAL, TUNER_NO_MORE_TRIAL, VIEWED;

    /** @return true while experiment time counts (NNI's execDuration ticks) */
    public boolean counting() {
        return this == RUNNING || this == NO_MORE_TRIAL || this == TUNER_NO_MORE_TRIAL;
    }

    /** @return true when the experiment will not start trials any more by itself */
    public boolean settled() {
        return this == DONE || this == ERROR || this == STOPPED || this == VIEWED;
    }
}
