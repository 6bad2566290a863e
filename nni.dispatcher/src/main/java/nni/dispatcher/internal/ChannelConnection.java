package nni.dispatcher.internal;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

import org.eclipse.jetty.websocket.api.Callback;
import org.eclipse.jetty.websocket.api.Session;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One WebSocket connection of a dispatcher, handed to its {@link DispatcherRun}. Public because
 * Jetty binds a listener's methods by method handles, which need a public class.
 */
public final class ChannelConnection implements Session.Listener.AutoDemanding {

    private static final Logger LOG = LoggerFactory.getLogger(ChannelConnection.class);

    private final DispatcherRun run;
    private Session session;

    ChannelConnection(DispatcherRun run) {
        this.run = run;
    }

    @Override
    public void onWebSocketOpen(Session opened) {
        session = opened;
        run.opened(opened);
    }

    @Override
    public void onWebSocketText(String text) {
        run.received(text);
    }

    @Override
    public void onWebSocketBinary(ByteBuffer payload, Callback callback) {
        run.received(StandardCharsets.UTF_8.decode(payload).toString());
        callback.succeed();
    }

    @Override
    public void onWebSocketPong(ByteBuffer payload) {
        run.heard();
    }

    @Override
    public void onWebSocketClose(int status, String reason) {
        run.closed(session, status, reason);
    }

    @Override
    public void onWebSocketError(Throwable cause) {
        LOG.debug("a dispatcher's channel failed", cause);
    }
}
