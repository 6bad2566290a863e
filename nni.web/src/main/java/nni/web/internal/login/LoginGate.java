package nni.web.internal.login;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.Cookie;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.osgi.framework.BundleContext;
import org.osgi.framework.BundleException;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.AttributeType;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;
import org.osgi.service.servlet.runtime.HttpServiceRuntime;
import org.osgi.service.servlet.whiteboard.Preprocessor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import nni.http.HttpError;
import nni.http.LoginGuard;
import nni.http.RequestBodies;
import nni.http.TokenFile;
import nni.http.Router;

/**
 * The login of the shared port, in front of every route (a whiteboard {@link Preprocessor}: it sees
 * each request before any servlet, resource or error page). Bound to loopback the port stays open,
 * as NNI's is, so that {@code nnictl} and NNI's Python client keep working; bound to any other
 * address (the wildcard included) every REST route and UI page asks for the token, as an
 * {@code Authorization: Bearer} header or the session cookie the login page ({@code /login}) sets: a
 * random session id kept here ({@link Sessions}), never the token itself, so that logging out, the
 * session's end ({@code session.minutes}) or a new token takes the cookie's power away. The trial
 * keepers' routes ({@code /api/v1/nni-trial/}) and NNI's dispatchers' channels ({@code /tuner/}) are
 * not behind it: each keeper and each channel has a token of its own.
 *
 * <p>The token is the configuration's {@code token} ({@code etc/nni.manager.login.cfg}), else the
 * one in {@code <home>/login.token} (mode 0600), made at the first start that needs one and printed
 * once on the console (never logged). A token that cannot be had (a file others may read, a home
 * that cannot be written) stops the runtime with the reason: it never serves beyond loopback
 * without one. A wrong token gets 401 and changes nothing; tokens are compared in constant time.
 *
 * <p>The REST, UI and console servlets reference this component (through {@link LoginGuard#TARGET}),
 * so they are registered only once it guards the port. Its configuration keeps the PID it had when it
 * lived in the manager, so existing {@code etc/nni.manager.login.cfg} files still apply.
 */
@Component(service = {Preprocessor.class, LoginGate.class}, configurationPid = LoginGate.PID,
        configurationPolicy = ConfigurationPolicy.OPTIONAL, property = LoginGuard.PROPERTY + "=login")
@Designate(ocd = LoginGate.Config.class)
public class LoginGate implements Preprocessor {

    static final String PID = "nni.manager.login";
    static final String COOKIE = "nni-token";
    static final String LOGIN_PATH = "/login";
    private static final String KEEPER_ROUTES = "/api/v1/nni-trial/";
    /** NNI's dispatchers' command channels (bundle nni.dispatcher): a random token per channel guards each. */
    private static final String TUNER_CHANNELS = "/tuner/";
    private static final String TOKEN_FILE = "login.token";
    private static final String HOME = "nni.home";
    private static final String HOST = "org.apache.felix.http.host";
    private static final Logger LOG = LoggerFactory.getLogger(LoginGate.class);

    @ObjectClassDefinition(name = "NNI login", description = "Who may use the REST API and web UI on the shared port")
    public @interface Config {
        @AttributeDefinition(type = AttributeType.PASSWORD, description = "The token the REST API and web UI ask for; "
                + "empty: the one in <home>/login.token, made at the first start that needs one")
        String token() default "";

        @AttributeDefinition(description = "Ask for the token on a loopback address too (beyond loopback it is always asked for)")
        boolean require_on_loopback() default false;

        @AttributeDefinition(description = "How long a login of the web UI lasts, in minutes (logging out ends it sooner)")
        int session_minutes() default 720;
    }

    /**
     * What the gate does now: let everything pass, ask for the token (its digest kept), or refuse
     * everything because no token could be had.
     */
    private record Policy(boolean required, byte[] digest, String refusal) {
        static final Policy OPEN = new Policy(false, null, null);
    }

    @Reference
    private RequestBodies bodies;
    private BundleContext context;
    private volatile Config config;
    private volatile Map<String, Object> runtime;
    private volatile Policy policy = new Policy(true, null, "the login is being set up");
    private final Sessions sessions = new Sessions(Duration.ofMinutes(720), System::nanoTime);

    /** The HTTP runtime's properties say where the port is bound: set before {@link #activate}, updated after. */
    @Reference(service = HttpServiceRuntime.class, updated = "runtimeChanged")
    void bindRuntime(Map<String, Object> properties) {
        this.runtime = properties;
    }

