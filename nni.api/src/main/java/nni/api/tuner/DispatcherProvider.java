package nni.api.tuner;

import java.util.List;

import org.osgi.annotation.versioning.ConsumerType;

import nni.api.config.ConfigProblem;

/**
 * Runs tuners and assessors as {@link Dispatcher}s: NNI's own dispatcher (every algorithm of the
 * {@code nni} package and custom classes), or any other implementation of the protocol. Registered
 * as an OSGi service with {@value TunerProvider#ALGORITHM} = the algorithm names it runs (a
 * {@code String} or {@code String[]}, matched ignoring case), {@value #CLASSES}{@code =true} when it
 * also runs custom classes ({@code className} + {@code codeDirectory}), and {@value #IMPLEMENTATION}
 * = what an experiment file's {@code implementation:} asks for to choose it over a Java
 * {@link TunerProvider} or {@link AssessorProvider} of the same name.
 *
 * <p>The manager chooses, per experiment, the Java providers when both the tuner and the assessor
 * have one and the file does not ask otherwise; else a dispatcher provider that runs both. Java
 * providers are run by the dispatcher provider registered with {@value #RUNS_PROVIDERS}{@code =true}
 * (bundle {@code nni.tuners} has it): the engine itself speaks this protocol only. The check
 * methods are thread-safe and side-effect free.
 *
 * @since 1.1
 */
@ConsumerType
public interface DispatcherProvider {

    /** Service property: {@code true} when the provider runs custom classes. */
    String CLASSES = "nni.algorithm.classes";

    /**
     * Service property: {@code true} on the one provider that runs the {@link TunerProvider} and
     * {@link AssessorProvider} services found in the service registry (whoever registers them);
     * the manager gives it the experiments its choice rule gives the Java providers. It names no
     * algorithm in {@value TunerProvider#ALGORITHM}: the providers' own registrations name them.
     *
     * @since 1.2
     */
    String RUNS_PROVIDERS = "nni.algorithm.providers";

    /** Service property: the implementation's name an algorithm section's {@code implementation:} asks for. */
    String IMPLEMENTATION = "nni.algorithm.implementation";

    /**
     * Checks the algorithm sections.
     *
     * @param assessor the assessor section, or null when the experiment has none
     * @return every problem, with paths from the experiment's root ({@code tuner.classArgs.R}); empty when valid
     */
    List<ConfigProblem> checkAlgorithms(AlgorithmSection tuner, AlgorithmSection assessor);

    /**
     * Checks the search space against what the tuner declares it reads, and nothing else: a custom
     * class or an algorithm with a space format of its own gets it unchecked.
     *
     * @return every problem, with paths relative to the search space; empty when valid
     */
    List<ConfigProblem> checkSearchSpace(AlgorithmSection tuner, Object searchSpace);

    /**
     * @return how experiments choosing this provider run, for {@code validate}; e.g. "NNI's dispatcher
     *         (needs the nni package)"
     */
    String runsThrough();

    /**
     * Starts the algorithm for one experiment run. Returns once it is on its way; it becomes ready
     * later, and failures from then on are reported through {@link DispatcherContext#failed}.
     *
     * @throws DispatcherException when it cannot start at all (its message names what is missing)
     */
    Dispatcher start(DispatcherContext context) throws DispatcherException;
}
