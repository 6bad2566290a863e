package nni.ui.internal;

import java.io.IOException;

import jakarta.servlet.Servlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.servlet.whiteboard.propertytypes.HttpWhiteboardServletName;
import org.osgi.service.servlet.whiteboard.propertytypes.HttpWhiteboardServletPattern;

/**
 * The port's default servlet: {@code /} leads to the web UI; any other path no route has is 404, as
 * without it.
 */
@Component(service = Servlet.class)
@HttpWhiteboardServletPattern("/")
@HttpWhiteboardServletName("nni-ui-root")
public class RootRedirect extends HttpServlet {
    private static final long serialVersionUID = 1L;

    @Override
    protected void service(HttpServletRequest request, HttpServletResponse response) throws IOException {
        if ("/".equals(request.getRequestURI()) && "GET".equals(request.getMethod())) {
            response.setStatus(302);
            response.setHeader("Location", WebUi.PATH);
            return;
        }
        response.sendError(404);
    }
}
