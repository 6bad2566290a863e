package nni.dispatcher.internal;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import org.eclipse.jetty.websocket.api.Session;
import org.osgi.framework.BundleContext;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.framework.ServiceReference;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;

/**
 * The tuner command channels open now, one per dispatcher, each at
 * {@code ws://<host>:<port>/tuner/<experiment>/<token>} on the runtime's one HTTP port (NNI's is
 * {@code ws://localhost:<port>[/<prefix>]/tuner}). The token, random per run and given to the
 * dispatcher only in its environment, keeps other local processes from posing as it. Thread-safe.
 */
@Component(service = TunerChannels.class)
public class TunerChannels {

    /** Where {@link TunerChannelServlet} answers. */
    static final String PATH = "/tuner";

    private record Open(String token, Supplier<Session.Listener> connections) {
    }

    private final BundleContext context;
    private final Map<String, Open> open = new ConcurrentHashMap<>();

    @Activate
    public TunerChannels(BundleContext context) {
        this.context = context;
    }

    /**
     * Opens the channel of one dispatcher run.
     *
     * @param connections makes the listener of each connection the dispatcher opens (it may reconnect)
     * @return the URL the dispatcher connects to
     * @throws IllegalStateException when the HTTP endpoint is not known yet
     */
    String open(String experimentId, String token, Supplier<Session.Listener> connections) {
        open.put(experimentId, new Open(token, connections));
        return base() + PATH + "/" + experimentId + "/" + token;
    }

    /** Closes the channel of a run: new connections are refused (open ones are the run's to close). */
    void close(String experimentId, String token) {
        open.computeIfPresent(experimentId, (id, current) -> current.token().equals(token) ? null : current);
    }

    /** @return the listener for a connection to {@code <experiment>/<token>} (the path after {@link #PATH}), if open */
    Optional<Session.Listener> accept(String pathInfo) {
        String[] parts = pathInfo == null ? new String[0] : pathInfo.replaceFirst("^/", "").split("/");
        if (parts.length != 2) {
            return Optional.empty();
        }
        Open channel = open.get(parts[0]);
        if (channel == null || !MessageDigest.isEqual(channel.token().getBytes(StandardCharsets.UTF_8),
                parts[1].getBytes(StandardCharsets.UTF_8))) {
            return Optional.empty();
        }
        return Optional.of(channel.connections().get());
    }

    /** @return {@code ws://host:port} of the shared HTTP endpoint, loopback when it listens on every address */
    private String base() {
        try {
            ServiceReference<?>[] refs = context.getServiceReferences((String) null, "(osgi.http.endpoint=*)");
            if (refs == null || refs.length == 0) {
                throw new IllegalStateException("the runtime's HTTP port is not listening yet; the dispatcher would have"
                        + " nowhere to connect");
            }
            Object endpoint = refs[0].getProperty("osgi.http.endpoint");
            URI uri = URI.create(endpoint instanceof String[] all ? all[0] : String.valueOf(endpoint));
            String host = uri.getHost() == null || uri.getHost().equals("0.0.0.0") || uri.getHost().equals("[::]")
                    ? "127.0.0.1" : uri.getHost();
            return "ws://" + host + ":" + uri.getPort();
        } catch (InvalidSyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
