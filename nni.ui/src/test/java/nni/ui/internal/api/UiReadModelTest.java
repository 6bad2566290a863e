package nni.ui.internal.api;

import static org.awaitility.Awaitility.await;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;


import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.After;
import org.junit.Before;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import nni.api.model.TrialStatus;
import nni.manager.internal.experiment.Experiment;
import nni.manager.internal.experiment.Experiments;
import nni.manager.internal.experiment.HeldSession;
import nni.manager.internal.experiment.ListTuner;
import nni.manager.internal.experiment.TrialSummary;

/**
 * What the UI's routes compute from a real experiment: a page of the trial table (sorted, filtered,
 * searched), the final results with the best so far, the parallel coordinates' rows, and series
 * thinned to a few points with their extremes kept.
 */
public class UiReadModelTest {

    private static final int TRIALS = 120;

    @Rule
    public TemporaryFolder folder = new TemporaryFolder();

    private Experiment experiment;
    private HeldSession session;

    @Before
    public void runTrials() throws Exception {
        Experiments setup = new Experiments(folder.newFolder("code").toPath(), folder.newFolder("work").toPath());
        setup.concurrency = TRIALS;
        setup.maxTrials = TRIALS;
        experiment = setup.startWith("ui000001", new ListTuner(TRIALS), e -> session = new HeldSession(e));
        await().atMost(Duration.ofSeconds(30)).until(() -> experiment.summaries().size() == TRIALS);
        for (TrialSummary trial : experiment.summaries()) {
            long x = trial.sequenceId();
            if (x % 7 == 3) {
                session.finish(trial.job().id(), List.of(), null, TrialStatus.FAILED);
            } else {
                session.finish(trial.job().id(), List.of(0.1 * x, 0.2 * x), result(x), TrialStatus.SUCCEEDED);
            }
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> experiment.summaries().stream()
                .allMatch(t -> t.job().status().isTerminal() && (t.job().status() == TrialStatus.FAILED || t.finalValue() != null)));
    }

    @After
    public void stop() {
        experiment.stop(Duration.ofSeconds(5));
    }

    /** Highest at x = 77: the best is in the middle of the sequence, not at an end. */
    private static double result(long x) {
        return -Math.abs(x - 77) + (x % 2 == 0 ? 0.25 : 0);
    }

    @Test
    public void aPageIsSortedByTheDefaultMetricWithTheTrialsWithoutOneLast() {
        Map<String, Object> page = TrialTable.page(reading(), new TrialTable.Query(0, 200, "default", true,
                EnumSet.noneOf(TrialStatus.class), null));
        List<Map<String, Object>> rows = rows(page);
        assertEquals(TRIALS, page.get("total"));
        assertEquals(77L, rows.get(0).get("sequence"));
        for (int i = 1; i < rows.size(); i++) {
            Double before = (Double) rows.get(i - 1).get("default");
            Double now = (Double) rows.get(i).get("default");
            assertTrue(rows.get(i) + " after " + rows.get(i - 1), now == null || (before != null && before >= now));
        }
        assertEquals("FAILED", rows.get(rows.size() - 1).get("status"));

        Map<String, Object> second = TrialTable.page(reading(), new TrialTable.Query(20, 10, "default", true,
                EnumSet.noneOf(TrialStatus.class), null));
        assertEquals(rows.subList(20, 30).stream().map(r -> r.get("id")).toList(), rows(second).stream().map(r -> r.get("id")).toList());
        assertEquals(List.of("x"), second.get("parameters"));
    }

