package nni.dispatcher.internal;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.Test;

import nni.api.config.ConfigProblem;
import nni.api.tuner.AlgorithmSection;

public class KnownAlgorithmsTest {

    private static AlgorithmSection named(String name) {
        return AlgorithmSection.builder().name(name).build();
    }

    private static List<String> problems(String tuner, Object space) {
        return KnownAlgorithms.checkSearchSpace(named(tuner), space).stream().map(p -> p.path() + ": " + p.message()).toList();
    }

    @Test
    public void theServiceRegistersEveryNameTheTableKnows() throws Exception {
        // the component's nni.algorithm property values, as written in its annotation
        String source = Files.readString(Path.of("src/main/java/nni/dispatcher/internal/NniDispatcherProvider.java"));
        Matcher values = Pattern.compile("\"nni\\.algorithm=([^\"]+)\"").matcher(source);
        List<String> registered = new ArrayList<>();
        while (values.find()) {
            registered.add(values.group(1));
        }
        assertEquals(KnownAlgorithms.names(), registered);
    }

    @Test
    public void eachTunerGetsTheSearchSpaceCheckedAsFarAsItReadsIt() {
        Map<String, Object> normal = Map.of("x", Map.of("_type", "normal", "_value", List.of(0, 1)));
        assertEquals(List.of(), problems("TPE", normal));
        assertEquals(List.of("x._type: SMAC does not read normal; it reads choice, randint, uniform, quniform, loguniform"),
                problems("smac", normal));
        assertEquals(List.of("x._value[1]: MetisTuner reads choices of numbers only, got \"b\"".replace("MetisTuner", "Metis")),
                problems("MetisTuner", Map.of("x", Map.of("_type", "choice", "_value", List.of(1, "b")))));
        Map<String, Object> nested = Map.of("x", Map.of("_type", "choice", "_value",
                List.of(Map.of("_name", "a", "y", Map.of("_type", "uniform", "_value", List.of(0, 1))))));
        assertEquals(List.of(), problems("Random", nested));
        assertEquals(List.of("x._value[0]: Hyperband does not read nested search spaces"), problems("Hyperband", nested));
        // own formats and custom classes pass through unchecked; the standard rules still hold for the others
        Map<String, Object> factor = Map.of("tile", Map.of("_type", "factor", "_value", List.of(64, List.of(2, 4))));
        assertEquals(List.of(), problems("NetworkMorphism", factor));
        assertEquals(List.of(), KnownAlgorithms.checkSearchSpace(AlgorithmSection.builder().className("opevo.Ga")
                .codeDirectory(Path.of("/algorithms")).build(), factor));
        assertFalse(problems("Anneal", factor).isEmpty());
        assertEquals(List.of(), problems("BatchTuner", Map.of("combine", Map.of("_type", "choice", "_value",
                List.of(Map.of("lr", 0.1), Map.of("lr", 0.2))))));
        assertEquals(1, problems("Batch", Map.of("a", Map.of("_type", "choice", "_value", List.of(1)),
                "b", Map.of("_type", "choice", "_value", List.of(2)))).size());
    }

    @Test
    public void sectionsNamingTheWrongKindOrAnUnknownNameAreProblems() {
        List<ConfigProblem> problems = KnownAlgorithms.checkSections(named("Medianstop"), named("TPE"));
        assertEquals(List.of("tuner.name: Medianstop is an assessor, not a tuner", "assessor.name: TPE is a tuner, not an assessor"),
                problems.stream().map(p -> p.path() + ": " + p.message()).toList());
        assertEquals("tuner.classArgs.optimize_mode", KnownAlgorithms.checkSections(AlgorithmSection.builder().name("GP")
                .classArgs(Map.of("optimize_mode", "best")).build(), null).get(0).path());
        assertTrue(KnownAlgorithms.checkSections(named("bohb"), named("Curvefitting")).isEmpty());
        assertTrue(KnownAlgorithms.wantsIntermediateResults(named("Hyperband"), null));
        assertFalse(KnownAlgorithms.wantsIntermediateResults(named("SMAC"), null));
        assertTrue(KnownAlgorithms.wantsIntermediateResults(named("SMAC"), named("Medianstop")));
    }
}
