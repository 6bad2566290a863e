package nni.web.internal.jetty;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.felix.http.jetty.LoadBalancerCustomizerFactory;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.io.Connection;
import org.eclipse.jetty.server.ConnectionMetaData;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.osgi.framework.Constants;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What Felix HTTP cannot be configured for, applied to its Jetty server: at most so many open
 * connections from one client address (a connection over the limit is closed when its first
 * request arrives, unanswered), and pool threads started for a burst of requests end after a short
 * idle time (Jetty's default ends one idle thread a minute, so a burst of 300 slow connections left
 * a hundred idle threads for over an hour), and connections keep no per-connection header cache.
 *
 * <p>Felix hands the running server's requests to a {@link LoadBalancerCustomizerFactory} (a hook
 * meant for proxies, active with {@code org.apache.felix.proxy.load.balancer.connection.enable=true};
 * Felix's own factory, which would trust {@code X-Forwarded-*} headers, is outranked): its
 * customizer sees each request with its connection and server before any servlet, changes nothing
 * in the request, and counts connections. Configuration {@code nni.manager.jetty}.
 */
@Component(service = LoadBalancerCustomizerFactory.class, configurationPid = JettyLimits.PID,
        configurationPolicy = ConfigurationPolicy.OPTIONAL, property = Constants.SERVICE_RANKING + ":Integer=2147483647")
@Designate(ocd = JettyLimits.Config.class)
public class JettyLimits implements LoadBalancerCustomizerFactory {

    /** Kept from when this lived in the manager, so existing {@code etc/nni.manager.jetty.cfg} files still apply. */
    static final String PID = "nni.manager.jetty";
    private static final Logger LOG = LoggerFactory.getLogger(JettyLimits.class);
    private static final long WARN_EVERY_MILLIS = 60_000;

    @ObjectClassDefinition(name = "NNI HTTP connections", description = "Limits on the shared port's connections and threads")
    public @interface Config {
        @AttributeDefinition(description = "Most connections open at once from one client address; more are closed")
        int max_connections_per_address() default 256;

        @AttributeDefinition(description = "How long a pool thread above the pool's minimum may stay idle, in milliseconds")
        int idle_thread_millis() default 10_000;
    }

    private final Map<String, AtomicInteger> open = new ConcurrentHashMap<>();
    private final Map<Connection, String> addresses = new ConcurrentHashMap<>();
    private final Map<String, Long> lastWarned = new ConcurrentHashMap<>();
    private final Connection.Listener closing = new Connection.Listener() {
        @Override
        public void onClosed(Connection connection) {
            closed(connection);
        }
    };
    private volatile int perAddress;
    private volatile int idleThreadMillis;
    private volatile QueuedThreadPool tuned;

    @Activate
    public JettyLimits(Config config) {
        apply(config);
    }

    @Modified
    void modified(Config config) {
        apply(config);
        QueuedThreadPool pool = tuned;
        if (pool != null) {
            tune(pool);
        }
    }

    private void apply(Config config) {
        perAddress = atLeastOne("max.connections.per.address", config.max_connections_per_address(), 256);
        idleThreadMillis = atLeastOne("idle.thread.millis", config.idle_thread_millis(), 10_000);
    }

    private static int atLeastOne(String name, int value, int fallback) {
        if (value >= 1) {
            return value;
        }
        LOG.error("{}: {}: expected a number >= 1, got {}; using {}", PID, name, value, fallback);
        return fallback;
    }

    @Override
    public HttpConfiguration.Customizer createCustomizer() {
        return this::customize;
    }

    /** @return null: the request is not changed */
    private Request customize(Request request, HttpFields.Mutable responseHeaders) {
        ConnectionMetaData connectionData = request.getConnectionMetaData();
        if (connectionData.getConnector().getServer().getThreadPool() instanceof QueuedThreadPool pool && pool != tuned) {
            tuned = pool;
            tune(pool);
        }
        HttpConfiguration http = connectionData.getHttpConfiguration();
        if (http.getHeaderCacheSize() != 0) {
            // Jetty gives each connection's parser a header cache of its own (tens of KB of tables): with a
            // thousand keepers connected that was over 100 MB of heap for a saving of a few microseconds a request.
            // Connections opened from now on parse without one.
            http.setHeaderCacheSize(0);
        }
        Connection connection = connectionData.getConnection();
        if (addresses.containsKey(connection)) {
            return null;
        }
        String address = address(connectionData.getRemoteSocketAddress());
        if (addresses.putIfAbsent(connection, address) != null) {
            return null;
        }
        connection.addEventListener(closing);
        int now = open.computeIfAbsent(address, a -> new AtomicInteger()).incrementAndGet();
        if (now > perAddress) {
            long at = System.currentTimeMillis();
            Long before = lastWarned.put(address, at);
            if (before == null || at - before > WARN_EVERY_MILLIS) {
                LOG.warn("closing connections from {}: more than {} open from that address", address, perAddress);
            }
            connection.getEndPoint().close();
        }
        return null;
    }

    private void tune(QueuedThreadPool pool) {
        try {
            pool.setIdleTimeout(idleThreadMillis);
        } catch (IllegalStateException reservedExecutorStarted) {
            // Jetty sets the pool's own idle timeout, then refuses to pass it on to its started reserved-thread
            // executor, whose few threads keep the default: checked below
        }
        pool.setMaxEvictCount(Math.max(1, pool.getMaxThreads()));
        if (pool.getIdleTimeout() != idleThreadMillis) {
            LOG.warn("{}: Jetty's pool kept its idle timeout of {} ms; idle threads end after that", PID, pool.getIdleTimeout());
        } else {
            LOG.info("HTTP limits: at most {} connections per client address; idle pool threads end after {} ms",
                    perAddress, idleThreadMillis);
        }
    }

    private void closed(Connection connection) {
        String address = addresses.remove(connection);
        if (address != null) {
            open.computeIfPresent(address, (a, count) -> count.decrementAndGet() <= 0 ? null : count);
        }
    }

    private static String address(SocketAddress socket) {
        return socket instanceof InetSocketAddress inet && inet.getAddress() != null ? inet.getAddress().getHostAddress()
                : String.valueOf(socket);
    }
}
