package nni.api.experiment;

import java.util.List;

import org.osgi.annotation.versioning.ProviderType;

/**
 * The training platforms installed in this runtime, as a face lists them. One service, registered
 * by the manager's platform registry.
 *
 * <p>A service of its own rather than a method of {@link ExperimentService}: the platforms are the
 * registry's (bound and shadowed by name, their sessions tracked), not an experiment's, and a face
 * that lists them (NNI's {@code /platforms} route) needs nothing else of the experiments.
 *
 * <p>Listing activates no platform: a platform's component is activated when an experiment first
 * uses it, and the list is read from the services' registrations. May be called from any thread.
 *
 * @since 1.5
 */
@ProviderType
public interface InstalledPlatforms {

    /** @return the installed platforms, active ones first in name order, then shadowed ones */
    List<PlatformView> platforms();
}
