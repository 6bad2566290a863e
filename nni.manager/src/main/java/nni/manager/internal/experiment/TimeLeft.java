package nni.manager.internal.experiment;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import nni.api.model.TrialJob;

/**
 * How long an experiment still needs to reach its max trial number, judged by the trials that
 * finished: their mean run time × the trials still to finish ÷ how many run at once (the
 * concurrency, or fewer when fewer remain), less what the running trials have done so far (each
 * counted up to that mean). The experiment's own elapsed time plays no part, so the estimate never
 * grows while trials run: it shrinks as they progress and is recomputed as each one finishes.
 */
final class TimeLeft {

    private TimeLeft() {
    }

    /** @return the estimate, {@link Duration#ZERO} when no trial remains, null while no trial has finished */
    static Duration estimate(List<TrialJob> trials, int maxTrials, int concurrency, Instant now) {
        int ended = 0;
        long finishedMillis = 0;
        int timed = 0;
        for (TrialJob trial : trials) {
            if (trial.status().isTerminal()) {
                ended++;
                // a trial cancelled while it waited never ran: it says nothing about how long one takes
                if (trial.startTime() != null && trial.endTime() != null) {
                    finishedMillis += Duration.between(trial.startTime(), trial.endTime()).toMillis();
                    timed++;
                }
            }
        }
        int remaining = maxTrials - ended;
        if (remaining <= 0) {
            return Duration.ZERO;
        }
        if (timed == 0) {
            return null;
        }
        double mean = (double) finishedMillis / timed;
        double work = mean * remaining;
        for (TrialJob trial : trials) {
            if (!trial.status().isTerminal() && trial.startTime() != null) {
                work -= Math.min(mean, Math.max(0, Duration.between(trial.startTime(), now).toMillis()));
            }
        }
        int atOnce = Math.max(1, Math.min(concurrency, remaining));
        return Duration.ofMillis((long) Math.max(0, work / atOnce));
    }
}
