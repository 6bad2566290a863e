package nni.tuners.internal;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.random.RandomGenerator;

import org.osgi.service.component.annotations.Component;

import nni.api.config.ConfigProblem;
import nni.api.searchspace.SearchSpace;
import nni.api.tuner.Algorithm;
import nni.api.tuner.Tuner;
import nni.api.tuner.TunerProvider;

/**
 * NNI's Random tuner: every parameter drawn from its prior (uniform, log-uniform, normal, index of a
 * choice), depth-first through nested choices; in a finite space repeats are replaced by unseen grid
 * points until the space is exhausted. classArgs: {@code seed}, {@code optimize_mode} (ignored).
 */
@Component(service = TunerProvider.class)
@Algorithm("Random")
public class RandomTunerProvider implements TunerProvider {

    @Override
    public List<ConfigProblem> checkArguments(Map<String, Object> classArgs) {
        ClassArgs args = new ClassArgs(classArgs);
        args.minimize("minimize");
        Seeds.seed(args);
        return args.problems();
    }

    @Override
    public Tuner create(Map<String, Object> classArgs, SearchSpace searchSpace) {
        return new RandomTuner(searchSpace, Seeds.random(Seeds.seed(new ClassArgs(classArgs))));
    }

    static final class RandomTuner implements Tuner {
        private final RandomGenerator random;
        private Dims dims;
        private Deduplicator deduplicator;

        RandomTuner(SearchSpace space, RandomGenerator random) {
            this.random = random;
            updateSearchSpace(space);
        }

        @Override
        public Optional<Map<String, Object>> generateParameters(long parameterId) {
            return deduplicator.check(dims.sample(random)).map(Grid.Candidate::parameters);
        }

        @Override
        public void receiveTrialResult(long parameterId, Map<String, Object> parameters, double value) {
            // random search learns nothing
        }

        @Override
        public void updateSearchSpace(SearchSpace searchSpace) {
            dims = new Dims(searchSpace);
            deduplicator = new Deduplicator(dims);
        }
    }
}
