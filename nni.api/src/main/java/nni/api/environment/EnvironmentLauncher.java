package nni.api.environment;

import org.osgi.annotation.versioning.ConsumerType;

import nni.api.platform.PlatformException;

/**
 * What a platform implements so that the manager can run trials through keepers: start one keeper
 * process (an environment) where the platform runs things, and tell when it is gone. The platform
 * copies {@link EnvironmentSpec#keeperJar()} and {@link EnvironmentSpec#codeArchive()} to the
 * worker (or shares them), and runs {@code java -jar <keeper jar> <arguments>} with
 * {@link EnvironmentSpec#arguments} and the token in the environment variable
 * {@link EnvironmentSpec#TOKEN_VARIABLE} (never on the command line).
 *
 * <p>Called from the manager's session threads, possibly concurrently; implementations are
 * thread-safe.
 */
@ConsumerType
public interface EnvironmentLauncher {

    /**
     * Starts one environment and returns at once; the keeper reports to the manager by itself.
     *
     * @throws PlatformException when the environment cannot be started; the message is shown to
     *                           the user and the trials that waited for it fail with it
     */
    LaunchedEnvironment start(EnvironmentSpec spec) throws PlatformException;
}
