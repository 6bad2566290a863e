package nni.api.environment;

import java.time.Duration;
import java.util.Objects;

/**
 * How a platform wants its keepers used, when it opens a session through {@link KeeperSessions}.
 * Immutable; built with {@link #builder(String)}.
 */
public final class KeeperOptions {

    private final String platform;
    private final boolean reuse;
    private final int maxEnvironments;
    private final Duration idleTimeout;
    private final String managerHost;
    private final KeeperChoice keeper;
    private final KeeperTransport transport;

    private KeeperOptions(Builder b) {
        this.platform = b.platform;
        this.reuse = b.reuse;
        this.maxEnvironments = b.maxEnvironments;
        this.idleTimeout = b.idleTimeout;
        this.managerHost = b.managerHost;
        this.keeper = b.keeper;
        this.transport = b.transport;
    }

    /**
     * @param platform the platform name ({@code NNI_PLATFORM} of the trials). Defaults: one keeper
     *                 per trial, at most 16 at once, 10 minutes idle timeout, the endpoint's own
     *                 address, keeper {@link KeeperChoice#AUTO}, {@link KeeperTransport#http()}.
     */
    public static Builder builder(String platform) {
        return new Builder(platform);
    }

    /** @return the platform name ({@code NNI_PLATFORM} of the trials) */
    public String platform() {
        return platform;
    }

    /**
     * @return true: long-lived environments that run trials one after another (NNI's
     *         {@code reuseMode}); false: one keeper per trial
     */
    public boolean reuse() {
        return reuse;
    }

    /** @return how many environments may live at once (at least 1) */
    public int maxEnvironments() {
        return maxEnvironments;
    }

    /** @return an environment with no trial for this long is stopped */
    public Duration idleTimeout() {
        return idleTimeout;
    }

    /**
     * @return the host name or address workers reach the manager at, or null for the endpoint's
     *         own address ({@code nniManagerIp})
     */
    public String managerHost() {
        return managerHost;
    }

    /** @return which keeper the platform's configuration asks for */
    public KeeperChoice keeper() {
        return keeper;
    }

    /**
     * @return how the keepers talk to the manager: HTTP, or files on a storage both share
     * @since 1.1
     */
    public KeeperTransport transport() {
        return transport;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof KeeperOptions that && platform.equals(that.platform) && reuse == that.reuse
                && maxEnvironments == that.maxEnvironments && idleTimeout.equals(that.idleTimeout)
                && Objects.equals(managerHost, that.managerHost) && keeper == that.keeper && transport.equals(that.transport);
    }

    @Override
    public int hashCode() {
        return Objects.hash(platform, reuse, maxEnvironments, idleTimeout, managerHost, keeper, transport);
    }

    @Override
    public String toString() {
        return "KeeperOptions[" + platform + ", reuse " + reuse + ", max " + maxEnvironments + ", idle " + idleTimeout
                + ", manager host " + managerHost + ", keeper " + keeper + ", transport " + transport + "]";
    }

    /** Builds {@link KeeperOptions}; not thread-safe. */
    public static final class Builder {
        private final String platform;
        private boolean reuse;
        private int maxEnvironments = 16;
        private Duration idleTimeout = Duration.ofMinutes(10);
        private String managerHost;
        private KeeperChoice keeper = KeeperChoice.AUTO;
        private KeeperTransport transport = KeeperTransport.http();

        private Builder(String platform) {
            this.platform = Objects.requireNonNull(platform, "platform");
        }

        public Builder reuse(boolean reuse) {
            this.reuse = reuse;
            return this;
        }

        /** @throws IllegalArgumentException if below 1 */
        public Builder maxEnvironments(int maxEnvironments) {
            if (maxEnvironments < 1) {
                throw new IllegalArgumentException("maxEnvironments must be >= 1, got " + maxEnvironments);
            }
            this.maxEnvironments = maxEnvironments;
            return this;
        }

        /** @throws IllegalArgumentException if not positive */
        public Builder idleTimeout(Duration idleTimeout) {
            if (idleTimeout.isNegative() || idleTimeout.isZero()) {
                throw new IllegalArgumentException("idleTimeout must be positive, got " + idleTimeout);
            }
            this.idleTimeout = idleTimeout;
            return this;
        }

        /** @param managerHost the address workers reach the manager at, or null for the endpoint's own */
        public Builder managerHost(String managerHost) {
            this.managerHost = managerHost;
            return this;
        }

        public Builder keeper(KeeperChoice keeper) {
            this.keeper = Objects.requireNonNull(keeper, "keeper");
            return this;
        }

        /**
         * @param transport how the keepers talk to the manager ({@link KeeperTransport#http()} by default)
         * @since 1.1
         */
        public Builder transport(KeeperTransport transport) {
            this.transport = Objects.requireNonNull(transport, "transport");
            return this;
        }

        public KeeperOptions build() {
            return new KeeperOptions(this);
        }
    }
}
