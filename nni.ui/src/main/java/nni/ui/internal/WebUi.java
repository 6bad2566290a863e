package nni.ui.internal;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.util.Map;

import jakarta.servlet.Servlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.osgi.framework.Bundle;
import org.osgi.framework.FrameworkUtil;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.servlet.whiteboard.propertytypes.HttpWhiteboardServletName;
import org.osgi.service.servlet.whiteboard.propertytypes.HttpWhiteboardServletPattern;

/**
 * The web UI on the shared port: {@code /ui/} is the application ({@code web/index.html}), the rest
 * of {@code /ui/} its files (plain ES modules and CSS: no build step), served from this bundle's
 * {@code web/} folder; {@code /ui} leads to {@code /ui/}. The libraries are {@link WebJarFiles}. The
 * pages read the manager's JSON routes ({@code /api/v1/nni-ui/}, {@code /api/v1/nni/}); the manager's
 * login guards every path.
 *
 * <p>The service property {@value #PATH_PROPERTY} tells the runtime where the UI is (the {@code run}
 * command prints its address).
 */
@Component(service = Servlet.class, property = WebUi.PATH_PROPERTY + "=" + WebUi.PATH)
@HttpWhiteboardServletPattern(WebUi.PATH + "*")
@HttpWhiteboardServletName("nni-ui")
public class WebUi extends HttpServlet {
    private static final long serialVersionUID = 1L;

    static final String PATH = "/ui/";
    static final String PATH_PROPERTY = "nni.ui.path";
    private static final String FOLDER = "/web";
    /** The kinds of file the pages are made of (ES modules need a JavaScript type). */
    private static final Map<String, String> TYPES = Map.of("html", "text/html", "js", "text/javascript", "css", "text/css",
            "svg", "image/svg+xml", "png", "image/png", "ico", "image/x-icon", "json", "application/json", "txt", "text/plain");

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        String file = request.getPathInfo();
        if (file == null) {
            response.setStatus(302);
            response.setHeader("Location", PATH);
            return;
        }
        if (file.equals("/")) {
            file = "/index.html";
        }
        URL entry = plain(file) ? bundle().getEntry(FOLDER + file) : null;
        if (entry == null || file.endsWith("/")) {
            response.sendError(404);
            return;
        }
        String type = TYPES.getOrDefault(file.substring(file.lastIndexOf('.') + 1), "application/octet-stream");
        response.setContentType(type);
        if (type.startsWith("text/")) {
            response.setCharacterEncoding("UTF-8");
        }
        // the pages change with the bundle: asked for again each time, cheap on loopback
        response.setHeader("Cache-Control", "no-cache");
        try (InputStream in = entry.openStream()) {
            in.transferTo(response.getOutputStream());
        }
    }

    /** Only plain paths name a file: no dot segments, backslashes or empty segments. */
    private static boolean plain(String path) {
        return !path.contains("\\") && !path.contains("//") && !path.contains("/./") && !path.contains("/../")
                && !path.endsWith("/.") && !path.endsWith("/..");
    }

    private Bundle bundle() {
        return FrameworkUtil.getBundle(WebUi.class);
    }
}
