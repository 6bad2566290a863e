package nni.manager.internal.http;

import jakarta.servlet.Servlet;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.servlet.whiteboard.propertytypes.HttpWhiteboardServletAsyncSupported;
import org.osgi.service.servlet.whiteboard.propertytypes.HttpWhiteboardServletName;
import org.osgi.service.servlet.whiteboard.propertytypes.HttpWhiteboardServletPattern;

import nni.manager.internal.experiment.ExperimentManager;
import nni.manager.internal.registry.PlatformRegistry;

/**
 * NNI's REST API, {@code /api/v1/nni/*}, on the runtime's one HTTP endpoint (the servlet whiteboard
 * of Felix HTTP Jetty).
 */
@Component(service = Servlet.class)
@HttpWhiteboardServletPattern("/api/v1/nni/*")
@HttpWhiteboardServletAsyncSupported
@HttpWhiteboardServletName("nni-api")
public class NniApiServlet extends JsonServlet {
    private static final long serialVersionUID = 1L;

    private final transient PlatformRegistry platforms;
    private final transient ExperimentManager experiments;

    @Activate
    public NniApiServlet(@Reference PlatformRegistry platforms, @Reference ExperimentManager experiments,
                         @Reference RequestBodies bodies) {
        super(bodies);
        this.platforms = platforms;
        this.experiments = experiments;
    }

    @Override
    protected void routes(Router router) {
        // routes are added by the super constructor, before the fields are set: read them late
        new ExperimentRoutes(() -> experiments).addTo(router);
        router.get("/platforms", (request, path) -> platforms.platforms());
    }
}
