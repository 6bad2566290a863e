package nni.web.internal.login;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

import jakarta.servlet.http.HttpServletResponse;

/** The login page: a form that posts the token to {@code /login}, which sets the cookie. */
final class LoginPage {

    private static final String TEMPLATE = load();

    private LoginPage() {
    }

    /**
     * @param next    where to go after logging in (a path of this server)
     * @param problem what went wrong with the last try, or null
     */
    static void send(HttpServletResponse response, int status, String next, String problem) throws IOException {
        String page = TEMPLATE.replace("{{next}}", escape(safeNext(next)))
                .replace("{{problem}}", problem == null ? "" : "<p class=\"problem\">" + escape(problem) + "</p>");
        response.setStatus(status);
        response.setContentType("text/html");
        response.setCharacterEncoding("UTF-8");
        response.setHeader("Cache-Control", "no-store");
        response.getOutputStream().write(page.getBytes(StandardCharsets.UTF_8));
    }

    /** @return the path to go to after logging in: a path of this server, never another site */
    static String safeNext(String next) {
        if (next == null || !next.startsWith("/") || next.startsWith("//") || next.contains("\\")
                || next.startsWith(LoginGate.LOGIN_PATH) || next.chars().anyMatch(c -> c < 0x20)) {
            return "/ui/";
        }
        return next;
    }

    static String escape(String text) {
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;")
                .replace("'", "&#39;");
    }

    private static String load() {
        try (InputStream in = LoginPage.class.getResourceAsStream("login.html")) {
            if (in == null) {
                throw new IllegalStateException("login.html is missing from the bundle");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
