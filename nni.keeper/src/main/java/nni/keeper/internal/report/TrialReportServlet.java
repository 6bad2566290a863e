package nni.keeper.internal.report;

import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

import jakarta.servlet.Servlet;
import jakarta.servlet.http.HttpServletRequest;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;
import org.osgi.service.servlet.whiteboard.propertytypes.HttpWhiteboardServletAsyncSupported;
import org.osgi.service.servlet.whiteboard.propertytypes.HttpWhiteboardServletName;
import org.osgi.service.servlet.whiteboard.propertytypes.HttpWhiteboardServletPattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import nni.http.HttpError;
import nni.http.JsonBodies;
import nni.http.JsonServlet;
import nni.http.RequestBodies;
import nni.http.Router;

/**
 * The trial keepers' routes on the shared endpoint, {@code /api/v1/nni-trial/<experiment>/<keeper>/}:
 * {@code POST handshake}, {@code POST reports} (a batch of numbered reports; answered with the
 * highest sequence applied, which the keeper may then forget), {@code GET commands?after=N}
 * (long poll). Every request must carry the keeper's token ({@code Authorization: Bearer});
 * otherwise 401 and nothing is stored. A keeper whose session ended after sending it a stop is
 * answered 410 with {@code "stopped": true}: it may ask before it has taken the stop, and ends as
 * the stop would have ended it. Bodies that are not JSON get 400, bodies over the limit 413.
 */
@Component(service = Servlet.class, configurationPid = "nni.manager.trialroutes",
        configurationPolicy = ConfigurationPolicy.OPTIONAL)
@HttpWhiteboardServletPattern("/api/v1/nni-trial/*")
@HttpWhiteboardServletAsyncSupported
@HttpWhiteboardServletName("nni-trial")
@Designate(ocd = TrialReportServlet.Config.class)
public class TrialReportServlet extends JsonServlet {
    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(TrialReportServlet.class);

    @ObjectClassDefinition(name = "NNI trial routes", description = "The keepers' report and command routes")
    public @interface Config {
        @AttributeDefinition(description = "Largest request body accepted, in bytes; larger ones get 413")
        int max_body_bytes() default 4 << 20;

        @AttributeDefinition(description = "Longest a command poll is held open, in milliseconds")
        int max_poll_millis() default 30_000;
    }

    /** The longest command poll a keeper may ask for; this side holds it at most {@code max.poll.millis}. */
    private static final long MAX_WAIT_MILLIS = 600_000;

    private final transient KeeperLinks links;
    private final transient KeeperExchange exchange;
    private final int maxBodyBytes;
    private final int maxPollMillis;
    /** Ends command long polls at their deadline; one thread for every keeper. */
    private final transient ScheduledExecutorService pollTimer;

    @Activate
    public TrialReportServlet(@Reference KeeperLinks links, @Reference RequestBodies bodies, Config config) {
        super(bodies);
        this.links = links;
        this.exchange = new KeeperExchange(links);
        this.maxBodyBytes = config.max_body_bytes();
        this.maxPollMillis = config.max_poll_millis();
        this.pollTimer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread thread = new Thread(r, "nni-keeper-polls");
            thread.setDaemon(true);
            return thread;
        });
    }

    @Deactivate
    void deactivate() {
        pollTimer.shutdownNow();
    }

    @Override
    protected void routes(Router router) {
        // the token is checked from the head: a refused request's body is never waited for
        router.withBody("POST", "/{experiment}/{keeper}/handshake", this::link,
                (request, path, body) -> handshake(link(request, path), body(body)));
        // answered before the handler returns: the body's buffer is lent, not copied for each batch
        router.withLentBody("POST", "/{experiment}/{keeper}/reports", this::link,
                (request, path, buffer, length) -> reports(link(request, path), buffer, length));
        router.get("/{experiment}/{keeper}/commands", (request, path) -> commands(link(request, path), request));
    }

    @Override
    protected long maxBodyBytes() {
        return maxBodyBytes;
    }

    private KeeperLink link(HttpServletRequest request, Map<String, String> path) {
        KeeperLink link = links.find(path.get("experiment"), path.get("keeper"));
        String header = request.getHeader("Authorization");
        String presented = header != null && header.startsWith("Bearer ") ? header.substring(7).trim() : null;
        if (link == null) {
            java.util.Optional<HttpError> stopped = links.stoppedRefusal(path.get("experiment"), path.get("keeper"), presented);
            if (stopped.isPresent()) {
                // expected at a session's end: it stops its keepers and forgets them at once
                LOG.debug("keeper {} of experiment {}, stopped, asked again", path.get("keeper"), path.get("experiment"));
                throw stopped.get();
            }
        }
        if (link == null && links.awaitsResume(path.get("experiment"), path.get("keeper"), presented)) {
            // a keeper of a runtime before a restart: it waits (and spools) until its experiment is resumed here
            LOG.debug("keeper {} of experiment {} waits for the experiment to be resumed", path.get("keeper"), path.get("experiment"));
            throw new HttpError(503, "experiment " + path.get("experiment") + " is not open in this runtime yet;"
                    + " its keepers are taken back when it is resumed: try again later");
        }
        // the same answer for an unknown keeper and a wrong token: neither tells which ids exist
        if (link == null || !link.accepts(presented)) {
            LOG.warn("refused a trial report for keeper {} of experiment {}: {}", path.get("keeper"), path.get("experiment"),
                    presented == null ? "no token" : link == null ? "unknown keeper" : "wrong token");
            throw new HttpError(401, "unknown keeper or wrong token for keeper " + path.get("keeper"));
        }
        link.seen();
        return link;
    }

    private static Map<String, Object> body(byte[] bytes) {
        return JsonBodies.object(bytes, "the body");
    }

    private Object handshake(KeeperLink link, Map<String, Object> hello) {
        return exchange.handshake(link, hello);
    }

    private Object reports(KeeperLink link, byte[] buffer, int length) {
        return Map.of("acked", exchange.reports(link, buffer, length));
    }

    private Object commands(KeeperLink link, HttpServletRequest request) {
        long after = number(request.getParameter("after"), 0, "after", Long.MAX_VALUE);
        // the keeper's wish, within the range; this side holds a poll no longer than its own limit
        long wait = Math.min(maxPollMillis, number(request.getParameter("waitMillis"), 10_000, "waitMillis", MAX_WAIT_MILLIS));
        return link.commandsAfter(after, wait, pollTimer).thenApply(commands -> Map.of("commands", commands));
    }

    private static long number(String text, long fallback, String name, long max) {
        if (text == null) {
            return fallback;
        }
        long value;
        try {
            value = Long.parseLong(text);
        } catch (NumberFormatException e) {
            value = -1;
        }
        if (value < 0 || value > max) {
            throw HttpError.badRequest("query parameter '" + name + "': expected an integer 0-" + max + ", got '" + text + "'");
        }
        return value;
    }
}
