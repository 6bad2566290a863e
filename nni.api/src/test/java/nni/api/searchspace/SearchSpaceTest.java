package nni.api.searchspace;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.Test;

import nni.api.config.ConfigProblem;

/** Every search-space type: parsing, checks with clear messages, and NNI's value semantics. */
public class SearchSpaceTest {

    private static Map<String, Object> spec(String type, Object value) {
        Map<String, Object> spec = new LinkedHashMap<>();
        spec.put("_type", type);
        spec.put("_value", value);
        return spec;
    }

    private static Parameter one(String type, Object... values) throws SearchSpaceException {
        return SearchSpace.parse(Map.of("p", spec(type, List.of(values)))).parameters().get(0);
    }

    private static String problem(String type, Object value) {
        List<ConfigProblem> problems = SearchSpace.check(Map.of("p", spec(type, value)));
        assertEquals(problems.toString(), 1, problems.size());
        return problems.get(0).toString();
    }

    @Test
    public void choice() throws Exception {
        Parameter p = one("choice", 0.3, "cat", 1);
        assertEquals(3, p.size());
        assertEquals("cat", p.value(1));
        assertEquals("p._value: expected at least one option for choice, got an empty list", problem("choice", List.of()));
    }

    @Test
    public void nestedChoice() throws Exception {
        Map<String, Object> uniform = new LinkedHashMap<>();
        uniform.put("_name", "UNIFORM");
        uniform.put("dropout", spec("uniform", List.of(0.1, 0.9)));
        SearchSpace space = SearchSpace.parse(Map.of("D", spec("choice", List.of(uniform, Map.of("_name", "EMPTY")))));
        Parameter d = space.parameters().get(0);
        assertTrue(d.option(0).nested());
        assertEquals("UNIFORM", d.option(0).name());
        assertEquals("dropout", d.option(0).subSpace().parameters().get(0).name());
        assertTrue(d.option(1).subSpace().isEmpty());
        // sub-spaces are checked too
        Map<String, Object> bad = new LinkedHashMap<>();
        bad.put("_name", "B");
        bad.put("x", spec("uniform", List.of(2, 1)));
        assertEquals("p._value[0].x._value: expected low <= high, got [2, 1]", problem("choice", List.of(bad)));
        assertEquals("p._value[1]: expected a mapping with _name, as the first option of this nested choice, got 2",
                problem("choice", List.of(Map.of("_name", "A"), 2)));
    }

    @Test
    public void randint() throws Exception {
        Parameter p = one("randint", 2, 8);
        assertEquals(6, p.size());
        assertEquals(7, p.value(5));
        assertEquals("p._value: expected lower < upper for randint, got [0, 0]", problem("randint", List.of(0, 0)));
        assertEquals("p._value: expected integers for randint (lower, upper), got 1.5", problem("randint", List.of(1.5, 3)));
        assertEquals("p._value: expected 2 numbers for randint (lower, upper), got 3", problem("randint", List.of(1, 2, 3)));
    }

    @Test
    public void uniform() throws Exception {
        Parameter p = one("uniform", 0, 10);
        assertEquals(0.0, p.low(), 0);
        assertEquals(10.0, p.high(), 0);
        assertEquals(2.5, (Double) p.value(2.5), 0);
        assertEquals(99.9, (Double) one("uniform", 99.9, 99.9).value(99.9), 0);
        assertEquals("p._value: expected numbers for uniform (low, high), got \"a\"", problem("uniform", List.of("a", "b")));
        assertEquals("p._value: expected low <= high, got [3, 1]", problem("uniform", List.of(3, 1)));
    }

