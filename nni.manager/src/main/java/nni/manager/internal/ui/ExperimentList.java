package nni.manager.internal.ui;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

import nni.api.experiment.ExperimentInfo;
import nni.api.experiment.ExperimentReading;
import nni.api.experiment.ExperimentService;
import nni.api.experiment.Outcome;
import nni.manager.internal.experiment.ExperimentManager;
import nni.manager.internal.experiment.ExperimentStatus;
import nni.manager.internal.nnictl.NnictlBridge;
import nni.manager.internal.service.ExperimentServiceComponent;

/**
 * Every experiment under the root, open or stored, newest first: the web UI's experiments list and
 * {@code nni:experiments}. A row has {@code id}, {@code name}, {@code status}, {@code open},
 * {@code platform}, {@code trials} (counted as {@link nni.manager.internal.experiment.TrialCounts#json}
 * has them), {@code best}, {@code optimizeMode}, {@code startTime}, {@code endTime} (epoch ms) and
 * {@code durationMillis}. An experiment not open shows the status NNI's registry keeps for it (DONE,
 * ERROR, STOPPED: how it ended), STOPPED when the registry has none. Stored experiments are read
 * from their databases once per change. Thread-safe.
 */
public final class ExperimentList {

    private final ExperimentManager manager;
    private final ExperimentService service;
    private final NnictlBridge registry;
    private final StoredExperiments stored = new StoredExperiments();

    public ExperimentList(ExperimentManager manager, ExperimentService service, NnictlBridge registry) {
        this.manager = manager;
        this.service = service;
        this.registry = registry;
    }

    /**
     * For the console's {@code nni:experiments}, which has the engine at hand: the service over it
     * reads the open experiments (its loader, used only to create one, is not needed). Goes when the
     * console passes the service (issue 27).
     */
    public ExperimentList(ExperimentManager manager, NnictlBridge registry) {
        this(manager, new ExperimentServiceComponent(manager, null), registry);
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
        for (String id : manager.stored()) {
            if (manager.get(id).isEmpty()) {
                stored.row(id, manager.root().resolve(id), ended(statuses, id)).ifPresent(rows::add);
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

    private Map<String, String> statuses() throws IOException {
        try {
            return registry.statuses();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while reading NNI's experiment registry " + registry.registry().file(), e);
        }
    }

    private static String ended(Map<String, String> statuses, String id) {
        return statuses.getOrDefault(id, ExperimentStatus.STOPPED.name());
    }
}
