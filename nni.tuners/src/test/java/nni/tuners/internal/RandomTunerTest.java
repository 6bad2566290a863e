package nni.tuners.internal;

import static nni.tuners.internal.Spaces.list;
import static nni.tuners.internal.Spaces.option;
import static nni.tuners.internal.Spaces.space;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import org.junit.Test;

import nni.api.searchspace.SearchSpace;
import nni.api.tuner.Tuner;

public class RandomTunerTest {

    private static final SearchSpace ALL_TYPES = space(
            "choice", "choice", list(0.3, "cat", 1),
            "randint", "randint", list(2, 8),
            "uniform", "uniform", list(-1, 3),
            "quniform", "quniform", list(2, 10, 5),
            "loguniform", "loguniform", list(0.001, 0.1),
            "qloguniform", "qloguniform", list(16, 128, 0.725),
            "normal", "normal", list(5, 2),
            "qnormal", "qnormal", list(500, 200, 3),
            "lognormal", "lognormal", list(0, 1),
            "qlognormal", "qlognormal", list(1, 0.5, 2));

    private static List<Map<String, Object>> draw(SearchSpace space, long seed, int count) {
        Tuner tuner = new RandomTunerProvider().create(Map.of("seed", seed), space);
        List<Map<String, Object>> out = new ArrayList<>();
        for (long id = 0; id < count; id++) {
            tuner.generateParameters(id).ifPresent(out::add);
        }
        return out;
    }

    private static double d(Map<String, Object> p, String key) {
        return ((Number) p.get(key)).doubleValue();
    }

    @Test
    public void everyTypeStaysInItsRange() {
        for (Map<String, Object> p : draw(ALL_TYPES, 7, 2000)) {
            assertTrue(List.of(0.3, "cat", 1).contains(p.get("choice")));
            assertTrue(p.get("randint") instanceof Integer);
            assertTrue((Integer) p.get("randint") >= 2 && (Integer) p.get("randint") < 8);
            assertTrue(d(p, "uniform") >= -1 && d(p, "uniform") <= 3);
            double q = d(p, "quniform");
            assertTrue(q == 2 || q == 5 || q == 10);
            assertTrue(d(p, "loguniform") >= 0.001 && d(p, "loguniform") <= 0.1);
            double ql = d(p, "qloguniform");
            assertTrue(ql >= 16 && ql <= 128);
            assertTrue(ql == 16 || ql == 128 || Math.abs(ql / 0.725 - Math.rint(ql / 0.725)) < 1e-9);
            assertEquals(0, Math.abs(d(p, "qnormal") / 3 - Math.rint(d(p, "qnormal") / 3)), 1e-9);
            assertTrue(d(p, "lognormal") > 0);
            assertTrue(d(p, "qlognormal") >= 0);
            assertEquals(0, d(p, "qlognormal") % 2, 1e-9);
        }
    }

    @Test
    public void distributionsHaveTheirShape() {
        List<Map<String, Object>> points = draw(ALL_TYPES, 11, 4000);
        // uniform[-1, 3]: mean 1, variance 16/12
        assertEquals(1.0, mean(points, "uniform"), 0.1);
        assertEquals(16.0 / 12, variance(points, "uniform"), 0.1);
        // normal(5, 2)
        assertEquals(5.0, mean(points, "normal"), 0.15);
        assertEquals(4.0, variance(points, "normal"), 0.4);
        // loguniform: the log is uniform, so the median is the geometric mean 0.01
        assertEquals(0.5, points.stream().filter(p -> d(p, "loguniform") < 0.01).count() / (double) points.size(), 0.04);
        // lognormal(0, 1): median 1
        assertEquals(0.5, points.stream().filter(p -> d(p, "lognormal") < 1).count() / (double) points.size(), 0.04);
        // randint[2, 8): each of 6 values about 1/6
        for (int v = 2; v < 8; v++) {
            int value = v;
            assertEquals(1 / 6.0, points.stream().filter(p -> p.get("randint").equals(value)).count() / (double) points.size(), 0.03);
        }
        // quniform[2, 10, 5]: 2 for x < 2.5 (1/16), 5 for x < 7.5 (10/16), 10 (5/16)
        assertEquals(10 / 16.0, points.stream().filter(p -> d(p, "quniform") == 5).count() / (double) points.size(), 0.04);
    }

