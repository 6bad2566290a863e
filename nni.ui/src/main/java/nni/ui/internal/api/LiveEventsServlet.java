package nni.ui.internal.api;

import java.io.IOException;

import jakarta.servlet.AsyncContext;
import jakarta.servlet.Servlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.servlet.whiteboard.propertytypes.HttpWhiteboardServletAsyncSupported;
import org.osgi.service.servlet.whiteboard.propertytypes.HttpWhiteboardServletName;
import org.osgi.service.servlet.whiteboard.propertytypes.HttpWhiteboardServletPattern;
import org.osgi.service.servlet.whiteboard.Preprocessor;
import nni.http.LoginGuard;


/** {@code GET /api/v1/nni-ui/events}: the page's live stream, {@code text/event-stream} ({@link LiveEvents}). */
@Component(service = Servlet.class)
@HttpWhiteboardServletPattern(LiveEventsServlet.PATH)
@HttpWhiteboardServletAsyncSupported
@HttpWhiteboardServletName("nni-ui-events")
public class LiveEventsServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;

    static final String PATH = "/api/v1/nni-ui/events";

    private final transient LiveEvents events;

    /** @param login registered only once the login guards the port (nothing is served before) */
    @Activate
    public LiveEventsServlet(@Reference LiveEvents events, @Reference(service = Preprocessor.class, target = LoginGuard.TARGET) Preprocessor login) {
        this.events = events;
    }

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        response.setStatus(200);
        response.setContentType("text/event-stream");
        response.setCharacterEncoding("UTF-8");
        response.setHeader("Cache-Control", "no-store");
        AsyncContext async = request.startAsync();
        async.setTimeout(0);
        events.join(async, response.getOutputStream());
    }
}
