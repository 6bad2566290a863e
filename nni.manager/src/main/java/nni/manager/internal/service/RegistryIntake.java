package nni.manager.internal.service;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

import nni.api.experiment.ProviderIntake;
import nni.manager.internal.registry.AlgorithmRegistry;
import nni.manager.internal.registry.PlatformRegistry;

/** {@link ProviderIntake} over the manager's platform and algorithm registries. */
@Component(service = ProviderIntake.class)
public class RegistryIntake implements ProviderIntake {

    private final PlatformRegistry platforms;
    private final AlgorithmRegistry algorithms;

    @Activate
    public RegistryIntake(@Reference PlatformRegistry platforms, @Reference AlgorithmRegistry algorithms) {
        this.platforms = platforms;
        this.algorithms = algorithms;
    }

    @Override
    public boolean platformTakenIn(long serviceId) {
        return platforms.binds(serviceId);
    }

    @Override
    public boolean algorithmTakenIn(long serviceId) {
        return algorithms.binds(serviceId);
    }
}
