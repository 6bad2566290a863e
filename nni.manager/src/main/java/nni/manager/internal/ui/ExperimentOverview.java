package nni.manager.internal.ui;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import nni.api.experiment.ExperimentReading;
import nni.api.experiment.TrialSummary;
import nni.manager.internal.config.ExperimentConfig;
import nni.manager.internal.experiment.Experiment;
import nni.manager.internal.experiment.ExperimentStatus;
import nni.manager.internal.experiment.Progress;

/**
 * An experiment at a glance, for the experiments list and the overview page: status and why,
 * progress, best trials, elapsed and left, and the limits {@code nnictl update} changes.
 */
final class ExperimentOverview {

    private static final int BEST_SHOWN = 10;

    private ExperimentOverview() {
    }

    /**
     * @param status the status shown: an open experiment's own, else the one it ended with
     * @return the experiments list's row of an experiment this runtime has (open, or a stored copy)
     */
    static Map<String, Object> listRow(Experiment experiment, boolean open, String status) {
        Progress progress = Progress.of(experiment);
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("id", experiment.id());
        row.put("name", experiment.config().experimentName());
        row.put("status", open ? experiment.status().name() : status);
        row.put("open", open);
        row.put("platform", experiment.config().platform());
        row.put("trials", progress.counts().json());
        row.put("best", progress.best());
        row.put("optimizeMode", experiment.maximizing() ? "maximize" : "minimize");
        row.put("startTime", experiment.startTime());
        row.put("endTime", experiment.endTime());
        row.put("durationMillis", experiment.execMillis());
        return row;
    }

    /**
     * @param reading      the experiment as the API reads it; {@code experiment} is the same one as the
     *                     engine has it, for what the overview does not read through the API yet
     * @param storedStatus the status of an experiment not open: the one it ended with
     */
    static Map<String, Object> of(ExperimentReading reading, Experiment experiment, boolean open, String storedStatus) {
        Progress progress = Progress.of(experiment);
        ExperimentConfig config = experiment.config();
        List<TrialSummary> trials = reading.trialSummaries();
        Map<String, Object> overview = listRow(experiment, open, storedStatus);
        overview.put("readOnly", !open || experiment.readOnly());
        overview.put("editable", open && !experiment.readOnly() && !settledForGood(experiment.status()));
        overview.put("errors", experiment.errors());
        overview.put("message", message(experiment));
        Map<String, Integer> counts = new LinkedHashMap<>();
        experiment.counts().forEach((status, count) -> counts.put(status.name(), count));
        overview.put("counts", counts);
        overview.put("elapsedMillis", progress.elapsed().toMillis());
        overview.put("leftMillis", progress.estimatedLeft() == null ? null : progress.estimatedLeft().toMillis());
        overview.put("trialConcurrency", config.trialConcurrency());
        overview.put("maxTrialNumber", config.maxTrialNumber());
        Duration max = config.maxExperimentDuration();
        // as written (10m, 2h), else as the runtime stores an update: in seconds
        Object written = config.canonical() == null ? null : config.canonical().get("maxExperimentDuration");
        overview.put("maxExperimentDuration", max == null ? null : written instanceof String text ? text : max.toSeconds() + "s");
        overview.put("maxExperimentDurationSeconds", max == null ? null : max.toSeconds());
        overview.put("tuner", config.tuner() == null ? null : config.tuner().name());
        overview.put("assessor", config.assessor() == null ? null : config.assessor().name());
        overview.put("parameters", TrialTable.parameterNames(reading.searchSpace(), trials));
        overview.put("directory", experiment.directory().toString());
        overview.put("bestTrials", best(experiment.maximizing(), trials));
        return overview;
    }

    /** An experiment that will never run again without a resume cannot be updated. */
    private static boolean settledForGood(ExperimentStatus status) {
        return status == ExperimentStatus.STOPPED || status == ExperimentStatus.STOPPING || status == ExperimentStatus.VIEWED
                || status == ExperimentStatus.ERROR;
    }

    private static String message(Experiment experiment) {
        if (experiment.waitingForPlatform().isPresent()) {
            return "waiting for its platform: " + experiment.waitingForPlatform().get();
        }
        List<String> errors = experiment.errors();
        return errors.isEmpty() ? null : errors.get(errors.size() - 1);
    }

    private static List<Map<String, Object>> best(boolean maximizing, List<TrialSummary> trials) {
        Comparator<TrialSummary> order = Comparator.comparingDouble(t -> t.finalValue().orElseThrow());
        List<Map<String, Object>> best = new ArrayList<>();
        trials.stream().filter(t -> t.finalValue().filter(value -> !value.isNaN()).isPresent())
                .sorted(maximizing ? order.reversed() : order).limit(BEST_SHOWN).forEach(t -> {
                    Map<String, Object> row = new LinkedHashMap<>();
                    row.put("id", t.job().id());
                    row.put("sequence", t.sequenceId());
                    row.put("status", t.job().status().name());
                    row.put("default", t.finalValue().orElseThrow());
                    row.put("parameters", t.parameters());
                    best.add(row);
                });
        return best;
    }
}
