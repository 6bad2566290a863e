package nni.api.tuner;

import java.util.List;
import java.util.Map;

import org.osgi.annotation.versioning.ConsumerType;

import nni.api.config.ConfigProblem;
import nni.api.searchspace.SearchSpace;

/**
 * Makes tuners of one algorithm, registered as an OSGi service with the property
 * {@value #ALGORITHM} (see {@link Algorithm}). The manager finds tuners by that name, exactly as it
 * finds platforms, so a third-party bundle adds one by registering this service.
 *
 * <p>Both methods are thread-safe and side-effect free.
 */
@ConsumerType
public interface TunerProvider {

    /** The service property that carries the algorithm name. */
    String ALGORITHM = "nni.algorithm";

    /**
     * Checks the {@code classArgs} of a {@code tuner:} section.
     *
     * @return every problem, with paths relative to {@code classArgs}; empty when valid
     */
    List<ConfigProblem> checkArguments(Map<String, Object> classArgs);

    /**
     * Creates a tuner for one experiment run.
     *
     * @param classArgs   the checked {@code classArgs}
     * @param searchSpace the search space, parsed and checked by the manager
     *                    ({@link SearchSpace#json()} is the JSON as written)
     * @throws IllegalArgumentException if this algorithm cannot handle the search space (GridSearch
     *                                  and a continuous range); the message is shown to the user
     */
    Tuner create(Map<String, Object> classArgs, SearchSpace searchSpace);
}
