package nni.manager.internal.http;

import java.util.List;
import java.util.Map;

import jakarta.servlet.Servlet;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.servlet.whiteboard.propertytypes.HttpWhiteboardServletName;
import org.osgi.service.servlet.whiteboard.propertytypes.HttpWhiteboardServletPattern;

import nni.manager.internal.registry.PlatformRegistry;

/**
 * NNI's REST API, {@code /api/v1/nni/*}, on the runtime's one HTTP endpoint (the servlet whiteboard
 * of Felix HTTP Jetty).
 */
@Component(service = Servlet.class)
@HttpWhiteboardServletPattern("/api/v1/nni/*")
@HttpWhiteboardServletName("nni-api")
public class NniApiServlet extends JsonServlet {
    private static final long serialVersionUID = 1L;

    private final transient PlatformRegistry platforms;

    @Activate
    public NniApiServlet(@Reference PlatformRegistry platforms) {
        this.platforms = platforms;
    }

    @Override
    protected void routes(Router router) {
        router.get("/check-status", (request, path) -> Map.of("status", "RUNNING", "errors", List.of()));
        router.get("/platforms", (request, path) -> platforms.platforms());
    }
}