    @Activate
    void activate(Config initial, BundleContext bundleContext) {
        this.config = initial;
        sessions.lifetime(sessionLifetime(initial));
        this.context = bundleContext;
        decide();
    }

    void runtimeChanged(Map<String, Object> properties) {
        this.runtime = properties;
        decide();
    }

    @Modified
    void modified(Config changed) {
        this.config = changed;
        sessions.lifetime(sessionLifetime(changed));
        decide();
    }

    /** @return whether the port asks for the token now */
    public boolean required() {
        return policy.required();
    }

    /** @return whether {@code candidate} is the token (constant time; false when none is required) */
    public boolean accepts(String candidate) {
        byte[] digest = policy.digest();
        return digest != null && candidate != null && MessageDigest.isEqual(digest(candidate), digest);
    }

    /** @return a new session of the web UI, for someone who gave the token */
    String startSession() {
        return sessions.start();
    }

    /** Ends a session of the web UI (logout). */
    void endSession(String id) {
        sessions.end(id);
    }

    private static Duration sessionLifetime(Config config) {
        if (config.session_minutes() >= 1) {
            return Duration.ofMinutes(config.session_minutes());
        }
        LOG.error("{}: session.minutes: expected a number >= 1, got {}; using 720", PID, config.session_minutes());
        return Duration.ofMinutes(720);
    }

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain) throws IOException, ServletException {
        HttpServletRequest http = (HttpServletRequest) request;
        HttpServletResponse answer = (HttpServletResponse) response;
        Policy now = policy;
        String path = http.getRequestURI();
        if (!now.required() || exempt(path)) {
            chain.doFilter(request, response);
            return;
        }
        if (now.refusal() != null) {
            refuse(http, answer, new HttpError(503, "the login is not set up: " + now.refusal()));
            return;
        }
        if (accepts(bearer(http)) || sessions.valid(cookie(http))) {
            chain.doFilter(request, response);
            return;
        }
        answer.setHeader("WWW-Authenticate", "Bearer realm=\"nni-osgi\"");
        if (path.startsWith("/api/")) {
            refuse(http, answer, new HttpError(401, "a login token is required: send it as 'Authorization: Bearer <token>'"
                    + " (it is in the runtime's login.token file)"));
        } else {
            LoginPage.send(answer, 401, path, null);
        }
    }

    /**
     * The keepers' routes and the dispatchers' channels (plain paths only: no spelling of another
     * route passes as one), and the login page.
     */
    private static boolean exempt(String path) {
        if (LOGIN_PATH.equals(path)) {
            return true;
        }
        if (path == null || !(path.startsWith(KEEPER_ROUTES) || path.startsWith(TUNER_CHANNELS))) {
            return false;
        }
        try {
            Router.requireCanonical(path);
            return true;
        } catch (HttpError notPlain) {
            return false;
        }
    }

    private void refuse(HttpServletRequest request, HttpServletResponse response, HttpError error) throws IOException {
        if (request.isAsyncSupported()) {
            bodies.refuse(request, response, error);
        } else {
            response.setHeader("Connection", "close");
            response.setStatus(error.status());
            response.setContentType("application/json");
            response.setCharacterEncoding("UTF-8");
            response.getWriter().write("{\"error\":" + quoted(error.getMessage()) + "}");
        }
    }

    private static String quoted(String text) {
        return "\"" + text.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }

    private static String bearer(HttpServletRequest request) {
        String header = request.getHeader("Authorization");
        if (header != null && header.regionMatches(true, 0, "Bearer ", 0, 7)) {
            return header.substring(7).strip();
        }
        return null;
    }

    static String cookie(HttpServletRequest request) {
        Cookie[] cookies = request.getCookies();
        if (cookies != null) {
            for (Cookie cookie : cookies) {
                if (COOKIE.equals(cookie.getName())) {
                    return cookie.getValue();
                }
            }
        }
        return null;
    }

    /** Decides from the bound address and the configuration; makes the token file when one is needed. */
    private synchronized void decide() {
        byte[] before = policy.digest();
        decidePolicy();
        byte[] after = policy.digest();
        if (before != null && (after == null || !MessageDigest.isEqual(before, after))) {
            sessions.endAll(); // a session stands for the token it was started with
        }
    }

    private void decidePolicy() {
        List<String> hosts = hosts();
        boolean beyondLoopback = hosts.stream().anyMatch(host -> !loopback(host));
        Config current = config;
        if (!beyondLoopback && !current.require_on_loopback()) {
            if (policy.required()) {
                LOG.info("the REST API and web UI are open: the port is bound to loopback ({})", String.join(", ", hosts));
            }
            policy = Policy.OPEN;
            return;
        }
        String why = beyondLoopback ? "the port is bound beyond loopback (" + String.join(", ", hosts) + ")"
                : "require.on.loopback is set";
        if (!current.token().isBlank()) {
            policy = new Policy(true, digest(current.token().strip()), null);
            LOG.info("the REST API and web UI ask for the token of configuration {}: {}", PID, why);
            return;
        }
        TokenFile file = new TokenFile(tokenFile(), "login token");
        try {
            TokenFile.Token token = file.readOrCreate();
            policy = new Policy(true, digest(token.value()), null);
            if (token.created()) {
                console(System.lineSeparator() + "The REST API and web UI ask for a login token: " + why + "." + System.lineSeparator()
                        + "Token (shown this once; kept in " + file.path() + ", readable by you only):" + System.lineSeparator()
                        + "    " + token.value() + System.lineSeparator());
                LOG.info("a login token was made in {}: {}", file.path(), why);
            } else {
                LOG.info("the REST API and web UI ask for the token in {}: {}", file.path(), why);
            }
        } catch (IOException | RuntimeException e) {
            String reason = e.getMessage() == null ? "the login token file " + file.path() + " cannot be used" : e.getMessage();
            policy = new Policy(true, null, reason);
            refuseToRun(why, reason);
        }
    }

    /** No token while one is needed: nothing is served (503), and the runtime stops with the reason. */
    private void refuseToRun(String why, String reason) {
        LOG.error("stopping: {}, and no login token can be had: {}", why, reason);
        consoleError("nni-osgi: cannot run: " + why + ", and no login token can be had: " + reason);
        Thread stopper = new Thread(() -> {
            try {
                context.getBundle(0).stop();
            } catch (BundleException | IllegalStateException e) {
                LOG.error("cannot stop the runtime", e);
            }
        }, "nni-login-refusal");
        stopper.setDaemon(true);
        stopper.start();
    }

    private Path tokenFile() {
        String home = context.getProperty(HOME);
        return home == null || home.isBlank() ? context.getDataFile(TOKEN_FILE).toPath() : Path.of(home, TOKEN_FILE);
    }

    /** @return the hosts the port is bound to, from the HTTP runtime's endpoints (else the configured host) */
    private List<String> hosts() {
        List<String> hosts = new ArrayList<>();
        Map<String, Object> properties = runtime;
        Object endpoints = properties == null ? null : properties.get("osgi.http.endpoint");
        Collection<?> all = endpoints instanceof String[] array ? List.of(array)
                : endpoints instanceof Collection<?> collection ? collection
                : endpoints == null ? List.of() : List.of(endpoints);
        for (Object endpoint : all) {
            try {
                String host = URI.create(String.valueOf(endpoint)).getHost();
                if (host != null) {
                    hosts.add(host);
                }
            } catch (IllegalArgumentException e) {
                LOG.debug("not an endpoint URL: {}", endpoint);
            }
        }
        if (hosts.isEmpty()) {
            String configured = context.getProperty(HOST);
            hosts.add(configured == null || configured.isBlank() ? "0.0.0.0" : configured);
        }
        return hosts;
    }

    static boolean loopback(String host) {
        String bare = host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
        if (bare.equalsIgnoreCase("localhost")) {
            return true;
        }
        try {
            // literal addresses only: a name is not looked up (it could resolve elsewhere later)
            if (!bare.matches("[0-9a-fA-F:.]+")) {
                return false;
            }
            return InetAddress.getByName(bare).isLoopbackAddress();
        } catch (UnknownHostException e) {
            return false;
        }
    }

    static byte[] digest(String token) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this Java", e);
        }
    }

    /** Straight to the process's standard output, past any capture of System.out into the log: the token is no log line. */
    @SuppressWarnings("resource") // the process's own stream stays open
    private static void console(String text) {
        PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);
        out.println(text);
        out.flush();
    }

    @SuppressWarnings("resource")
    private static void consoleError(String text) {
        PrintStream err = new PrintStream(new FileOutputStream(FileDescriptor.err), true, StandardCharsets.UTF_8);
        err.println(text);
        err.flush();
    }
}