    private static double mean(List<Map<String, Object>> points, String key) {
        return points.stream().mapToDouble(p -> d(p, key)).average().orElseThrow();
    }

    private static double variance(List<Map<String, Object>> points, String key) {
        double mean = mean(points, key);
        return points.stream().mapToDouble(p -> (d(p, key) - mean) * (d(p, key) - mean)).average().orElseThrow();
    }

    @Test
    public void sameSeedSameSequence() {
        assertEquals(draw(ALL_TYPES, 42, 50), draw(ALL_TYPES, 42, 50));
        assertTrue(!draw(ALL_TYPES, 42, 50).equals(draw(ALL_TYPES, 43, 50)));
    }

    @Test
    public void finiteSpaceYieldsEachPointOnceThenStops() {
        // as NNI's test_hpo_dedup: exactly the 6 combinations, then no more trials (y in {0, 0.5, 1},
        // which the grid fallback reaches whatever the random draws were)
        SearchSpace space = space("x", "choice", list("a", "b"), "y", "quniform", list(0, 1, 0.5), "z", "normal", list(1, 0));
        Tuner tuner = new RandomTunerProvider().create(Map.of("seed", 3), space);
        Set<Map<String, Object>> seen = new HashSet<>();
        for (long id = 0; id < 6; id++) {
            Optional<Map<String, Object>> next = tuner.generateParameters(id);
            assertTrue("point " + id, next.isPresent());
            assertTrue(seen.add(next.get()));
            assertTrue(List.of(0.0, 0.5, 1.0).contains(next.get().get("y")));
            assertEquals(1.0, next.get().get("z"));
        }
        assertTrue(tuner.generateParameters(6).isEmpty());
    }

    @Test
    public void aRepeatInAHugeFiniteSpaceIsReplacedWithoutEnumeratingIt() {
        Dims dims = new Dims(space("a", "randint", list(0, 1_000_000_000), "b", "choice", list("x", "y")));
        Deduplicator deduplicator = new Deduplicator(dims);
        double[] point = {123, 1};
        assertEquals(Map.of("a", 123, "b", "y"), deduplicator.check(point).orElseThrow().parameters());
        Map<String, Object> replacement = deduplicator.check(point.clone()).orElseThrow().parameters();
        assertEquals(Map.of("a", 0, "b", "x"), replacement);
    }

    @Test
    public void nestedChoiceGivesNamedMappings() {
        SearchSpace space = space("D", "choice", list(option("UNIFORM", "dropout", "uniform", list(0.5, 0.9)), option("EMPTY")));
        for (Map<String, Object> p : draw(space, 5, 100)) {
            Map<?, ?> d = (Map<?, ?>) p.get("D");
            if (d.get("_name").equals("EMPTY")) {
                assertEquals(Map.of("_name", "EMPTY"), d);
            } else {
                assertEquals(2, d.size());
                double dropout = ((Number) d.get("dropout")).doubleValue();
                assertTrue(dropout >= 0.5 && dropout <= 0.9);
            }
        }
    }

    @Test
    public void badClassArgsAreNamed() {
        assertEquals("optimize_mode", new RandomTunerProvider().checkArguments(Map.of("optimize_mode", "best")).get(0).path());
        assertEquals("seed", new RandomTunerProvider().checkArguments(Map.of("seed", "x")).get(0).path());
        assertTrue(new RandomTunerProvider().checkArguments(Map.of("seed", 1, "optimize_mode", "maximize")).isEmpty());
    }
}
