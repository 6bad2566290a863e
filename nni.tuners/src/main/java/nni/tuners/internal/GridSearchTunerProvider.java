package nni.tuners.internal;

import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import org.osgi.service.component.annotations.Component;

import nni.api.config.ConfigProblem;
import nni.api.searchspace.SearchSpace;
import nni.api.tuner.Algorithm;
import nni.api.tuner.Tuner;
import nni.api.tuner.TunerProvider;

/**
 * NNI's GridSearch tuner ({@link Grid}): deterministic, refines continuous ranges epoch by epoch,
 * and returns nothing more once the space is fully explored, which ends the experiment. It takes
 * no classArgs ({@code optimize_mode} is tolerated, as in NNI).
 */
@Component(service = TunerProvider.class)
@Algorithm("GridSearch")
public class GridSearchTunerProvider implements TunerProvider {

    @Override
    public List<ConfigProblem> checkArguments(Map<String, Object> classArgs) {
        ClassArgs args = new ClassArgs(classArgs);
        args.minimize("maximize");
        return args.problems();
    }

    @Override
    public Tuner create(Map<String, Object> classArgs, SearchSpace searchSpace) {
        return new GridSearchTuner(searchSpace);
    }

    static final class GridSearchTuner implements Tuner {
        private Grid grid;
        private final Set<String> history = new HashSet<>();

        GridSearchTuner(SearchSpace space) {
            updateSearchSpace(space);
        }

        @Override
        public Optional<Map<String, Object>> generateParameters(long parameterId) {
            return grid.next(history).map(Grid.Candidate::parameters);
        }

        @Override
        public void receiveTrialResult(long parameterId, Map<String, Object> parameters, double value) {
            // the grid does not depend on results
        }

        /** NNI's GridSearch skips the points imported results already cover. */
        @Override
        public boolean importResult(Map<String, Object> parameters, double value) {
            history.add(Dims.key(parameters));
            return true;
        }

        @Override
        public void updateSearchSpace(SearchSpace searchSpace) {
            if (searchSpace.isEmpty()) {
                throw new IllegalArgumentException("GridSearch needs a search space with at least one parameter");
            }
            grid = new Grid(new Dims(searchSpace));
        }
    }
}
