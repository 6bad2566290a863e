package nni.ui.internal.api;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import nni.api.experiment.ExperimentReading;
import nni.api.experiment.TrialSummary;
import nni.api.searchspace.Option;
import nni.api.searchspace.Parameter;
import nni.api.searchspace.ParameterType;
import nni.api.searchspace.SearchSpace;
import nni.api.searchspace.SearchSpaceException;

/**
 * The series the charts draw, computed and thinned on the server ({@link Buckets}): the default
 * metric of every trial over its sequence with the best so far, one trial's intermediate results,
 * and the hyper-parameter rows of the parallel coordinates.
 */
final class MetricCharts {

    static final int DEFAULT_POINTS = 2000;
    static final int MAX_POINTS = 20_000;

    private MetricCharts() {
    }

    /**
     * @return {@code {optimizeMode, total, points: [[sequence, value, trialId]...], best: [[sequence,
     *         value, trialId]...]}}: the final results (thinned to at most {@code maxPoints}) and the
     *         best result so far at each trial where it improved
     */
    static Map<String, Object> finalResults(ExperimentReading experiment, int maxPoints) {
        boolean maximizing = experiment.info().maximizing();
        List<TrialSummary> withResult = withFiniteResult(experiment.trialSummaries());
        double[] values = new double[withResult.size()];
        for (int i = 0; i < values.length; i++) {
            values[i] = withResult.get(i).finalValue().orElseThrow();
        }
        List<List<Object>> points = new ArrayList<>();
        for (int index : Buckets.select(values, maxPoints)) {
            points.add(point(withResult.get(index)));
        }
        List<List<Object>> best = new ArrayList<>();
        Double bestValue = null;
        for (TrialSummary trial : withResult) {
            double value = trial.finalValue().orElseThrow();
            if (bestValue == null || (maximizing ? value > bestValue : value < bestValue)) {
                bestValue = value;
                best.add(point(trial));
            }
        }
        Map<String, Object> series = new LinkedHashMap<>();
        series.put("optimizeMode", maximizing ? "maximize" : "minimize");
        series.put("total", withResult.size());
        series.put("points", points);
        series.put("best", best);
        return series;
    }

    private static List<Object> point(TrialSummary trial) {
        return List.of(trial.sequenceId(), trial.finalValue().orElseThrow(), trial.job().id());
    }

    private static List<TrialSummary> withFiniteResult(List<TrialSummary> trials) {
        return trials.stream().filter(t -> t.finalValue().filter(Double::isFinite).isPresent()).toList();
    }

    /** @return {@code {total, points: [[index, value]...]}}: intermediate results thinned to {@code maxPoints} */
    static Map<String, Object> intermediate(List<Double> results, int maxPoints) {
        double[] values = new double[results.size()];
        for (int i = 0; i < values.length; i++) {
            Double value = results.get(i);
            values[i] = value == null ? Double.NaN : value;
        }
        List<List<Object>> points = new ArrayList<>();
        for (int index : Buckets.select(values, maxPoints)) {
            points.add(List.of(index + 1, Double.isFinite(values[index]) ? values[index] : "NaN"));
        }
        Map<String, Object> series = new LinkedHashMap<>();
        series.put("total", values.length);
        series.put("points", points);
        return series;
    }

    /**
     * The parallel coordinates: an axis per parameter (category axes list a choice's options, log
     * axes a log-uniform's range) and one for the default metric; a row per trial with a final result.
     *
     * @return {@code {optimizeMode, axes: [{name, type, values?, min?, max?}...], rows: [[v1..vn, metric, trialId, sequence]...]}}
     */
    static Map<String, Object> parallel(ExperimentReading experiment) {
        List<TrialSummary> trials = experiment.trialSummaries();
        Map<String, Object> searchSpace = experiment.searchSpace();
        List<String> names = TrialTable.parameterNames(searchSpace, trials);
        Map<String, Parameter> declared = new LinkedHashMap<>();
        try {
            for (Parameter parameter : SearchSpace.parse(searchSpace).parameters()) {
                declared.put(parameter.name(), parameter);
            }
        } catch (SearchSpaceException e) {
            // axes then follow the values trials have
        }
        List<TrialSummary> finished = withFiniteResult(trials);
        List<Map<String, Object>> axes = new ArrayList<>();
        List<Boolean> categorical = new ArrayList<>();
        for (String name : names) {
            Map<String, Object> axis = axis(name, declared.get(name), finished);
            categorical.add("category".equals(axis.get("type")));
            axes.add(axis);
        }
        List<List<Object>> rows = new ArrayList<>();
        for (TrialSummary trial : finished) {
            List<Object> row = new ArrayList<>(names.size() + 3);
            for (int i = 0; i < names.size(); i++) {
                Object value = trial.parameters().get(names.get(i));
                row.add(value == null ? null : categorical.get(i) ? TrialTable.text(value) : value);
            }
            row.add(trial.finalValue().orElseThrow());
            row.add(trial.job().id());
            row.add(trial.sequenceId());
            rows.add(row);
        }
        Map<String, Object> chart = new LinkedHashMap<>();
        chart.put("optimizeMode", experiment.info().maximizing() ? "maximize" : "minimize");
        chart.put("axes", axes);
        chart.put("rows", rows);
        return chart;
    }

    private static Map<String, Object> axis(String name, Parameter declared, List<TrialSummary> trials) {
        Map<String, Object> axis = new LinkedHashMap<>();
        axis.put("name", name);
        if (declared != null && declared.type() == ParameterType.CHOICE) {
            List<String> values = new ArrayList<>();
            for (Option option : declared.options()) {
                values.add(option.nested() ? option.name() : TrialTable.text(option.value()));
            }
            axis.put("type", "category");
            axis.put("values", values);
            return axis;
        }
        if (declared != null) {
            axis.put("type", declared.type().logarithmic() ? "log" : "value");
            if (!declared.type().normal() && declared.type() != ParameterType.RANDINT) {
                axis.put("min", declared.args().get(0));
                axis.put("max", declared.args().get(1));
            }
            return axis;
        }
        // not in the search space (any more): numbers make a value axis, anything else a category axis
        Set<String> texts = new LinkedHashSet<>();
        boolean numeric = true;
        for (TrialSummary trial : trials) {
            Object value = trial.parameters().get(name);
            if (value != null) {
                numeric &= value instanceof Number;
                texts.add(TrialTable.text(value));
            }
        }
        axis.put("type", numeric ? "value" : "category");
        if (!numeric) {
            axis.put("values", List.copyOf(texts));
        }
        return axis;
    }
}
