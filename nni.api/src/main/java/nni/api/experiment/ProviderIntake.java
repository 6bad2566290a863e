package nni.api.experiment;

import org.osgi.annotation.versioning.ProviderType;

/**
 * Whether the runtime has taken in the training platforms, tuners, assessors and dispatchers that
 * bundles registered as services: a face that waits for the runtime to be ready (the launcher's
 * commands) waits until every one registered is. One service, registered by the manager. May be
 * called from any thread.
 *
 * @since 1.5
 */
@ProviderType
public interface ProviderIntake {

    /**
     * @param serviceId a {@code TrainingPlatform} service's {@code service.id}
     * @return whether the manager has taken that platform in, as the one answering to its name or
     *         shadowed by another of its name
     */
    boolean platformTakenIn(long serviceId);

    /**
     * @param serviceId a {@code TunerProvider}'s, {@code AssessorProvider}'s or
     *                  {@code DispatcherProvider}'s service's {@code service.id}
     * @return whether the manager has taken that algorithm in, as the one answering to its name or
     *         shadowed by another of its name
     */
    boolean algorithmTakenIn(long serviceId);
}
