package nni.web.internal.login;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import nni.http.HttpError;
import nni.http.QueryParameters;
import nni.http.RequestBodies;

/**
 * {@code /login}: the page that asks for the token (GET) and checks it (POST, a form with
 * {@code token} and {@code next}); the right token starts a session whose id is the cookie
 * ({@code HttpOnly}, {@code SameSite=Strict}, the whole site; never the token itself) and goes on to
 * {@code next}, a wrong one gets the page again with 401. {@code /logout} (POST) ends the session and
 * removes the cookie.
 */
@Component(service = Servlet.class)
@HttpWhiteboardServletPattern({LoginGate.LOGIN_PATH, LoginServlet.LOGOUT_PATH})
@HttpWhiteboardServletAsyncSupported
@HttpWhiteboardServletName("nni-login")
public class LoginServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;

    static final String LOGOUT_PATH = "/logout";
    private static final long MAX_FORM_BYTES = 8 << 10;
    private static final Logger LOG = LoggerFactory.getLogger(LoginServlet.class);

    private final transient LoginGate gate;
    private final transient RequestBodies bodies;

    @Activate
    public LoginServlet(@Reference LoginGate gate, @Reference RequestBodies bodies) {
        this.gate = gate;
        this.bodies = bodies;
    }

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        if (LOGOUT_PATH.equals(request.getServletPath())) {
            response.sendError(405);
            return;
        }
        String next = LoginPage.safeNext(request.getParameter("next"));
        if (!gate.required()) {
            response.sendRedirect(next);
            return;
        }
        LoginPage.send(response, 200, next, null);
    }

    @Override
    protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
        if (LOGOUT_PATH.equals(request.getServletPath())) {
            gate.endSession(LoginGate.cookie(request));
            response.addHeader("Set-Cookie", cookie("", 0));
            response.setStatus(303);
            response.setHeader("Location", LoginGate.LOGIN_PATH);
            return;
        }
        bodies.read(request, response, MAX_FORM_BYTES, body -> {
            Map<String, String> form;
            try {
                form = form(body);
            } catch (HttpError e) {
                LoginPage.send(response, 400, "/ui/", e.getMessage());
                return;
            }
            String next = LoginPage.safeNext(form.get("next"));
            if (!gate.required()) {
                response.setStatus(303);
                response.setHeader("Location", next);
                return;
            }
            String token = form.get("token");
            if (!gate.accepts(token == null ? null : token.strip())) {
                LOG.info("a wrong login token was sent from {}", request.getRemoteAddr());
                LoginPage.send(response, 401, next, "That is not the token.");
                return;
            }
            response.addHeader("Set-Cookie", cookie(gate.startSession(), -1));
            response.setStatus(303);
            response.setHeader("Location", next);
        });
    }

    /** @param maxAge seconds, 0 to remove it, -1 for the browser's session */
    private static String cookie(String value, int maxAge) {
        return LoginGate.COOKIE + "=" + value + "; Path=/; HttpOnly; SameSite=Strict" + (maxAge >= 0 ? "; Max-Age=" + maxAge : "");
    }

    /** @throws HttpError 400 when the form does not decode (strict UTF-8, well-formed escapes) */
    static Map<String, String> form(byte[] body) {
        Map<String, String> form = new HashMap<>();
        QueryParameters.parse(new String(body, StandardCharsets.ISO_8859_1).strip())
                .forEach((name, values) -> form.put(name, values[0]));
        return form;
    }
}