    @Test
    public void quniformRoundsHalfToEvenAndClips() throws Exception {
        assertEquals(2.0, (Double) one("quniform", 2, 3, 1).value(2.5), 0);
        assertEquals(100.0, (Double) one("quniform", 100, 1000, 3).value(100.1), 0);
        assertEquals(10.0, (Double) one("quniform", 2, 10, 5).value(9.0), 0);
        assertEquals("p._value: expected 3 numbers for quniform (low, high, q), got 1", problem("quniform", List.of(1)));
        assertEquals("p._value: expected q > 0, got 0", problem("quniform", List.of(1, 2, 0)));
    }

    @Test
    public void loguniformWorksInLogSpace() throws Exception {
        Parameter p = one("loguniform", 0.001, 0.1);
        assertEquals(Math.log(0.001), p.low(), 1e-12);
        assertEquals(0.01, (Double) p.value(Math.log(0.01)), 1e-12);
        assertEquals("p._value: expected low > 0 for loguniform, got 0", problem("loguniform", List.of(0, 1)));
    }

    @Test
    public void qloguniform() throws Exception {
        assertEquals(54.375, (Double) one("qloguniform", 16, 128, 0.725).value(4.0), 1e-9);
        assertEquals(16.0, (Double) one("qloguniform", 16, 128, 0.725).value(Math.log(10)), 0);
        assertEquals("p._value: expected low > 0 for qloguniform, got -1", problem("qloguniform", List.of(-1, 1, 1)));
    }

    @Test
    public void normal() throws Exception {
        Parameter p = one("normal", 5, 2);
        assertEquals(5.0, p.mu(), 0);
        assertEquals(2.0, p.sigma(), 0);
        assertEquals(-7.5, (Double) p.value(-7.5), 0);
        assertEquals("p._value: expected sigma >= 0, got -1", problem("normal", List.of(0, -1)));
    }

    @Test
    public void qnormalRoundsWithoutClipping() throws Exception {
        assertEquals(99.0, (Double) one("qnormal", 500, 200, 3).value(100.1), 0);
        assertEquals(-3.0, (Double) one("qnormal", 0, 1, 3).value(-2.0), 0);
    }

    @Test
    public void lognormal() throws Exception {
        assertEquals(Math.E, (Double) one("lognormal", 0, 1).value(1.0), 1e-12);
        assertEquals("p._value: expected 2 numbers for lognormal (mu, sigma), got 3", problem("lognormal", List.of(0, 1, 2)));
    }

    @Test
    public void qlognormal() throws Exception {
        assertEquals(8.0, (Double) one("qlognormal", 1, 0.5, 2).value(Math.log(7.1)), 0);
        assertEquals(0.0, (Double) one("qlognormal", 1, 0.5, 2).value(Math.log(0.9)), 0);
    }

    @Test
    public void malformedEntriesAreNamed() {
        assertEquals("expected a search space mapping parameter names to {_type, _value}, got a list",
                SearchSpace.check(List.of()).get(0).message());
        assertEquals("p: expected a mapping with _type and _value, got 3", SearchSpace.check(Map.of("p", 3)).get(0).toString());
        List<ConfigProblem> noUnderscore = SearchSpace.check(Map.of("p", Map.of("type", "choice", "value", List.of(1))));
        assertEquals(4, noUnderscore.size());
        assertTrue(noUnderscore.toString(), noUnderscore.stream().anyMatch(p -> p.toString().equals("p._type: _type is required")));
        assertEquals("p._type: expected one of choice, randint, uniform, quniform, loguniform, qloguniform, normal, qnormal, "
                + "lognormal, qlognormal, got \"choic\"", problem("choic", List.of(1)));
        assertEquals("p._value: expected a list, got 3", problem("choice", 3));
    }

    @Test
    public void definitionOrderIsKept() throws Exception {
        Map<String, Object> json = new LinkedHashMap<>();
        for (String name : List.of("z", "a", "m")) {
            json.put(name, spec("uniform", List.of(0, 1)));
        }
        assertEquals(List.of("z", "a", "m"), SearchSpace.parse(json).parameters().stream().map(Parameter::name).toList());
    }
}
