package nni.tuners.internal;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;

import org.osgi.service.component.annotations.Component;

import nni.api.config.ConfigProblem;
import nni.api.searchspace.SearchSpace;
import nni.api.tuner.Algorithm;
import nni.api.tuner.Tuner;
import nni.api.tuner.TunerProvider;
import nni.tuners.internal.Dims.Dim;

/**
 * NNI's Evolution tuner: a population of {@code population_size} random individuals is tried first;
 * then each request takes two random members, keeps the better, and hands out a mutant of it (one
 * active parameter re-drawn; a nested choice re-draws its whole sub-tree) while the worse one leaves
 * the population. Results join the population; a failed trial is replaced by a new random individual.
 *
 * <p>Where NNI defers a request until a trial ends (fewer than two evaluated individuals), this
 * tuner hands out a new random individual instead, since a request here must be answered at once.
 *
 * <p>classArgs: {@code optimize_mode} (maximize), {@code population_size} (32), {@code seed}.
 */
@Component(service = TunerProvider.class)
@Algorithm("Evolution")
public class EvolutionTunerProvider implements TunerProvider {

    @Override
    public List<ConfigProblem> checkArguments(Map<String, Object> classArgs) {
        ClassArgs args = new ClassArgs(classArgs);
        args.minimize("maximize");
        args.integer("population_size", 32L, 2, Integer.MAX_VALUE);
        Seeds.seed(args);
        return args.problems();
    }

    @Override
    public Tuner create(Map<String, Object> classArgs, SearchSpace searchSpace) {
        ClassArgs args = new ClassArgs(classArgs);
        boolean minimize = args.minimize("maximize");
        int population = args.integer("population_size", 32L, 2, Integer.MAX_VALUE).intValue();
        Long seed = Seeds.seed(args);
        return new EvolutionTuner(searchSpace, minimize, population, seed == null ? new Random() : new Random(seed));
    }

    /** A parameter set and its reward (null until known). */
    private record Individual(double[] point, Double reward) {
    }

    static final class EvolutionTuner implements Tuner {
        private final boolean minimize;
        private final int populationSize;
        private final Random random;
        private Dims dims;
        private final List<Individual> population = new ArrayList<>();
        private final Map<Long, double[]> running = new LinkedHashMap<>();

        EvolutionTuner(SearchSpace space, boolean minimize, int populationSize, Random random) {
            this.minimize = minimize;
            this.populationSize = populationSize;
            this.random = random;
            updateSearchSpace(space);
        }

        @Override
        public void updateSearchSpace(SearchSpace searchSpace) {
            dims = new Dims(searchSpace);
            population.clear();
            for (int i = 0; i < populationSize; i++) {
                population.add(new Individual(dims.sample(random), null));
            }
        }

        @Override
        public Optional<Map<String, Object>> generateParameters(long parameterId) {
            double[] point = null;
            for (int i = 0; i < population.size(); i++) {
                if (population.get(i).reward() == null) {
                    point = population.remove(i).point();
                    break;
                }
            }
            if (point == null && population.size() >= 2) {
                Collections.shuffle(population, random);
                if (population.get(0).reward() < population.get(1).reward()) {
                    population.set(0, population.get(1));
                }
                point = mutate(population.get(0).point());
                population.remove(1);
            }
            if (point == null) {
                point = dims.sample(random);
            }
            running.put(parameterId, point);
            return Optional.of(dims.parameters(point));
        }

        private double[] mutate(double[] parent) {
            double[] child = parent.clone();
            List<Dim> active = dims.all().stream().filter(d -> dims.active(child, d)).toList();
            Dim chosen = active.get(random.nextInt(active.size()));
            child[chosen.index()] = Dims.prior(chosen, random);
            // the sub-tree under a re-drawn choice is drawn anew
            for (int i = chosen.index() + 1; i < dims.size(); i++) {
                Dim dim = dims.get(i);
                if (isDescendant(dim, chosen)) {
                    child[i] = dims.active(child, dim) ? Dims.prior(dim, random) : Double.NaN;
                }
            }
            return child;
        }

        private boolean isDescendant(Dim dim, Dim ancestor) {
            for (int p = dim.parent(); p >= 0; p = dims.get(p).parent()) {
                if (p == ancestor.index()) {
                    return true;
                }
            }
            return false;
        }

        @Override
        public void receiveTrialResult(long parameterId, Map<String, Object> parameters, double value) {
            double[] point = running.remove(parameterId);
            if (point != null) {
                population.add(new Individual(point, minimize ? -value : value));
            }
        }

        @Override
        public void trialEnd(long parameterId, boolean succeeded) {
            if (running.remove(parameterId) != null && !succeeded) {
                population.add(new Individual(dims.sample(random), null));
            }
        }
    }
}
