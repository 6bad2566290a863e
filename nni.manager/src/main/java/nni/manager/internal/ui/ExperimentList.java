package nni.manager.internal.ui;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import nni.api.experiment.ExperimentInfo;
import nni.api.experiment.ExperimentReading;
import nni.api.experiment.ExperimentService;
import nni.api.experiment.NnictlRegistry;
import nni.api.experiment.Outcome;
import nni.api.experiment.StoredExperiment;
import nni.api.experiment.ExperimentSummary;

/**
 * Every experiment under the root, open or stored, newest first: the web UI's experiments list and
 * {@code nni:experiments}. A row has {@code id}, {@code name}, {@code status}, {@code open},
 * {@code platform}, {@code trials} (counted, with their text), {@code best}, {@code optimizeMode},
 * {@code startTime}, {@code endTime} (epoch ms) and {@code durationMillis}. An experiment not open
 * shows the status NNI's registry keeps for it (DONE, ERROR, STOPPED: how it ended), STOPPED when
 * the registry has none. Stored experiments are summed up from their databases
 * ({@link ExperimentService#storedSummary}, read again only when one changes). Thread-safe.
 */
public final class ExperimentList {

    private static final String STOPPED = "STOPPED";

    private final ExperimentService service;
    private final NnictlRegistry registry;

    public ExperimentList(ExperimentService service, NnictlRegistry registry) {
        this.service = service;
        this.registry = registry;
    }

    public List<Map<String, Object>> rows() throws IOException {
        Map<String, String> statuses = statuses();
        List<Map<String, Object>> rows = new ArrayList<>();
        for (ExperimentInfo open : service.list()) {
            Outcome<ExperimentReading> read = service.read(open.id());
            if (!read.isDone()) {
                continue; // deleted meanwhile
            }
            try (ExperimentReading experiment = read.value()) {
                // stopped meanwhile: shown as the stored experiment it now is, below
                if (experiment.open()) {
                    rows.add(ExperimentOverview.listRow(experiment, true, experiment.info().status()));
                }
            }
        }
        for (String id : service.stored()) {
            if (!service.get(id).isDone()) {
                storedRow(id, ended(statuses, id)).ifPresent(rows::add);
            }
        }
        rows.sort(Comparator.comparing((Map<String, Object> row) -> row.get("startTime") instanceof Number n ? n.longValue() : 0L)
                .reversed());
        return rows;
    }

    /** @return the status an experiment that is not open ended with, as NNI's registry keeps it */
    public String endedStatus(String id) throws IOException {
        return ended(statuses(), id);
    }

    /**
     * @param status the status it ended with
     * @return the row of a stored experiment not open, or empty when its database cannot be read
     */
    private Optional<Map<String, Object>> storedRow(String id, String status) {
        StoredExperiment stored;
        try {
            Outcome<StoredExperiment> summed = service.storedSummary(id);
            if (!summed.isDone()) {
                return Optional.empty(); // deleted meanwhile
            }
            stored = summed.value();
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
        ExperimentSummary summary = stored.summary();
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("id", id);
        row.put("name", stored.name().orElse(null));
        row.put("status", status);
        row.put("open", false);
        row.put("platform", summary.configuredPlatform().orElse(null));
        row.put("trials", ExperimentOverview.counts(summary));
        row.put("best", summary.best().orElse(null));
        row.put("optimizeMode", stored.maximizing() ? "maximize" : "minimize");
        row.put("startTime", stored.startTime().map(time -> time.toEpochMilli()).orElse(null));
        row.put("endTime", stored.endTime().map(time -> time.toEpochMilli()).orElse(null));
        row.put("durationMillis", stored.execDuration().map(duration -> duration.toMillis()).orElse(null));
        return Optional.of(row);
    }

    private Map<String, String> statuses() throws IOException {
        try {
            return registry.statuses();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while reading NNI's experiment registry", e);
        }
    }

    private static String ended(Map<String, String> statuses, String id) {
        return statuses.getOrDefault(id, STOPPED);
    }
}
