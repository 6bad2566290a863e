package nni.manager.internal.registry;

import java.util.List;
import java.util.Optional;

import nni.api.tuner.AssessorProvider;
import nni.api.tuner.TunerProvider;

/** What {@link AlgorithmRegistry#choose(nni.manager.internal.config.AlgorithmConfig, nni.manager.internal.config.AlgorithmConfig, AlgorithmLookup)} looks algorithms up in. */
public interface AlgorithmLookup {
    Optional<TunerProvider> tuner(String name);

    Optional<AssessorProvider> assessor(String name);

    List<String> tunerNames();

    List<String> assessorNames();

    /** @return the dispatcher providers, best-ranked first */
    List<AlgorithmRegistry.DispatcherEntry> dispatchers();
}
