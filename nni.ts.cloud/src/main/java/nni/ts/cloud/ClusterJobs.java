package nni.ts.cloud;

import java.time.Duration;
import java.util.Optional;
import java.util.function.BiConsumer;

import nni.api.environment.EnvironmentLauncher;

/**
 * A launcher whose environments are jobs of a cluster (OpenPAI or DLTS jobs through
 * {@link JobLauncher}, Kubernetes jobs), as a {@link JobSession} drives it. With one job per trial
 * an environment's id is its trial's.
 *
 * <p>Threads: every method may be called from any thread; {@link #close()} and {@link #detach()}
 * once, last.
 */
public interface ClusterJobs extends EnvironmentLauncher, AutoCloseable {

    /** @return why the cluster refused the credentials, once it did: no more jobs are submitted then */
    Optional<String> refusal();

    /**
     * A cancelled trial's job (one job per trial): stopped at once, or once its keeper has
     * reported the trial's end, as the cluster's launcher sees fit; nothing when it is not tracked.
     */
    void stopJobOf(String environmentId);

    /**
     * The job of {@code environmentId} should end by itself (its trial is over): it is left
     * {@code grace} to do so, and stopped then if the cluster still runs it (another task role keeps
     * it up).
     */
    void stopJobLater(String environmentId, Duration grace);

    /**
     * @param listener told (environment id, why) when a live environment's job was removed by
     *                 someone else than this launcher (a user's {@code kubectl delete}); launchers
     *                 that cannot tell never call it
     */
    default void whenRemovedFromOutside(BiConsumer<String, String> listener) {
    }

    /** Lets go of every job without stopping it: a later session takes them back ({@link #reattach}). */
    void detach();

    /** Stops what is still running (what the experiment created), ends the launcher's threads. */
    @Override
    void close();
}
