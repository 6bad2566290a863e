package nni.api.environment;

/**
 * Where an environment is on its way to a running keeper, as its platform reports it through
 * {@link EnvironmentListener#stateChanged}. The trials waiting for the environment show the latest
 * state's message as their waiting reason. The end of an environment is not a state: it is
 * {@link LaunchedEnvironment#ended()}.
 */
public enum EnvironmentState {
    /** accepted and queued: waiting for a machine, a quota, a scheduler decision */
    PENDING,
    /** its container image is being pulled */
    PULLING_IMAGE,
    /** a machine, node or pod is being set up for it */
    PROVISIONING,
    /** the keeper process is being started */
    STARTING,
    /** the keeper process runs; it will connect to the manager by itself */
    RUNNING
}
