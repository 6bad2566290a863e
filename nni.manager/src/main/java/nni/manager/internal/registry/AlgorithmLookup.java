package nni.manager.internal.registry;

import java.util.List;
import java.util.Optional;

import nni.api.tuner.AssessorProvider;
import nni.api.tuner.DispatcherProvider;
import nni.api.tuner.TunerProvider;

/** What {@link AlgorithmRegistry#choose(nni.config.AlgorithmConfig, nni.config.AlgorithmConfig, AlgorithmLookup)} looks algorithms up in. */
public interface AlgorithmLookup {
    Optional<TunerProvider> tuner(String name);

    Optional<AssessorProvider> assessor(String name);

    List<String> tunerNames();

    List<String> assessorNames();

    /** @return the provider that runs the Java tuners and assessors (bundle nni.tuners), or empty when none is installed */
    Optional<DispatcherProvider> javaRunner();

    /** @return the dispatcher providers, best-ranked first, without the {@link #javaRunner()} */
    List<AlgorithmRegistry.DispatcherEntry> dispatchers();
}
