package nni.manager.internal.experiment;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import nni.api.model.TrialStatus;

/**
 * An experiment's trials counted in the one vocabulary every face uses ({@code run}'s progress line,
 * {@code nni:top}, {@code nni:experiments}, the web UI): succeeded, failed, stopped early,
 * cancelled, running, waiting, of max. SYS_CANCELED (the platform ended the trial) counts as failed
 * and UNKNOWN (the platform cannot tell now) as running, as NNI's web UI does.
 *
 * @param started every trial submitted so far, whatever became of it
 * @param maxTrials the experiment's {@code maxTrialNumber}, or null when it has none
 */
public record TrialCounts(int succeeded, int failed, int stoppedEarly, int cancelled, int running, int waiting,
                          int started, Integer maxTrials) {

    /** @param byStatus how many trials have each status (statuses absent count 0) */
    public static TrialCounts of(Map<TrialStatus, Integer> byStatus, Integer maxTrials) {
        int started = byStatus.values().stream().mapToInt(Integer::intValue).sum();
        return new TrialCounts(count(byStatus, TrialStatus.SUCCEEDED),
                count(byStatus, TrialStatus.FAILED) + count(byStatus, TrialStatus.SYS_CANCELED),
                count(byStatus, TrialStatus.EARLY_STOPPED), count(byStatus, TrialStatus.USER_CANCELED),
                count(byStatus, TrialStatus.RUNNING) + count(byStatus, TrialStatus.UNKNOWN),
                count(byStatus, TrialStatus.WAITING), started, maxTrials);
    }

    private static int count(Map<TrialStatus, Integer> byStatus, TrialStatus status) {
        return byStatus.getOrDefault(status, 0);
    }

    /** @return trials that ended, whatever the way */
    public int ended() {
        return succeeded + failed + stoppedEarly + cancelled;
    }

    /**
     * @return the counts as a person reads them: {@code succeeded 14  failed 6  of max 20}; succeeded
     * and failed always, the others when not 0, then the limit (or {@code no max})
     */
    public String text() {
        List<String> parts = new ArrayList<>();
        parts.add("succeeded " + succeeded);
        parts.add("failed " + failed);
        if (stoppedEarly > 0) {
            parts.add("stopped early " + stoppedEarly);
        }
        if (cancelled > 0) {
            parts.add("cancelled " + cancelled);
        }
        if (running > 0) {
            parts.add("running " + running);
        }
        if (waiting > 0) {
            parts.add("waiting " + waiting);
        }
        parts.add(maxTrials == null ? "no max" : "of max " + maxTrials);
        return String.join("  ", parts);
    }

    /**
     * @return what a user who lowered max trials below what already ran must know, else empty:
     * {@code max trials 8 is below the 10 trials already started: no more will start}
     */
    public Optional<String> belowStarted() {
        if (maxTrials == null || maxTrials >= started) {
            return Optional.empty();
        }
        return Optional.of("max trials " + maxTrials + " is below the " + started + " trials already started: no more will start");
    }

    /** @return the counts as the web UI's JSON has them, with {@link #text} and {@link #belowStarted} */
    public Map<String, Object> json() {
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("succeeded", succeeded);
        json.put("failed", failed);
        json.put("stoppedEarly", stoppedEarly);
        json.put("cancelled", cancelled);
        json.put("running", running);
        json.put("waiting", waiting);
        json.put("started", started);
        json.put("maxTrials", maxTrials);
        json.put("text", text());
        json.put("belowStarted", belowStarted().orElse(null));
        return json;
    }
}
