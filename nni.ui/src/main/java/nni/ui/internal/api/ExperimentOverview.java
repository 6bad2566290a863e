package nni.ui.internal.api;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import nni.api.experiment.ExperimentEntry;
import nni.api.experiment.ExperimentInfo;
import nni.api.experiment.ExperimentReading;
import nni.api.experiment.ExperimentSummary;
import nni.api.experiment.TrialSummary;

/**
 * An experiment at a glance, for the experiments list and the overview page: status and why,
 * progress, best trials, elapsed and left, and the limits {@code nnictl update} changes.
 */
final class ExperimentOverview {

    private static final int BEST_SHOWN = 10;
    private static final Set<String> SETTLED_FOR_GOOD = Set.of("STOPPED", "STOPPING", "VIEWED", "ERROR");

    private ExperimentOverview() {
    }

    /**
     * @param status the status shown: an open experiment's own, else the one it ended with
     * @return the experiments list's row of an experiment this runtime has (open, or a stored copy)
     */
    static Map<String, Object> listRow(ExperimentReading reading, boolean open, String status) {
        return listRow(reading.info(), reading.summary(), open, status);
    }

    private static Map<String, Object> listRow(ExperimentInfo info, ExperimentSummary summary, boolean open, String status) {
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("id", info.id());
        row.put("name", info.name().orElse(null));
        row.put("status", open ? info.status() : status);
        row.put("open", open);
        row.put("platform", summary.configuredPlatform().orElse(null));
        row.put("trials", counts(summary));
        row.put("best", summary.best().orElse(null));
        row.put("optimizeMode", info.maximizing() ? "maximize" : "minimize");
        row.put("startTime", info.startTime().toEpochMilli());
        row.put("endTime", info.endTime().map(Instant::toEpochMilli).orElse(null));
        row.put("durationMillis", info.execDuration().toMillis());
        return row;
    }

    /**
     * @return the experiments list's row of one experiment listed, open or stored: {@code id}, {@code name},
     *         {@code status}, {@code open}, {@code platform}, {@code trials} (counted, with their text),
     *         {@code best}, {@code optimizeMode}, {@code startTime}, {@code endTime} (epoch ms) and
     *         {@code durationMillis}, as {@link #listRow(ExperimentReading, boolean, String)} has them
     */
    static Map<String, Object> listRow(ExperimentEntry entry) {
        ExperimentSummary summary = entry.summary();
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("id", entry.id());
        row.put("name", entry.name().orElse(null));
        row.put("status", entry.status());
        row.put("open", entry.open());
        row.put("platform", summary.configuredPlatform().orElse(null));
        row.put("trials", counts(summary));
        row.put("best", summary.best().orElse(null));
        row.put("optimizeMode", entry.maximizing() ? "maximize" : "minimize");
        row.put("startTime", entry.startTime().map(Instant::toEpochMilli).orElse(null));
        row.put("endTime", entry.endTime().map(Instant::toEpochMilli).orElse(null));
        row.put("durationMillis", entry.execDuration().map(Duration::toMillis).orElse(null));
        return row;
    }

    /** @return the counts as the web UI's JSON has them, with their text and the note on a max below the trials started */
    static Map<String, Object> counts(ExperimentSummary summary) {
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("succeeded", summary.succeeded());
        json.put("failed", summary.failed());
        json.put("stoppedEarly", summary.stoppedEarly());
        json.put("cancelled", summary.cancelled());
        json.put("running", summary.running());
        json.put("waiting", summary.waiting());
        json.put("started", summary.started());
        json.put("maxTrials", summary.maxTrials().orElse(null));
        json.put("text", summary.countsText());
        json.put("belowStarted", summary.belowStarted().orElse(null));
        return json;
    }

    /** @param storedStatus the status of an experiment not open: the one it ended with */
    static Map<String, Object> of(ExperimentReading reading, boolean open, String storedStatus) {
        ExperimentInfo info = reading.info();
        ExperimentSummary summary = reading.summary();
        List<TrialSummary> trials = reading.trialSummaries();
        Map<String, Object> overview = listRow(info, summary, open, storedStatus);
        overview.put("readOnly", !open || info.readOnly());
        overview.put("editable", open && !info.readOnly() && !settledForGood(info.status()));
        overview.put("errors", info.errors());
        overview.put("message", message(info));
        overview.put("counts", summary.byStatus());
        overview.put("elapsedMillis", info.execDuration().toMillis());
        overview.put("leftMillis", summary.timeLeft().map(Duration::toMillis).orElse(null));
        overview.put("trialConcurrency", info.trialConcurrency());
        overview.put("maxTrialNumber", info.maxTrialNumber().orElse(null));
        Duration max = info.maxExperimentDuration().orElse(null);
        // as written (10m, 2h), else as the runtime stores an update: in seconds
        overview.put("maxExperimentDuration", max == null ? null : summary.maxExperimentDurationText().orElse(max.toSeconds() + "s"));
        overview.put("maxExperimentDurationSeconds", max == null ? null : max.toSeconds());
        overview.put("tuner", summary.tuner().orElse(null));
        overview.put("assessor", summary.assessor().orElse(null));
        overview.put("parameters", TrialTable.parameterNames(reading.searchSpace(), trials));
        overview.put("directory", info.directory().toString());
        overview.put("bestTrials", best(info.maximizing(), trials));
        return overview;
    }

    /** An experiment that will never run again without a resume cannot be updated. */
    private static boolean settledForGood(String status) {
        return SETTLED_FOR_GOOD.contains(status);
    }

    private static String message(ExperimentInfo info) {
        if (info.waitingForPlatform().isPresent()) {
            return "waiting for its platform: " + info.waitingForPlatform().get();
        }
        List<String> errors = info.errors();
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
