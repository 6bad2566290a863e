package nni.dispatcher.internal;

import java.time.Duration;
import java.util.Optional;

import org.eclipse.jetty.ee10.websocket.server.JettyWebSocketServlet;
import org.eclipse.jetty.ee10.websocket.server.JettyWebSocketServletFactory;
import org.eclipse.jetty.websocket.api.Session;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.servlet.whiteboard.propertytypes.HttpWhiteboardServletName;
import org.osgi.service.servlet.whiteboard.propertytypes.HttpWhiteboardServletPattern;

import jakarta.servlet.Servlet;

/**
 * The tuner command channel's WebSocket route on the shared HTTP port, through the servlet
 * whiteboard: Felix HTTP hosts Jetty's WebSocket servlet once {@code org.apache.felix.jetty.websocket.enable}
 * is set and Jetty's WebSocket bundles are installed (both in {@code run.bndrun}), and initialises it
 * lazily, on the first upgrade, when Jetty's WebSocket container exists. A connection to a channel
 * that is not open (wrong experiment or token) is refused with 403.
 */
@Component(service = Servlet.class)
@HttpWhiteboardServletPattern(TunerChannels.PATH + "/*")
@HttpWhiteboardServletName("nni-tuner-channel")
public class TunerChannelServlet extends JettyWebSocketServlet {

    private static final long serialVersionUID = 1L;
    /** Longest command: a search space or an advisor's parameters may be large, NNI's payloads stop at 64 KiB pickles. */
    private static final long MAX_MESSAGE_BYTES = 64L << 20;

    private final transient TunerChannels channels;

    @Activate
    public TunerChannelServlet(@Reference TunerChannels channels) {
        this.channels = channels;
    }

    @Override
    protected void configure(JettyWebSocketServletFactory factory) {
        factory.setMaxTextMessageSize(MAX_MESSAGE_BYTES);
        factory.setMaxBinaryMessageSize(MAX_MESSAGE_BYTES);
        // liveness is the run's: it pings every few seconds and gives up on a silent peer itself
        factory.setIdleTimeout(Duration.ofMinutes(10));
        factory.setCreator((request, response) -> {
            Optional<Session.Listener> listener = channels.accept(request.getHttpServletRequest().getPathInfo());
            if (listener.isEmpty()) {
                response.sendForbidden("no such tuner channel");
                return null;
            }
            return listener.get();
        });
    }
}
