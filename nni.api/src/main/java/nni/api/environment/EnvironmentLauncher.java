package nni.api.environment;

import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.osgi.annotation.versioning.ConsumerType;

import nni.api.platform.PlatformException;
import nni.api.platform.SessionView;
import nni.api.platform.TransientPlatformException;

/**
 * What a platform implements so that the manager can run trials through keepers: start one keeper
 * process (an environment) where the platform runs things, and tell when it is gone. The platform
 * copies a keeper file ({@link EnvironmentSpec#keeperFile}) and {@link EnvironmentSpec#codeArchive()}
 * to the worker (or shares them), and runs {@link EnvironmentSpec#command} there, with the token in
 * the environment variable {@link EnvironmentSpec#TOKEN_VARIABLE} (never on the command line).
 *
 * <p>Called from the manager's session threads, possibly concurrently; implementations are
 * thread-safe.
 */
@ConsumerType
public interface EnvironmentLauncher {

    /**
     * Starts one environment and returns at once; the keeper reports to the manager by itself.
     * While the environment is on its way the launcher reports its progress to {@code listener}
     * (pending, pulling the image, provisioning, starting, running).
     *
     * @throws TransientPlatformException when the environment cannot be started now but may be
     *                                    later (a quota, HTTP 429/503); the manager tries again with
     *                                    backoff and the waiting trials show the message
     * @throws PlatformException          when it cannot be started at all; the message is shown to
     *                                    the user and the trials that waited for it fail with it
     */
    LaunchedEnvironment start(EnvironmentSpec spec, EnvironmentListener listener) throws PlatformException;

    /**
     * Finds an environment this platform started before for the same experiment, from the handle
     * it gave then ({@link LaunchedEnvironment#handle()}), after a session was detached or lost.
     * Must not start or stop anything.
     *
     * @return the environment, tracked again (its {@link LaunchedEnvironment#ended()} completes when
     *         it is gone), or empty when it is gone or the platform cannot find environments again
     *         (the default)
     */
    default Optional<LaunchedEnvironment> reattach(String environmentId, String handle) {
        return Optional.empty();
    }

    /**
     * The machines this launcher starts environments on, for the keeper session's
     * {@link nni.api.platform.TrainingSession#view()} (the web UI's machines view): each with its
     * GPUs as last read and, on each GPU, the trials of the environments placed on it. The same
     * contract as the session's view: may be called at any time from any thread, returns at once
     * with the last reading, never waits for the network (a launcher that wants fresher figures
     * reads again on its own threads).
     *
     * @param trials the trials running in each environment now, by environment id
     *               ({@link EnvironmentSpec#environmentId()}); an environment not named runs none
     * @return the machines in the launcher's order; none (the default) when it shows nothing of them
     * @since 1.2
     */
    default List<SessionView.Machine> machines(Map<String, List<String>> trials) {
        return List.of();
    }
}
