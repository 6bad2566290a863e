package nni.tuners.internal;

import static nni.tuners.internal.Spaces.list;
import static nni.tuners.internal.Spaces.space;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.util.List;
import java.util.SplittableRandom;

import org.junit.Test;

/** BOHB's model: when it starts, that random_fraction is kept, that it proposes where the good results were. */
public class BohbModelTest {

    private static final Dims ONE = new Dims(space("x", "uniform", list(0, 1)));

    private static BohbModel model(Dims dims, Integer minPoints, double randomFraction, long seed) {
        return new BohbModel(dims, new BohbModel.Settings(minPoints, 15, 64, randomFraction, 3, 1e-3), new SplittableRandom(seed));
    }

    /** Feeds {@code count} results at budget 1, loss |x - 0.8|, from points drawn at random. */
    private static void feed(BohbModel model, Dims dims, int count, SplittableRandom random) {
        for (int k = 0; k < count; k++) {
            double[] point = dims.sample(random);
            model.result(point, 1, Math.abs(point[0] - 0.8));
        }
    }

    @Test
    public void theModelStartsOnceMinPointsInModelResultsAndEnoughForBothDensitiesAreIn() {
        for (int minPoints : List.of(3, 5, 8)) {
            BohbModel model = model(ONE, minPoints, 0, 1);
            assertEquals(minPoints, model.minPoints());
            SplittableRandom random = new SplittableRandom(2);
            // the good density takes min_points_in_model points; the bad one needs more than one dimension's worth
            feed(model, ONE, minPoints + 1, random);
            assertEquals(List.of(), model.modelled());
            model.next(1);
            assertEquals(0, model.modelPicks());
            feed(model, ONE, 1, random);
            assertEquals(List.of(1), model.modelled());
            model.next(1);
            assertEquals(1, model.modelPicks());
        }
    }

    @Test
    public void minPointsInModelIsAtLeastTheParametersPlusOne() {
        Dims three = new Dims(space("x", "uniform", list(0, 1), "y", "choice", list(1, 2), "z", "normal", list(0, 1)));
        assertEquals(4, model(three, null, 0, 1).minPoints());
        assertEquals(4, model(three, 2, 0, 1).minPoints());
        assertEquals(9, model(three, 9, 0, 1).minPoints());
    }

    @Test
    public void randomFractionOfTheConfigurationsComeFromThePriors() {
        for (double fraction : List.of(0.0, 0.25, 1.0)) {
            BohbModel model = model(ONE, null, fraction, 3);
            feed(model, ONE, 30, new SplittableRandom(4));
            for (int k = 0; k < 2000; k++) {
                model.next(1);
            }
            double fromModel = model.modelPicks() / 2000.0;
            assertEquals("random_fraction " + fraction, 1 - fraction, fromModel, 0.05);
        }
    }

    @Test
    public void theModelProposesNearTheGoodResults() {
        BohbModel model = model(ONE, null, 0, 5);
        feed(model, ONE, 40, new SplittableRandom(6));
        double distance = 0;
        for (int k = 0; k < 200; k++) {
            distance += Math.abs(model.next(1)[0] - 0.8) / 200;
        }
        // drawn from the prior, the mean distance to 0.8 would be (0.8^2 + 0.2^2) / 2 = 0.34
        assertTrue("mean distance " + distance, distance < 0.15);
    }

    @Test
    public void aBudgetStopsCollectingOnceALargerOneHasAModel() {
        BohbModel model = model(ONE, null, 0, 7);
        SplittableRandom random = new SplittableRandom(8);
        for (int k = 0; k < 4; k++) {
            double[] point = ONE.sample(random);
            model.result(point, 3, Math.abs(point[0] - 0.8));
        }
        assertEquals(List.of(3), model.modelled());
        feed(model, ONE, 20, random);
        assertEquals(List.of(3), model.modelled());
    }

    @Test
    public void categoricalAndNormalParametersComeBackAsValuesOfTheirSpace() {
        Dims dims = new Dims(space("k", "choice", list("a", "b", "c"), "n", "qnormal", list(10, 2, 1), "r", "randint", list(2, 6)));
        BohbModel model = model(dims, null, 0, 9);
        SplittableRandom random = new SplittableRandom(10);
        for (int k = 0; k < 30; k++) {
            double[] point = dims.sample(random);
            model.result(point, 1, point[0] == 1 ? 0 : 1);
        }
        assertEquals(List.of(1), model.modelled());
        int b = 0;
        for (int k = 0; k < 100; k++) {
            var parameters = dims.parameters(model.next(1));
            assertTrue(parameters.toString(), List.of("a", "b", "c").contains(parameters.get("k")));
            int r = (Integer) parameters.get("r");
            assertTrue(parameters.toString(), r >= 2 && r < 6);
            b += parameters.get("k").equals("b") ? 1 : 0;
        }
        assertTrue("b chosen " + b + " times of 100", b > 60);
    }
}
