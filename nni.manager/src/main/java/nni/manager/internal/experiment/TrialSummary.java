package nni.manager.internal.experiment;

import java.util.Map;

import nni.api.model.TrialJob;

/**
 * A trial as an experiment sees it at one moment, its intermediate results counted rather than
 * copied: what views over many trials with many metrics read ({@link TrialView} has them all).
 *
 * @param parameters        the parameter set the tuner gave (unmodifiable)
 * @param finalValue        the FINAL metric as a number, or null
 * @param latestValue       the latest PERIODICAL metric as a number, or null
 * @param intermediateCount how many PERIODICAL metrics it reported
 * @param platform          the platform name of the member it was placed on
 */
public record TrialSummary(TrialJob job, long sequenceId, Map<String, Object> parameters, Double finalValue,
                           Double latestValue, int intermediateCount, String platform) {
}
