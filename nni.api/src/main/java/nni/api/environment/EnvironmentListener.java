package nni.api.environment;

import org.osgi.annotation.versioning.ProviderType;

/**
 * Hears how one environment progresses before its keeper connects. Implemented by the manager and
 * handed to {@link EnvironmentLauncher#start}; platforms only call it, from any thread, in the order
 * things happened, and never after {@link LaunchedEnvironment#ended()} completed.
 */
@ProviderType
public interface EnvironmentListener {

    /**
     * The environment reached {@code state}.
     *
     * @param message what a person waiting for it should read ("waiting: needs 2 GPUs; 10.0.0.2: 1
     *                free", "pulling image msranni/nni:latest"); never a secret. The manager shows
     *                it as the waiting reason of the trials waiting for this environment.
     */
    void stateChanged(EnvironmentState state, String message);
}
