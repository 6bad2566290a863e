package nni.manager.internal.ui;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

import nni.manager.internal.experiment.Experiment;
import nni.manager.internal.experiment.ExperimentManager;

/**
 * Every experiment under the root, open or stored, newest first: the web UI's experiments list and
 * {@code nni:experiments}. A row has {@code id}, {@code name}, {@code status}, {@code open},
 * {@code platform}, {@code finished}, {@code total}, {@code maxTrials}, {@code best},
 * {@code optimizeMode}, {@code startTime}, {@code endTime} (epoch ms) and {@code durationMillis}.
 * Stored experiments are read from their databases once per change. Thread-safe.
 */
public final class ExperimentList {

    private final ExperimentManager manager;
    private final StoredExperiments stored = new StoredExperiments();

    public ExperimentList(ExperimentManager manager) {
        this.manager = manager;
    }

    public List<Map<String, Object>> rows() {
        List<Map<String, Object>> rows = new ArrayList<>();
        for (Experiment experiment : manager.open()) {
            rows.add(ExperimentOverview.listRow(experiment, true));
        }
        for (String id : manager.stored()) {
            if (manager.get(id).isEmpty()) {
                stored.row(id, manager.root().resolve(id)).ifPresent(rows::add);
            }
        }
        rows.sort(Comparator.comparing((Map<String, Object> row) -> row.get("startTime") instanceof Number n ? n.longValue() : 0L)
                .reversed());
        return rows;
    }
}
