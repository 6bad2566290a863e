package nni.manager.internal.report;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.core.JsonProcessingException;

import jakarta.servlet.Servlet;
import jakarta.servlet.http.HttpServletRequest;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;
import org.osgi.service.servlet.whiteboard.propertytypes.HttpWhiteboardServletName;
import org.osgi.service.servlet.whiteboard.propertytypes.HttpWhiteboardServletPattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import nni.manager.internal.http.HttpError;
import nni.manager.internal.http.JsonServlet;
import nni.manager.internal.http.Router;

/**
 * The trial keepers' routes on the shared endpoint, {@code /api/v1/nni-trial/<experiment>/<keeper>/}:
 * {@code POST handshake}, {@code POST reports} (a batch of numbered reports; answered with the
 * highest sequence applied, which the keeper may then forget), {@code GET commands?after=N}
 * (long poll). Every request must carry the keeper's token ({@code Authorization: Bearer});
 * otherwise 401 and nothing is stored. Bodies that are not JSON get 400, bodies over the limit 413.
 */
@Component(service = Servlet.class, configurationPid = "nni.manager.trialroutes",
        configurationPolicy = ConfigurationPolicy.OPTIONAL)
@HttpWhiteboardServletPattern("/api/v1/nni-trial/*")
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

    private final transient KeeperLinks links;
    private final int maxBodyBytes;
    private final int maxPollMillis;

    @Activate
    public TrialReportServlet(@Reference KeeperLinks links, Config config) {
        this.links = links;
        this.maxBodyBytes = config.max_body_bytes();
        this.maxPollMillis = config.max_poll_millis();
    }

    @Override
    protected void routes(Router router) {
        router.add("POST", "/{experiment}/{keeper}/handshake", (request, path) -> handshake(link(request, path), body(request)));
        router.add("POST", "/{experiment}/{keeper}/reports", (request, path) -> reports(link(request, path), body(request)));
        router.get("/{experiment}/{keeper}/commands", (request, path) -> commands(link(request, path), request));
    }

    private KeeperLink link(HttpServletRequest request, Map<String, String> path) {
        KeeperLink link = links.find(path.get("experiment"), path.get("keeper"));
        String header = request.getHeader("Authorization");
        String presented = header != null && header.startsWith("Bearer ") ? header.substring(7).trim() : null;
        // the same answer for an unknown keeper and a wrong token: neither tells which ids exist
        if (link == null || !link.accepts(presented)) {
            LOG.warn("refused a trial report for keeper {} of experiment {}: {}", path.get("keeper"), path.get("experiment"),
                    presented == null ? "no token" : link == null ? "unknown keeper" : "wrong token");
            throw new HttpError(401, "unknown keeper or wrong token for keeper " + path.get("keeper"));
        }
        return link;
    }

    private Map<String, Object> body(HttpServletRequest request) throws IOException {
        long declared = request.getContentLengthLong();
        if (declared > maxBodyBytes) {
            throw new HttpError(413, "request body of " + declared + " bytes is over the limit of " + maxBodyBytes);
        }
        byte[] bytes;
        try (InputStream in = request.getInputStream()) {
            bytes = in.readNBytes(maxBodyBytes + 1);
        }
        if (bytes.length > maxBodyBytes) {
            throw new HttpError(413, "request body is over the limit of " + maxBodyBytes + " bytes");
        }
        try {
            Object value = JSON.readValue(bytes, Object.class);
            if (!(value instanceof Map)) {
                throw HttpError.badRequest("the body must be a JSON object");
            }
            @SuppressWarnings("unchecked")
            Map<String, Object> map = (Map<String, Object>) value;
            return map;
        } catch (JsonProcessingException e) {
            throw HttpError.badRequest("the body is not JSON: " + e.getOriginalMessage());
        }
    }

    private Object handshake(KeeperLink link, Map<String, Object> hello) {
        String keeperVersion = String.valueOf(hello.get("keeperVersion"));
        Object protocol = hello.get("protocol");
        if (!(protocol instanceof Number n) || !KeeperLinks.ACCEPTED_PROTOCOLS.contains(n.intValue())) {
            String message = "manager " + links.managerVersion() + " accepts trial protocol " + KeeperLinks.ACCEPTED_PROTOCOLS
                    + ", but trial keeper " + keeperVersion + " speaks protocol " + protocol
                    + "; run the trial keeper this manager ships (nni-trialkeeper.jar or nni-trialkeeper.py) on the worker";
            LOG.error("keeper {} of experiment {} refused: {}", link.keeperId(), link.experimentId(), message);
            link.peer().handshakeRefused(message);
            throw new HttpError(409, message);
        }
        LOG.info("keeper {} of experiment {}: trial keeper {} (protocol {}), manager {}", link.keeperId(), link.experimentId(),
                keeperVersion, protocol, links.managerVersion());
        Map<String, Object> answer = new HashMap<>(link.peer().handshakeAccepted(keeperVersion));
        answer.put("managerVersion", links.managerVersion());
        answer.put("protocol", n.intValue());
        return answer;
    }

    private Object reports(KeeperLink link, Map<String, Object> body) {
        if (!(body.get("reports") instanceof List<?> reports)) {
            throw HttpError.badRequest("expected {\"reports\": [...]}");
        }
        for (Object report : reports) {
            if (!(report instanceof Map<?, ?> map) || !(map.get("seq") instanceof Number) || !(map.get("kind") instanceof String)) {
                throw HttpError.badRequest("every report needs a numeric 'seq' and a 'kind'");
            }
        }
        synchronized (link.reportLock()) {
            List<Map<String, Object>> fresh = new ArrayList<>(reports.size());
            long last = link.applied();
            for (Object item : reports) {
                @SuppressWarnings("unchecked")
                Map<String, Object> report = (Map<String, Object>) item;
                long seq = ((Number) report.get("seq")).longValue();
                if (seq > last) { // older ones were sent again after a lost answer: already stored
                    fresh.add(report);
                    last = seq;
                }
            }
            if (!fresh.isEmpty()) {
                link.peer().apply(fresh);
                link.applied(last);
            }
            return Map.of("acked", link.applied());
        }
    }

    private Object commands(KeeperLink link, HttpServletRequest request) {
        long after = number(request.getParameter("after"), 0, "after");
        long wait = Math.min(maxPollMillis, number(request.getParameter("waitMillis"), 10_000, "waitMillis"));
        try {
            return Map.of("commands", link.commandsAfter(after, wait));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Map.of("commands", List.of());
        }
    }

    private static long number(String text, long fallback, String name) {
        if (text == null) {
            return fallback;
        }
        try {
            return Long.parseLong(text);
        } catch (NumberFormatException e) {
            throw HttpError.badRequest("query parameter '" + name + "' must be a number, got '" + text + "'");
        }
    }
}
