package nni.tuners.internal;

import static nni.tuners.internal.Spaces.list;
import static nni.tuners.internal.Spaces.space;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.Test;

import nni.api.searchspace.SearchSpace;
import nni.api.tuner.Tuner;
import nni.api.tuner.TunerProvider;

/** The model-based tuners against random search on a seeded 2-D quadratic. */
public class OptimizerTest {

    private static final SearchSpace SPACE = space("x", "uniform", list(-5, 5), "y", "uniform", list(-5, 5));

    /** (x - 1)^2 + (y + 2)^2, minimum 0 at (1, -2). */
    private static double loss(Map<String, Object> p) {
        double x = ((Number) p.get("x")).doubleValue();
        double y = ((Number) p.get("y")).doubleValue();
        return (x - 1) * (x - 1) + (y + 2) * (y + 2);
    }

    /** Runs {@code trials} sequential trials (one at a time) and returns the best loss. */
    static double best(TunerProvider provider, Map<String, Object> args, int trials) {
        Tuner tuner = provider.create(args, SPACE);
        double best = Double.POSITIVE_INFINITY;
        for (long id = 0; id < trials; id++) {
            Map<String, Object> p = tuner.generateParameters(id).orElseThrow();
            double value = loss(p);
            tuner.receiveTrialResult(id, p, value);
            tuner.trialEnd(id, true);
            best = Math.min(best, value);
        }
        return best;
    }

    @Test
    public void tpeBeatsRandomWithinSixtyTrialsForMostSeeds() {
        int wins = 0;
        for (long seed = 0; seed < 20; seed++) {
            double tpe = best(new TpeTunerProvider(), Map.of("seed", seed, "optimize_mode", "minimize"), 60);
            double random = best(new RandomTunerProvider(), Map.of("seed", seed), 60);
            if (tpe < random) {
                wins++;
            }
        }
        System.out.println("TPE better than Random on " + wins + " of 20 seeds");
        assertTrue("TPE won only " + wins + " of 20", wins >= 14);
    }

    @Test
    public void tpeMaximizeTurnsTheProblemAround() {
        Tuner tuner = new TpeTunerProvider().create(Map.of("seed", 4, "optimize_mode", "maximize"), SPACE);
        double startup = 0;
        double late = 0;
        for (long id = 0; id < 60; id++) {
            Map<String, Object> p = tuner.generateParameters(id).orElseThrow();
            tuner.receiveTrialResult(id, p, -loss(p));
            if (id < 20) {
                startup += loss(p) / 20;
            } else if (id >= 40) {
                late += loss(p) / 20;
            }
        }
        assertTrue("TPE's late suggestions (mean loss " + late + ") should beat its random start (" + startup + ")",
                late < startup * 0.6);
    }

    @Test
    public void tpeIsDeterministicUnderASeed() {
        assertEquals(best(new TpeTunerProvider(), Map.of("seed", 9), 40), best(new TpeTunerProvider(), Map.of("seed", 9), 40), 0);
    }

    @Test
    public void annealAndEvolutionAreDeterministicUnderASeed() {
        assertEquals(best(new AnnealTunerProvider(), Map.of("seed", 5), 80), best(new AnnealTunerProvider(), Map.of("seed", 5), 80), 0);
        assertEquals(best(new EvolutionTunerProvider(), Map.of("seed", 5), 80),
                best(new EvolutionTunerProvider(), Map.of("seed", 5), 80), 0);
    }

    @Test
    public void annealImprovesOverItsStart() {
        assertImproves(new AnnealTunerProvider(), "minimize");
    }

    @Test
    public void evolutionImprovesOverItsStart() {
        assertImproves(new EvolutionTunerProvider(), "minimize");
    }

    /**
     * The best quarter of the last 40 of 200 trials is below the best quarter of the first 40 (which
     * are random draws for both tuners) for each of 5 seeds, and well below (70 %) summed over the
     * seeds: what random search could not do, as both samples have the same size.
     */
    private static void assertImproves(TunerProvider provider, String mode) {
        double totalBefore = 0;
        double totalAfter = 0;
        for (long seed = 0; seed < 5; seed++) {
            Tuner tuner = provider.create(Map.of("seed", seed, "optimize_mode", mode), SPACE);
            List<Double> first = new java.util.ArrayList<>();
            List<Double> last = new java.util.ArrayList<>();
            for (long id = 0; id < 200; id++) {
                Map<String, Object> p = tuner.generateParameters(id).orElseThrow();
                double value = loss(p);
                tuner.receiveTrialResult(id, p, value);
                tuner.trialEnd(id, true);
                if (id < 40) {
                    first.add(value);
                } else if (id >= 160) {
                    last.add(value);
                }
            }
            double before = bestQuarter(first);
            double after = bestQuarter(last);
            System.out.printf("%s seed %d: mean of the best 10 losses of trials 0-39 %.2f, of trials 160-199 %.2f%n",
                    provider.getClass().getSimpleName(), seed, before, after);
            assertTrue(provider.getClass().getSimpleName() + " seed " + seed + ": " + before + " -> " + after,
                    after < before);
            totalBefore += before;
            totalAfter += after;
        }
        assertTrue(provider.getClass().getSimpleName() + ": " + totalBefore + " -> " + totalAfter, totalAfter < totalBefore * 0.7);
    }

    private static double bestQuarter(List<Double> values) {
        return values.stream().sorted().limit(values.size() / 4).mapToDouble(Double::doubleValue).average().orElseThrow();
    }

    @Test
    public void tpeArgumentsAreChecked() {
        TunerProvider tpe = new TpeTunerProvider();
        assertTrue(tpe.checkArguments(Map.of("optimize_mode", "maximize", "seed", 1,
                "tpe_args", Map.of("n_startup_jobs", 5, "gamma", 0.3, "constant_liar_type", "mean"))).isEmpty());
        assertEquals("tpe_args.gamma", tpe.checkArguments(Map.of("tpe_args", Map.of("gamma", 2))).get(0).path());
        assertEquals("tpe_args.bogus", tpe.checkArguments(Map.of("tpe_args", Map.of("bogus", 2))).get(0).path());
        assertEquals("population_size", new EvolutionTunerProvider().checkArguments(Map.of("population_size", 1)).get(0).path());
    }

    @Test
    public void tpeWithConcurrentTrialsStillSuggestsInRange() {
        Tuner tuner = new TpeTunerProvider().create(Map.of("seed", 2, "tpe_args", Map.of("n_startup_jobs", 3)), SPACE);
        Map<Long, Map<String, Object>> running = new HashMap<>();
        for (long id = 0; id < 30; id++) {
            Map<String, Object> p = tuner.generateParameters(id).orElseThrow();
            double x = ((Number) p.get("x")).doubleValue();
            assertTrue(x >= -5 && x <= 5);
            running.put(id, p);
            if (id % 3 == 2) {
                for (Map.Entry<Long, Map<String, Object>> e : List.copyOf(running.entrySet())) {
                    tuner.receiveTrialResult(e.getKey(), e.getValue(), loss(e.getValue()));
                    running.remove(e.getKey());
                }
            }
        }
    }
}
