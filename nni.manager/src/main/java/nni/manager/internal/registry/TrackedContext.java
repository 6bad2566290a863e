package nni.manager.internal.registry;

import nni.api.platform.SessionContext;
import nni.api.platform.TrainingSession;

/**
 * The context a session opened through the {@link PlatformRegistry} hands its platform, and what
 * the registry tells it of the session's end. The registry gives it to the platform as it is (a
 * platform's reports reach it in one hop); once told {@link #detached()} it forwards nothing more,
 * as {@link SessionContext} promises after {@link TrainingSession#detach()}.
 */
public interface TrackedContext extends SessionContext {

    /**
     * The platform service went away under the session (its bundle stopped, or its component is
     * restarting); told once, before the session is detached, so that the experiment submits
     * nothing more there and waits for the platform's return.
     */
    void platformLost(String reason);

    /**
     * The session lets go of its platform (lost, or the experiment or the runtime lets go); told
     * before the platform's session is detached. From now on a status reported anyway is dropped
     * (reattach checks the trial again) and a metric is refused, so that its sender keeps it.
     */
    void detached();
}
