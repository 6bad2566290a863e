package nni.tuners.internal;

import static nni.tuners.internal.Spaces.list;
import static nni.tuners.internal.Spaces.option;
import static nni.tuners.internal.Spaces.space;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.junit.Test;

import nni.api.searchspace.SearchSpace;
import nni.api.tuner.Tuner;

/** The golden sequences NNI's own GridSearch tuner produces (nni-config.md §2.4). */
public class GridSearchTunerTest {

    private static List<Map<String, Object>> run(SearchSpace space, int max) {
        Tuner tuner = new GridSearchTunerProvider().create(Map.of(), space);
        List<Map<String, Object>> out = new ArrayList<>();
        for (long id = 0; id < max; id++) {
            Optional<Map<String, Object>> next = tuner.generateParameters(id);
            if (next.isEmpty()) {
                break;
            }
            out.add(next.get());
        }
        return out;
    }

    private static void assertNumbers(double[] expected, List<Map<String, Object>> actual, String key, double tolerance) {
        for (int i = 0; i < expected.length; i++) {
            assertEquals("point " + i + " of " + key, expected[i], ((Number) actual.get(i).get(key)).doubleValue(), tolerance);
        }
    }

    @Test
    public void choiceNormalQuniformFollowsNnisEpochs() {
        List<Map<String, Object>> points = run(space("x", "choice", list(5, 7), "y", "normal", list(0, 1),
                "z", "quniform", list(2, 3, 1)), 13);
        double[] x = {5, 7, 5, 5, 5, 5, 5, 7, 7, 7, 7, 7, 5};
        double[] y = {0, 0, 0, -0.6745, -0.6745, 0.6745, 0.6745, 0, -0.6745, -0.6745, 0.6745, 0.6745, -1.1503};
        double[] z = {2, 2, 3, 2, 3, 2, 3, 3, 2, 3, 2, 3, 2};
        assertNumbers(x, points, "x", 0);
        assertNumbers(y, points, "y", 1e-4);
        assertNumbers(z, points, "z", 0);
    }

    @Test
    public void uniformBisectsInCdfSpace() {
        List<Map<String, Object>> points = run(space("a", "uniform", list(0, 1)), 10);
        assertNumbers(new double[] {0.5, 0.25, 0.75, 0.125, 0.375, 0.625, 0.875, 0.0625, 0.1875, 0.3125}, points, "a", 1e-12);
    }

    @Test
    public void loguniformBisectsInLogSpace() {
        List<Map<String, Object>> points = run(space("lr", "loguniform", list(0.001, 0.1)), 4);
        assertNumbers(new double[] {0.01, 0.0031623, 0.031623, 0.0017783}, points, "lr", 1e-6);
    }

    @Test
    public void finiteSpaceIsExhaustedAfterFifteenPoints() {
        List<Map<String, Object>> points = run(space("k", "randint", list(2, 5), "q", "quniform", list(0, 10, 2.5)), 100);
        assertEquals(15, points.size());
        int[] k = {2, 3, 4, 2, 2, 3, 3, 4, 4, 2, 2, 3, 3, 4, 4};
        double[] q = {5, 5, 5, 2.5, 7.5, 2.5, 7.5, 2.5, 7.5, 0, 10, 0, 10, 0, 10};
        for (int i = 0; i < 15; i++) {
            assertEquals(k[i], points.get(i).get("k"));
            assertEquals(q[i], (Double) points.get(i).get("q"), 0);
        }
    }

    @Test
    public void nestedChoiceVisitsOnlyActiveSubParameters() {
        List<Map<String, Object>> points = run(space("D", "choice", list(option("A", "x", "choice", list(1, 2)), option("B"))), 10);
        assertEquals(List.of(Map.of("D", Map.of("_name", "A", "x", 1)), Map.of("D", Map.of("_name", "A", "x", 2)),
                Map.of("D", Map.of("_name", "B"))), points);
    }

    @Test
    public void exhaustedTunerStaysExhausted() {
        Tuner tuner = new GridSearchTunerProvider().create(Map.of(), space("c", "choice", list("a", "b")));
        assertTrue(tuner.generateParameters(0).isPresent());
        assertTrue(tuner.generateParameters(1).isPresent());
        assertTrue(tuner.generateParameters(2).isEmpty());
        assertTrue(tuner.generateParameters(3).isEmpty());
    }

    @Test(expected = IllegalArgumentException.class)
    public void emptySpaceIsRefused() {
        new GridSearchTunerProvider().create(Map.of(), space());
    }

    @Test
    public void classArgsOtherThanOptimizeModeAreRefused() {
        assertTrue(new GridSearchTunerProvider().checkArguments(Map.of("optimize_mode", "maximize")).isEmpty());
        assertEquals("seed", new GridSearchTunerProvider().checkArguments(Map.of("seed", 1)).get(0).path());
    }
}