    @Test
    public void statusFilterSearchAndParameterSortAreDoneOnTheServer() {
        long failed = experiment.summaries().stream().filter(t -> t.job().status() == TrialStatus.FAILED).count();
        Map<String, Object> failures = TrialTable.page(reading(), new TrialTable.Query(0, 50, "sequence", false,
                EnumSet.of(TrialStatus.FAILED), null));
        assertEquals((int) failed, failures.get("total"));
        assertTrue(rows(failures).stream().allMatch(r -> r.get("status").equals("FAILED")));

        Map<String, Object> found = TrialTable.page(reading(), new TrialTable.Query(0, 50, "sequence", false,
                EnumSet.noneOf(TrialStatus.class), "x=42"));
        assertEquals(1, found.get("total"));
        assertEquals(42L, rows(found).get(0).get("sequence"));
        String id = experiment.summaries().get(5).job().id();
        Map<String, Object> byId = TrialTable.page(reading(), new TrialTable.Query(0, 50, "sequence", false,
                EnumSet.noneOf(TrialStatus.class), id.toLowerCase()));
        assertTrue(rows(byId).stream().anyMatch(r -> r.get("id").equals(id)));

        Map<String, Object> byX = TrialTable.page(reading(), new TrialTable.Query(0, 1, "param.x", true,
                EnumSet.noneOf(TrialStatus.class), null));
        assertEquals(Map.of("x", (long) TRIALS - 1), Map.of("x", ((Number) parameters(rows(byX).get(0)).get("x")).longValue()));
    }

    @Test
    public void finalResultsAreThinnedWithTheBestKeptAndTheBestSoFarRisesToIt() {
        Map<String, Object> series = MetricCharts.finalResults(reading(), 20);
        @SuppressWarnings("unchecked")
        List<List<Object>> points = (List<List<Object>>) series.get("points");
        @SuppressWarnings("unchecked")
        List<List<Object>> best = (List<List<Object>>) series.get("best");
        assertTrue(points.size() + " points", points.size() <= 20);
        assertTrue(points.stream().anyMatch(p -> ((Number) p.get(0)).longValue() == 77));
        double previous = Double.NEGATIVE_INFINITY;
        for (List<Object> step : best) {
            double value = ((Number) step.get(1)).doubleValue();
            assertTrue(value > previous);
            previous = value;
        }
        assertEquals(77L, ((Number) best.get(best.size() - 1).get(0)).longValue());
        assertEquals(TRIALS - TRIALS / 7 - (TRIALS % 7 > 3 ? 1 : 0), series.get("total"));
    }

    @Test
    public void theParallelCoordinatesHaveARowPerTrialWithAFinalResult() {
        Map<String, Object> chart = MetricCharts.parallel(reading());
        @SuppressWarnings("unchecked")
        List<List<Object>> rows = (List<List<Object>>) chart.get("rows");
        long withResult = experiment.summaries().stream().filter(t -> t.finalValue() != null).count();
        assertEquals(withResult, rows.size());
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> axes = (List<Map<String, Object>>) chart.get("axes");
        assertEquals("x", axes.get(0).get("name"));
        assertEquals("value", axes.get(0).get("type"));
    }

    @Test
    public void aLongSeriesKeepsItsEndsAndExtremes() {
        List<Double> values = new ArrayList<>();
        for (int i = 0; i < 100_000; i++) {
            values.add(Math.sin(i / 1000.0) + (i == 31_337 ? 50 : 0) - (i == 70_001 ? 60 : 0));
        }
        Map<String, Object> series = MetricCharts.intermediate(values, 200);
        @SuppressWarnings("unchecked")
        List<List<Object>> points = (List<List<Object>>) series.get("points");
        assertTrue(points.size() + " points", points.size() <= 200);
        assertEquals(100_000, series.get("total"));
        Set<Integer> kept = new java.util.HashSet<>();
        points.forEach(p -> kept.add((Integer) p.get(0)));
        assertTrue(kept.containsAll(Set.of(1, 100_000, 31_338, 70_002)));
        assertEquals(List.of(0, 1, 2), java.util.Arrays.stream(Buckets.select(new double[] {3, 1, 2}, 10)).boxed().toList());
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> rows(Map<String, Object> page) {
        return (List<Map<String, Object>>) page.get("rows");
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> parameters(Map<String, Object> row) {
        return (Map<String, Object>) row.get("parameters");
    }


    private nni.api.experiment.ExperimentReading reading() {
        return nni.manager.internal.service.Readings.ofOpen(experiment);
    }
}
