package nni.tuners.internal;

import static nni.tuners.internal.Spaces.list;
import static nni.tuners.internal.Spaces.option;
import static nni.tuners.internal.Spaces.space;
import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SplittableRandom;

import org.junit.Test;

import nni.api.searchspace.SearchSpace;
import nni.api.tuner.Tuner;

/**
 * Results imported from elsewhere ({@code nnictl experiment import}): the tuners NNI lets import
 * (TPE, Anneal, GridSearch) take them, the others say they do not.
 */
public class ImportResultTest {

    private static final SearchSpace NESTED = space(
            "model", "choice", list(option("cnn", "k", "randint", list(2, 6)), option("mlp", "lr", "loguniform", list(1e-4, 1e-1))),
            "momentum", "uniform", list(0.5, 0.99),
            "layers", "choice", list(1, 2, 3));

    @Test
    public void aPointIsFoundBackFromTheParametersATrialSaw() {
        Dims dims = new Dims(NESTED);
        SplittableRandom random = new SplittableRandom(7);
        for (int i = 0; i < 50; i++) {
            double[] point = dims.sample(random);
            Map<String, Object> parameters = dims.parameters(point);
            double[] back = dims.point(parameters).orElseThrow(() -> new AssertionError("not found: " + parameters));
            assertArrayEquals(parameters.toString(), point, back, 1e-12);
        }
        assertEquals(Optional.empty(), dims.point(Map.of("model", Map.of("_name", "rnn"), "momentum", 0.7, "layers", 2)));
        assertEquals(Optional.empty(), dims.point(Map.of("model", Map.of("_name", "cnn", "k", 9), "momentum", 0.7, "layers", 2)));
        assertEquals(Optional.empty(), dims.point(Map.of("momentum", 0.7, "layers", 2)));
    }

    @Test
    public void gridSearchSkipsImportedPoints() {
        Tuner tuner = new GridSearchTunerProvider().create(Map.of(), space("x", "choice", list(1, 2, 3)));
        assertTrue(tuner.importResult(Map.of("x", 2), 0.5));
        Set<Object> given = new HashSet<>();
        for (long id = 0; id < 5; id++) {
            tuner.generateParameters(id).ifPresent(p -> given.add(p.get("x")));
        }
        assertEquals(Set.of(1, 3), given);
    }

    @Test
    public void tpeLearnsFromImportedResultsAndDoesNotProposeThemAgain() {
        Tuner tuner = new TpeTunerProvider().create(Map.of("seed", 3, "optimize_mode", "maximize"), space("x", "choice", list(1, 2, 3)));
        assertTrue(tuner.importResult(Map.of("x", 1), 0.1));
        assertTrue(tuner.importResult(Map.of("x", 3), 0.9));
        assertTrue("a set from another space is skipped, not an error", tuner.importResult(Map.of("y", 1), 0.3));
        assertEquals(Optional.of(Map.of("x", 2)), tuner.generateParameters(0));
        assertEquals("every point of the space was given out or imported", Optional.empty(), tuner.generateParameters(1));
    }

    @Test
    public void annealTakesImportedResultsRandomAndEvolutionDoNot() {
        assertTrue(new AnnealTunerProvider().create(Map.of("seed", 1), NESTED)
                .importResult(Map.of("model", Map.of("_name", "mlp", "lr", 0.01), "momentum", 0.6, "layers", 1), 0.5));
        assertFalse(new RandomTunerProvider().create(Map.of("seed", 1), NESTED).importResult(Map.of("layers", 1), 0.5));
        assertFalse(new EvolutionTunerProvider().create(Map.of("seed", 1), NESTED).importResult(Map.of("layers", 1), 0.5));
    }
}
