package nni.manager.internal.experiment;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import nni.store.ExperimentStore;
import nni.store.MetricRecord;

/**
 * Where an experiment's metric lines come in, straight from its members' contexts on the
 * platforms' threads: each line is checked against NNI's metric protocol and the experiment's
 * trials, and stored (durable when the call returns, a repeat stored once). What is new goes on to
 * the algorithm, on the experiment's thread, as {@link Metric}s; a trial's request for more
 * parameters ({@code REQUEST_PARAMETER}) too, not stored, as NNI does. Metrics arriving once the
 * store is closing are refused, so that their sender keeps them.
 */
final class MetricIntake {

    private static final Logger LOG = LoggerFactory.getLogger(MetricIntake.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Set<String> TYPES = Set.of("PERIODICAL", "FINAL", "REQUEST_PARAMETER", "CUSTOM");

    /**
     * A metric line: as stored (null for a request for parameters, which NNI does not store), its
     * value as the tuner gets it (null: not a number), and the line as reported.
     */
    record Metric(String type, MetricRecord record, Double value, String line) {
    }

    /** What the intake asks of its experiment at each metric: these change while it runs. */
    interface Experimenting {
        /** @return why metrics are refused now ("detached", "stopped": its store closes), or null */
        String refusal();

        /** @return the algorithm metrics go to now, or null (none yet, or the experiment failed) */
        Algorithm algorithm();

        /** A trial's new metrics were stored; on the experiment's thread, after the algorithm had them. */
        void metricsStored(String trialId);
    }

    private final String experimentId;
    private final ExperimentStore store;
    private final Trials trials;
    private final ExperimentThread thread;
    private final Experimenting experiment;

    MetricIntake(String experimentId, ExperimentStore store, Trials trials, ExperimentThread thread, Experimenting experiment) {
        this.experimentId = experimentId;
        this.store = store;
        this.trials = trials;
        this.thread = thread;
        this.experiment = experiment;
    }

    /**
     * Stores one metric line (synchronously: durable when this returns) and hands it to the
     * algorithm on the experiment's thread.
     *
     * @throws IllegalArgumentException when the line is not a metric of the trial
     * @throws IllegalStateException when the experiment takes no more metrics
     */
    void reported(String trialId, String line) {
        refuseWhenClosed();
        Metric metric = take(trialId, line);
        if (metric != null) {
            thread.execute(() -> {
                feed(trialId, metric);
                if (metric.record() != null) {
                    experiment.metricsStored(trialId);
                }
            }, () -> "a " + metric.type() + " metric of trial " + trialId);
        }
    }

    /**
     * Stores a trial's metric lines in one transaction (durable together when this returns), then
     * hands the new ones to the algorithm in order. Lines that are not metrics are skipped.
     *
     * @throws IllegalArgumentException naming the lines that were not metrics, after the others were stored
     * @throws IllegalStateException when the experiment takes no more metrics
     */
    void reported(String trialId, List<String> lines) {
        refuseWhenClosed();
        List<String> refused = new ArrayList<>();
        List<Metric> stored = take(trialId, lines, refused);
        if (!stored.isEmpty()) { // one task for the batch: a task per metric costs more than the metric
            thread.execute(() -> {
                stored.forEach(metric -> feed(trialId, metric));
                experiment.metricsStored(trialId);
            }, () -> stored.size() + " metrics of trial " + trialId + " (stored)");
        }
        if (!refused.isEmpty()) {
            throw new IllegalArgumentException(refused.size() + " of " + lines.size() + " lines were not metrics: " + refused);
        }
    }

    private void refuseWhenClosed() {
        String refusal = experiment.refusal();
        if (refusal != null) {
            throw new IllegalStateException("experiment " + experimentId + " is " + refusal + " and takes no more metrics");
        }
    }

    /** On the experiment's thread: the trial keeps the value (its read model), the algorithm gets the metric. */
    private void feed(String trialId, Metric metric) {
        Trial trial = trials.get(trialId);
        Algorithm algorithm = experiment.algorithm();
        if (trial == null || algorithm == null) {
            return;
        }
        if (metric.value() != null && "FINAL".equals(metric.type())) {
            trial.finalValue = metric.value();
        } else if (metric.value() != null && "PERIODICAL".equals(metric.type())) {
            trial.intermediate.add(metric.value());
        }
        algorithm.metric(trial, metric.type(), metric.value(), metric.line());
    }

    /**
     * Stores one line.
     *
     * @return the metric when it is new or a request for parameters, else null (a repeat)
     * @throws IllegalArgumentException when the line is not a metric of the trial
     */
    private Metric take(String trialId, String line) {
        Metric metric = parse(trialId, line);
        return metric.record() == null || store.addMetric(metric.record()) ? metric : null;
    }

    /**
     * Stores a trial's lines in one transaction; lines that are not metrics are skipped.
     *
     * @param refused gets the reason for each line that is not a metric
     * @return the new metrics in order, then the requests for parameters
     */
    private List<Metric> take(String trialId, List<String> lines, List<String> refused) {
        List<Metric> metrics = new ArrayList<>(lines.size());
        List<Metric> requests = new ArrayList<>();
        for (String line : lines) {
            try {
                Metric metric = parse(trialId, line);
                (metric.record() == null ? requests : metrics).add(metric);
            } catch (IllegalArgumentException e) {
                refused.add(e.getMessage());
            }
        }
        boolean[] fresh = store.addMetrics(metrics.stream().map(Metric::record).toList());
        List<Metric> stored = new ArrayList<>(fresh.length + requests.size());
        for (int i = 0; i < fresh.length; i++) {
            if (fresh[i]) {
                stored.add(metrics.get(i));
            }
        }
        stored.addAll(requests);
        return stored;
    }

    /** @return the metric (with nothing to store for REQUEST_PARAMETER) */
    private Metric parse(String trialId, String line) {
        MetricFields metric;
        try {
            metric = MetricFields.of(JSON, line, trialId);
        } catch (IOException e) {
            LOG.warn("experiment {}: trial {} reported a line that is not JSON, skipped: {}", experimentId, trialId, abbreviate(line));
            throw new IllegalArgumentException("not a metric (invalid JSON): " + abbreviate(line));
        }
        String problem = problem(trialId, metric);
        if (problem != null) {
            LOG.warn("experiment {}: trial {} reported a bad metric, skipped ({}): {}", experimentId, trialId, problem,
                    abbreviate(line));
            throw new IllegalArgumentException("not a metric (" + problem + "): " + abbreviate(line));
        }
        String type = metric.type();
        if ("REQUEST_PARAMETER".equals(type)) {
            return new Metric(type, null, null, line);
        }
        String valueText = metric.valueText();
        // the number from the line already parsed; only a value sent as text (as NNI's SDK does) is parsed once more
        Double number = metric.valueNumber() != null ? metric.valueNumber() : number(valueText);
        String literal = MetricFields.plainStringLiteral(valueText);
        return new Metric(type, new MetricRecord(System.currentTimeMillis(), trialId, metric.parameterId(), type,
                metric.sequence(), literal != null ? literal : Experiment.json(valueText)), number, line);
    }

    private String problem(String trialId, MetricFields metric) {
        if (!metric.object()) {
            return "not a JSON object";
        }
        if (metric.type() == null || !TYPES.contains(metric.type())) {
            return "type is missing or not PERIODICAL, FINAL or REQUEST_PARAMETER";
        }
        if (metric.trialJobId() != null && !metric.trialJobId().equals(trialId)) {
            return "trial_job_id " + metric.trialJobId() + " is not the reporting trial " + trialId;
        }
        if (!trials.contains(trialId)) {
            return "experiment " + experimentId + " has no trial " + trialId;
        }
        if (!"REQUEST_PARAMETER".equals(metric.type()) && !metric.hasValue()) {
            return "value is missing";
        }
        return null;
    }

    /** @return a metric value as a number: a plain number, or a dict's {@code default} entry */
    static Double number(String valueText) {
        Double plain = MetricFields.plainNumber(valueText);
        if (plain != null) {
            return plain;
        }
        try {
            JsonNode node = JSON.readTree(valueText);
            if (node != null && node.isTextual()) {
                node = JSON.readTree(node.asText());
            }
            if (node != null && node.isObject()) {
                node = node.get("default");
            }
            return node != null && node.isNumber() ? node.asDouble() : null;
        } catch (JsonProcessingException e) {
            return null;
        }
    }

    /** @return a stored metric's value ({@link MetricRecord#data()}) as a number: a plain number or a dict's {@code default}; else null */
    static Double storedNumber(String data) {
        return number(unwrapStored(data));
    }

    private static String unwrapStored(String data) {
        // stored as NNI does, a JSON string: without escapes its text is what lies between the quotes (a resume
        // reads every metric of the experiment, a million here, and a JSON parse each took a second of it)
        if (data.length() >= 2 && data.charAt(0) == '"' && data.charAt(data.length() - 1) == '"' && data.indexOf('\\') < 0) {
            return data.substring(1, data.length() - 1);
        }
        try {
            JsonNode node = JSON.readTree(data);
            return node.isTextual() ? node.asText() : data;
        } catch (JsonProcessingException e) {
            return data;
        }
    }

    private static String abbreviate(String line) {
        String trimmed = line.strip();
        return trimmed.length() > 200 ? trimmed.substring(0, 200) + "..." : trimmed;
    }
}
