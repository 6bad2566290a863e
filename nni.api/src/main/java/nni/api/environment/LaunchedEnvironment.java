package nni.api.environment;

import java.util.concurrent.CompletionStage;

import org.osgi.annotation.versioning.ConsumerType;

/** One started environment, as the platform tracks it. */
@ConsumerType
public interface LaunchedEnvironment {

    /**
     * @return completes (normally) once the environment is gone, whatever the reason, with a short
     *         human-readable description ("exit code 0", "job deleted"). The manager marks the trial
     *         it was running FAILED if the keeper had not reported its end.
     */
    CompletionStage<String> ended();

    /**
     * Ends the environment: asks it to terminate, then forces it after a grace period. Returns at
     * once; {@link #ended()} completes when it is gone. Idempotent.
     */
    void stop();

    /** @return where a person can look at the environment (a job page, a directory), or empty */
    default String url() {
        return "";
    }
}
