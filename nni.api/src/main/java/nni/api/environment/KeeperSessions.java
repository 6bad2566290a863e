package nni.api.environment;

import java.nio.file.Path;

import org.osgi.annotation.versioning.ProviderType;

import nni.api.platform.PlatformException;
import nni.api.platform.SessionContext;
import nni.api.platform.TrainingSession;

/**
 * The manager's keeper mechanism, an OSGi service every remote or cluster platform may use instead
 * of writing its own session: the platform only starts and stops keeper processes
 * ({@link EnvironmentLauncher}); the returned session does the rest (tokens, scheduling trials onto
 * environments, reports, cancel, idle environments, lost environments, detach).
 *
 * <h2>Decisions</h2>
 * <ul>
 * <li>A trial whose environment ends before the keeper reported the trial's end is marked
 *     {@code FAILED} with a message naming the environment and why it ended (a cancelled one gets
 *     its cancel status); it is not retried: the tuner decides what to try next. The environment is
 *     replaced when trials wait.</li>
 * <li>If environments keep ending before they are ready (three in a row), or a keeper is refused at
 *     the handshake, the waiting trials fail with that reason and later submissions are refused.</li>
 * <li>An environment the launcher cannot start now ({@link nni.api.platform.TransientPlatformException})
 *     is started again with backoff; the waiting trials show why.</li>
 * <li>Trials waiting for an environment show its latest {@link EnvironmentState} message
 *     ({@link EnvironmentListener}) as their waiting reason; running trials carry the environment's
 *     {@linkplain LaunchedEnvironment#host() host}, {@linkplain LaunchedEnvironment#attributes()
 *     attributes} and a handle made of the environment id and its
 *     {@linkplain LaunchedEnvironment#handle() handle}.</li>
 * <li>Detaching the session ({@link TrainingSession#detach()}) detaches every environment
 *     ({@link LaunchedEnvironment#detach()}) and leaves keepers and trials running.</li>
 * </ul>
 *
 * <h2>Choosing the keeper</h2>
 * Both keepers ship ({@link KeeperRuntime}): the jar needs Java 17 on the worker, the Python file
 * only Python 3.7. A platform says which its workers may run with
 * {@link KeeperOptions.Builder#keeper(KeeperChoice)}, and each {@link EnvironmentSpec} then offers
 * exactly those ({@link EnvironmentSpec#keepers()}):
 * <ul>
 * <li>{@link KeeperChoice#PYTHON}: workers that have Python and maybe no Java (container images such
 *     as {@code msranni/nni}, PyTorch and TensorFlow images). The launcher copies
 *     {@code spec.keeperFile(KeeperRuntime.PYTHON)} to the worker (or mounts it) and runs
 *     {@code spec.command(KeeperRuntime.PYTHON, keeperOnWorker, codeArchiveOnWorker, workDirectory)}
 *     ({@code python3 nni-trialkeeper.py <arguments>}).</li>
 * <li>{@link KeeperChoice#JAVA}: workers known to have Java 17 (the local machine).</li>
 * <li>{@link KeeperChoice#AUTO} (the default): the launcher probes each worker once and starts the
 *     Java keeper where {@code java -version} says 17 or newer, else the Python keeper where
 *     {@code python3 --version} says 3.7 or newer; a worker with neither is refused with a message
 *     naming it and both requirements. It should report what it started in
 *     {@link LaunchedEnvironment#attributes()} ({@code keeper=python 3.11}), which trials show.</li>
 * </ul>
 * A platform that needs the file outside a session (to build an image, to upload it once per
 * cluster) takes it from {@link #keeperFile(KeeperRuntime)}.
 */
@ProviderType
public interface KeeperSessions {

    /**
     * Opens a session whose trials run through keepers the launcher starts. Packs the experiment's
     * {@code trialCodeDirectory} into the code archive; the archive is empty when the platform's
     * section has no {@code trialCodeDirectory} (its trials find their code where they run, e.g. in
     * a container image).
     *
     * @throws PlatformException if the code cannot be packed, the manager has no HTTP endpoint, or
     *                           the keeper {@link KeeperOptions#keeper()} asks for is not in this build
     */
    TrainingSession open(SessionContext context, EnvironmentLauncher launcher, KeeperOptions options)
            throws PlatformException;

    /**
     * @return the file of one keeper on this machine ({@link KeeperRuntime#fileName()}), for
     *         platforms to copy to their workers; the same file the specs offer
     * @throws IllegalStateException if this build does not ship that keeper (never for a complete
     *                               build, which ships both)
     */
    Path keeperFile(KeeperRuntime runtime);
}
