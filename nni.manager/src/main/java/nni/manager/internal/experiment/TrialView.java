package nni.manager.internal.experiment;

import java.util.List;

import nni.api.model.TrialJob;

/**
 * A trial as an experiment sees it at one moment.
 *
 * @param job          the latest state the platform reported
 * @param packed       the packed parameter JSON written to {@code parameter.cfg}
 * @param finalValue   the FINAL metric as a number, or null
 * @param intermediate the PERIODICAL metrics as numbers, in arrival order
 * @param platform     the platform name of the member it was placed on (its {@code trainingService} entry's)
 */
public record TrialView(TrialJob job, long sequenceId, String packed, Double finalValue, List<Double> intermediate,
                        String platform) {
}
