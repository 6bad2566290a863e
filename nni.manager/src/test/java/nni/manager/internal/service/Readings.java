package nni.manager.internal.service;

import nni.api.experiment.ExperimentMember;
import nni.api.experiment.ExperimentReading;
import nni.manager.internal.experiment.Experiment;
import nni.manager.internal.experiment.MemberState;

/** Readings of experiments that tests run without a manager, for the faces' tests. */
public final class Readings {

    private Readings() {
    }

    /** @return a member as a reading shows it */
    public static ExperimentMember member(MemberState member) {
        return ExperimentViews.member(member);
    }

    /** @return a reading of an experiment the test keeps open (and stops itself) */
    public static ExperimentReading ofOpen(Experiment experiment) {
        return new EngineReading(experiment, false, e -> true);
    }
}
