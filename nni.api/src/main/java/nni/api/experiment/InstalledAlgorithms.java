package nni.api.experiment;

import java.util.List;

import org.osgi.annotation.versioning.ProviderType;

/**
 * The tuners, assessors and dispatchers installed in this runtime, as a face lists them
 * ({@code nni:algorithms}, NNI's {@code nnictl algo list}): what an experiment file's
 * {@code tuner.name} and {@code assessor.name} may name. One service, registered by the manager's
 * algorithm registry.
 *
 * <p>A service of its own, as {@link InstalledPlatforms} is: the algorithms are the registry's, not
 * an experiment's. Listing activates no algorithm; the list is read from the services'
 * registrations, a copy taken at one moment. May be called from any thread.
 *
 * @since 1.5
 */
@ProviderType
public interface InstalledAlgorithms {

    /**
     * @return the tuner that answers to each name, then the assessor that answers to each name (by
     *         name ignoring case; a shadowed one is not listed), then every dispatcher, the one an
     *         experiment would choose first ahead
     */
    List<AlgorithmView> algorithms();
}
