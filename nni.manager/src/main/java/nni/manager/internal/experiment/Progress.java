package nni.manager.internal.experiment;

import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;

/**
 * One glance at an experiment: its trials counted ({@link TrialCounts}), best result, elapsed and
 * estimated time left, as {@code nni:top} and the run mode's progress line show it.
 */
public record Progress(String id, ExperimentStatus status, TrialCounts counts, Double best, String bestTrial,
                       Duration elapsed, Duration estimatedLeft) {

    public static Progress of(Experiment experiment) {
        TrialCounts counts = TrialCounts.of(experiment.counts(), experiment.config().maxTrialNumber());
        int finished = counts.ended();
        List<TrialSummary> trials = experiment.summaries();
        Comparator<TrialSummary> order = Comparator.comparingDouble(TrialSummary::finalValue);
        TrialSummary best = trials.stream().filter(t -> t.finalValue() != null)
                .max(experiment.maximizing() ? order : order.reversed()).orElse(null);
        Duration elapsed = Duration.ofMillis(experiment.execMillis());
        Integer max = experiment.config().maxTrialNumber();
        Duration left = null;
        if (!experiment.status().counting()) {
            left = Duration.ZERO;
        } else if (max != null) {
            left = TimeLeft.estimate(trials.stream().map(TrialSummary::job).toList(), max,
                    experiment.config().trialConcurrency(), Instant.now());
        }
        Duration maxDuration = experiment.config().maxExperimentDuration();
        if (maxDuration != null && experiment.status().counting()) {
            Duration byClock = maxDuration.minus(elapsed);
            left = left == null || byClock.compareTo(left) < 0 ? byClock : left;
        }
        return new Progress(experiment.id(), experiment.status(), counts, best == null ? null : best.finalValue(),
                best == null ? null : best.job().id(), elapsed, left);
    }

    /**
     * @return the one-line form: {@code abc12345 RUNNING  succeeded 3  failed 0  running 2  of max 8  best 0.93 ...};
     * max trials lowered below the trials started says so after the counts
     */
    public String line() {
        return String.format("%s %-19s %s%s  best %s  elapsed %s  left %s",
                id, status, counts.text(), counts.belowStarted().map(note -> " (" + note + ")").orElse(""),
                best == null ? "-" : format(best) + " (" + bestTrial + ")", clock(elapsed),
                estimatedLeft == null ? "?" : clock(estimatedLeft));
    }

    public static String format(double value) {
        return value == Math.rint(value) && Math.abs(value) < 1e15 ? Long.toString((long) value)
                : String.format("%.6g", value);
    }

    public static String clock(Duration duration) {
        long seconds = Math.max(0, duration.toSeconds());
        return seconds >= 3600 ? String.format("%d:%02d:%02d", seconds / 3600, seconds / 60 % 60, seconds % 60)
                : String.format("%02d:%02d", seconds / 60, seconds % 60);
    }
}
