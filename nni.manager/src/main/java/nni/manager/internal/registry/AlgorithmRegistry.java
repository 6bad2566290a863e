package nni.manager.internal.registry;

import java.util.List;
import java.util.Locale;
import java.util.Optional;

import org.osgi.framework.ServiceReference;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import nni.api.tuner.AssessorProvider;
import nni.api.tuner.TunerProvider;

/**
 * Every tuner and assessor in the service registry, by algorithm name (matched ignoring case, as
 * NNI matches {@code builtinTunerName}). Found exactly as platforms are, so a third-party bundle adds
 * an algorithm by registering a {@link TunerProvider} or {@link AssessorProvider}.
 */
@Component(service = AlgorithmRegistry.class, immediate = true)
public class AlgorithmRegistry {

    private static final Logger LOG = LoggerFactory.getLogger(AlgorithmRegistry.class);

    private final NamedServices<TunerProvider> tuners =
            new NamedServices<>(TunerProvider.ALGORITHM, name -> name.toLowerCase(Locale.ROOT));
    private final NamedServices<AssessorProvider> assessors =
            new NamedServices<>(TunerProvider.ALGORITHM, name -> name.toLowerCase(Locale.ROOT));

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    void bindTuner(ServiceReference<TunerProvider> reference, TunerProvider provider) {
        tuners.add(reference, provider).ifPresent(e -> LOG.debug("tuner '{}' bound from {}", e.name(), e.bundleName()));
    }

    void unbindTuner(ServiceReference<TunerProvider> reference) {
        tuners.remove(reference);
    }

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    void bindAssessor(ServiceReference<AssessorProvider> reference, AssessorProvider provider) {
        assessors.add(reference, provider).ifPresent(e -> LOG.debug("assessor '{}' bound from {}", e.name(), e.bundleName()));
    }

    void unbindAssessor(ServiceReference<AssessorProvider> reference) {
        assessors.remove(reference);
    }

    /** @return whether this registry has bound the tuner or assessor service behind {@code reference} */
    public boolean binds(ServiceReference<?> reference) {
        return tuners.contains(reference) || assessors.contains(reference);
    }

    public Optional<TunerProvider> tuner(String name) {
        return tuners.get(name).map(NamedServices.Entry::service);
    }

    public Optional<AssessorProvider> assessor(String name) {
        return assessors.get(name).map(NamedServices.Entry::service);
    }

    public List<String> tunerNames() {
        return tuners.names();
    }

    public List<String> assessorNames() {
        return assessors.names();
    }
}
