package nni.api.environment;

import java.util.Map;
import java.util.concurrent.CompletionStage;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * One started environment, as the platform tracks it. What it tells about itself
 * ({@link #handle()}, {@link #host()}, {@link #attributes()}) is copied into the trials it runs.
 */
@ConsumerType
public interface LaunchedEnvironment {

    /**
     * @return completes (normally) once the environment is gone, whatever the reason, with a short
     *         human-readable description ("exit code 0", "job deleted"). The manager marks the trial
     *         it was running FAILED if the keeper had not reported its end. Never completes after
     *         {@link #detach()}.
     */
    CompletionStage<String> ended();

    /**
     * Ends the environment: asks it to terminate, then forces it after a grace period. Returns at
     * once; {@link #ended()} completes when it is gone. Idempotent.
     */
    void stop();

    /**
     * Lets go of the environment without stopping it: the platform stops watching it and releases
     * what it holds for it, and the keeper and its trial keep running (the keeper reconnects to a
     * later session). Used when the manager detaches the session. Idempotent; never throws.
     */
    default void detach() {
    }

    /** @return where a person can look at the environment (a job page, a directory), or empty */
    default String url() {
        return "";
    }

    /**
     * @return the platform's handle on the environment, for {@link EnvironmentLauncher#reattach}
     *         (a machine and pid, a job name), or empty; never a secret
     */
    default String handle() {
        return "";
    }

    /** @return where the environment runs (machine, node, pod), or empty */
    default String host() {
        return "";
    }

    /** @return display facts about the environment (e.g. {@code keeper=java 17}); never a secret */
    default Map<String, String> attributes() {
        return Map.of();
    }
}
