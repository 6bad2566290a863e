package nni.ui.internal.api;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import jakarta.servlet.http.HttpServletRequest;

import nni.api.experiment.ExperimentReading;
import nni.api.experiment.TrialInfo;
import nni.api.experiment.TrialSummary;
import nni.http.HttpError;

/**
 * Intermediate results of many trials at once, for the chart that overlays them and for the
 * comparison of chosen trials: either the trials named ({@code trials=a,b}, at most
 * {@value #MAX_NAMED}) or the latest {@code last} trials that reported any (those whose id or
 * {@code name=value} parameters contain {@code q}); each curve thinned to {@code points}.
 */
final class IntermediateCurves {

    static final int MAX_NAMED = 50;
    private static final int DEFAULT_LAST = 20;
    private static final int MAX_LAST = 200;
    private static final int DEFAULT_POINTS = 500;

    private IntermediateCurves() {
    }

    /**
     * @return {@code {total, shown, trials: [{id, sequence, status, default, parameters, intermediate: {total, points}}]}}:
     *         {@code total} trials qualify, {@code shown} are sent
     * @throws HttpError 400 for more than {@value #MAX_NAMED} trials named, 404 for a trial the experiment does not have
     */
    static Map<String, Object> of(ExperimentReading experiment, HttpServletRequest request) {
        int points = (int) Queries.whole(request, "points", DEFAULT_POINTS, 2, MetricCharts.MAX_POINTS);
        String named = request.getParameter("trials");
        List<String> ids = new ArrayList<>();
        int total;
        if (named != null && !named.isBlank()) {
            Set<String> distinct = new LinkedHashSet<>();
            for (String id : named.split(",")) {
                if (!id.isBlank()) {
                    distinct.add(id.strip());
                }
            }
            if (distinct.size() > MAX_NAMED) {
                throw HttpError.badRequest("trials: at most " + MAX_NAMED + " trials at once, got " + distinct.size());
            }
            ids.addAll(distinct);
            total = ids.size();
        } else {
            int last = (int) Queries.whole(request, "last", DEFAULT_LAST, 1, MAX_LAST);
            String search = request.getParameter("q");
            String q = search == null || search.isBlank() ? null : search.strip().toLowerCase(java.util.Locale.ROOT);
            List<String> reporting = new ArrayList<>();
            for (TrialSummary trial : experiment.trialSummaries()) {
                if (trial.intermediateCount() > 0 && (q == null || TrialTable.matches(trial, q))) {
                    reporting.add(trial.job().id());
                }
            }
            total = reporting.size();
            ids.addAll(reporting.subList(Math.max(0, reporting.size() - last), reporting.size()));
        }
        List<Map<String, Object>> curves = new ArrayList<>();
        for (String id : ids) {
            TrialInfo trial = experiment.trial(id).orElseThrow(() -> TrialDetail.noTrial(experiment, id));
            Map<String, Object> curve = new LinkedHashMap<>();
            curve.put("id", id);
            curve.put("sequence", trial.sequenceId());
            curve.put("status", trial.job().status().name());
            curve.put("default", trial.finalValue().orElse(null));
            curve.put("parameters", TrialDetail.parameters(trial.packedParameters().orElse("{}")));
            curve.put("intermediate", MetricCharts.intermediate(trial.intermediate(), points));
            curves.add(curve);
        }
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("total", total);
        answer.put("shown", curves.size());
        answer.put("trials", curves);
        return answer;
    }
}
