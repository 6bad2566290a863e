package nni.manager.internal.ui;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;

import nni.manager.internal.experiment.Experiment;
import nni.manager.internal.experiment.TrialSummary;
import nni.manager.internal.store.MetricRecord;

/**
 * What the web UI's export downloads and its config view shows: every trial as the trial table
 * has it, every metric its trials reported (in arrival order, the value decoded once, as the
 * trial gave it), and the experiment's canonical configuration with its secrets masked. The
 * browser turns it into CSV or JSON files.
 */
final class ExperimentExport {

    private ExperimentExport() {
    }

    /** @param status the status shown (an experiment not open: the one it ended with)
     * @return {@code {id, name, status, parameters: [names], trials: [rows], metrics: [...], config: {...}}} */
    static Map<String, Object> of(Experiment experiment, String status) {
        long now = System.currentTimeMillis();
        List<TrialSummary> summaries = experiment.summaries();
        List<Map<String, Object>> trials = new ArrayList<>(summaries.size());
        for (TrialSummary trial : summaries) {
            trials.add(TrialTable.row(experiment, trial, now));
        }
        List<Map<String, Object>> metrics = new ArrayList<>();
        experiment.store().forEachMetric(metric -> metrics.add(metric(metric)));
        Map<String, Object> export = new LinkedHashMap<>();
        export.put("id", experiment.id());
        export.put("name", experiment.config().experimentName());
        export.put("status", status);
        export.put("parameters", TrialTable.parameterNames(experiment, summaries));
        export.put("trials", trials);
        export.put("metrics", metrics);
        export.put("config", experiment.config().masked().canonical());
        return export;
    }

    private static Map<String, Object> metric(MetricRecord record) {
        Map<String, Object> metric = new LinkedHashMap<>();
        metric.put("trialId", record.trialJobId());
        metric.put("parameterId", record.parameterId());
        metric.put("type", record.type());
        metric.put("sequence", record.sequence());
        metric.put("timestamp", record.timestamp());
        metric.put("value", value(record.data()));
        return metric;
    }

    /** NNI stores a metric's value JSON-encoded twice: the number or object the trial reported, or its text if it is no JSON. */
    static Object value(String data) {
        try {
            JsonNode outer = Json.MAPPER.readTree(data);
            String inner = outer.isTextual() ? outer.asText() : data;
            try {
                return Json.MAPPER.readValue(inner, Object.class);
            } catch (IOException notJson) {
                return inner;
            }
        } catch (IOException e) {
            return data;
        }
    }
}
