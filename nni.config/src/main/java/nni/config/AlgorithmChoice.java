package nni.config;

import nni.api.tuner.DispatcherProvider;

/**
 * Which provider runs an experiment's tuner and assessor, as the manager's algorithm registry chose
 * it: the file's checks of the algorithm sections and of the search space are those of what runs them.
 */
public sealed interface AlgorithmChoice permits AlgorithmChoice.JavaAlgorithms, AlgorithmChoice.ThroughDispatcher,
        AlgorithmChoice.Unavailable {

    /** The Java providers, run by {@code runner}: the dispatcher provider that runs the TunerProvider and AssessorProvider services. */
    record JavaAlgorithms(DispatcherProvider runner) implements AlgorithmChoice {
    }

    /** A dispatcher provider runs both. */
    record ThroughDispatcher(DispatcherProvider provider) implements AlgorithmChoice {
    }

    /** Nothing installed runs them: {@code path} ({@code tuner.name}) and why. */
    record Unavailable(String path, String message) implements AlgorithmChoice {
    }

    /** @return the provider that runs a choice that is not {@link Unavailable} */
    static DispatcherProvider provider(AlgorithmChoice choice) {
        if (choice instanceof JavaAlgorithms java) {
            return java.runner();
        }
        return ((ThroughDispatcher) choice).provider();
    }
}
