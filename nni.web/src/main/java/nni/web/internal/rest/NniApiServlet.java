package nni.web.internal.rest;

import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;

import jakarta.servlet.Servlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.servlet.whiteboard.propertytypes.HttpWhiteboardServletAsyncSupported;
import org.osgi.service.servlet.whiteboard.propertytypes.HttpWhiteboardServletName;
import org.osgi.service.servlet.whiteboard.propertytypes.HttpWhiteboardServletPattern;
import org.osgi.service.servlet.whiteboard.Preprocessor;

import nni.http.Router;
import nni.http.JsonServlet;
import nni.http.RequestBodies;
import nni.api.experiment.ExperimentService;
import nni.api.experiment.InstalledPlatforms;
import nni.api.experiment.NnictlRegistry;
import nni.api.experiment.PlatformView;
import nni.http.LoginGuard;

/**
 * NNI's REST API, {@code /api/v1/nni/*}, on the runtime's one HTTP endpoint (the servlet whiteboard
 * of Felix HTTP Jetty); and each experiment's own copy of it, {@code /experiments/<id>/api/v1/nni/*}
 * ({@link ExperimentPrefix}).
 */
@Component(service = Servlet.class)
@HttpWhiteboardServletPattern({"/api/v1/nni/*", ExperimentPrefix.SERVLET_PATH + "/*"})
@HttpWhiteboardServletAsyncSupported
@HttpWhiteboardServletName("nni-api")
public class NniApiServlet extends JsonServlet {
    private static final long serialVersionUID = 1L;

    private final transient InstalledPlatforms platforms;
    private final transient ExperimentService service;
    private final transient NnictlRegistry nnictl;

    /** @param login registered only once the login guards the port (nothing is served before) */
    @Activate
    public NniApiServlet(@Reference InstalledPlatforms platforms, @Reference ExperimentService service,
                         @Reference RequestBodies bodies, @Reference NnictlRegistry nnictl, @Reference(service = Preprocessor.class, target = LoginGuard.TARGET) Preprocessor login) {
        super(bodies);
        this.platforms = platforms;
        this.service = service;
        this.nnictl = nnictl;
    }

    @Override
    protected void service(HttpServletRequest request, HttpServletResponse response) throws IOException {
        super.service(ExperimentPrefix.unwrap(request), response);
    }

    @Override
    protected void routes(Router router) {
        // routes are added by the super constructor, before the fields are set: read them late
        new ExperimentRoutes(() -> service, () -> nnictl).addTo(router);
        router.get("/platforms", (request, path) -> platforms.platforms().stream().map(NniApiServlet::platform).toList());
    }

    /** @return the platform in the fields and order {@code /platforms} has always answered */
    static Map<String, Object> platform(PlatformView platform) {
        Map<String, Object> json = new LinkedHashMap<>();
        json.put("name", platform.name());
        json.put("bundle", platform.bundle());
        json.put("version", platform.version());
        json.put("state", platform.state());
        json.put("sessions", platform.sessions());
        json.put("runsTrials", platform.runsTrials());
        json.put("reports", platform.reports().stream().map(reports -> {
            Map<String, Object> session = new LinkedHashMap<>();
            session.put("experiment", reports.experiment());
            session.put("transport", reports.channel().transport());
            session.put("why", reports.channel().why());
            return session;
        }).toList());
        return json;
    }
}
