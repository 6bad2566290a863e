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
 * environments, reports, cancel, idle environments, lost environments).
 *
 * <h2>Decisions</h2>
 * <ul>
 * <li>A trial whose environment ends before the keeper reported the trial's end is marked
 *     {@code FAILED} with a message naming the environment and why it ended (a cancelled one gets
 *     its cancel status); it is not retried: the tuner decides what to try next. The environment is
 *     replaced when trials wait.</li>
 * <li>If environments keep ending before they are ready (three in a row), or a keeper is refused at
 *     the handshake, the waiting trials fail with that reason and later submissions are refused.</li>
 * </ul>
 */
@ProviderType
public interface KeeperSessions {

    /**
     * Opens a session whose trials run through keepers the launcher starts. Packs the experiment's
     * {@code trialCodeDirectory} into the code archive.
     *
     * @throws PlatformException if the code cannot be packed or the manager has no HTTP endpoint
     */
    TrainingSession open(SessionContext context, EnvironmentLauncher launcher, KeeperOptions options)
            throws PlatformException;

    /** @return the keeper jar on this machine, for platforms to copy to their workers */
    Path keeperJar();
}
