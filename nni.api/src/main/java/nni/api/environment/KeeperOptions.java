package nni.api.environment;

import java.time.Duration;
import java.util.Objects;

/**
 * How a platform wants its keepers used.
 *
 * @param platform        the platform name ({@code NNI_PLATFORM} of the trials)
 * @param reuse           true: long-lived environments that run trials one after another (NNI's
 *                        {@code reuseMode}); false: one keeper per trial
 * @param maxEnvironments how many environments may live at once (at least 1)
 * @param idleTimeout     an environment with no trial for this long is stopped
 * @param managerHost     the host name or address workers reach the manager at, or null for the
 *                        endpoint's own address ({@code nniManagerIp})
 */
public record KeeperOptions(String platform, boolean reuse, int maxEnvironments, Duration idleTimeout, String managerHost) {
    public KeeperOptions {
        Objects.requireNonNull(platform, "platform");
        Objects.requireNonNull(idleTimeout, "idleTimeout");
        if (maxEnvironments < 1) {
            throw new IllegalArgumentException("maxEnvironments must be >= 1, got " + maxEnvironments);
        }
    }
}
