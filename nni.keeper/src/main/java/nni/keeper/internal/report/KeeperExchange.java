package nni.keeper.internal.report;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import nni.http.HttpError;
import nni.http.WholeNumbers;

/**
 * The manager's side of the keeper protocol, whatever carries it (the HTTP routes of
 * {@link TrialReportServlet}, or files on a shared storage, {@link FileChannels}): the handshake and
 * the application of numbered reports. A report is applied only if its sequence is above the last
 * one applied for that keeper, under the keeper's lock, so a batch that arrives twice is stored once.
 * Refusals and malformed input are {@link HttpError}s, whose status the HTTP routes answer and the
 * file channel writes.
 */
final class KeeperExchange {

    private static final Logger LOG = LoggerFactory.getLogger(KeeperExchange.class);

    private final KeeperLinks links;

    KeeperExchange(KeeperLinks links) {
        this.links = links;
    }

    /**
     * @return the handshake's answer ({@code managerVersion}, {@code protocol} and what the keeper's
     *         owner adds)
     * @throws HttpError 400 for a hello without its fields, 409 for a protocol this manager does not accept
     */
    Map<String, Object> handshake(KeeperLink link, Map<String, Object> hello) {
        // a hello without its fields is a malformed request, not a keeper of another protocol
        if (!(hello.get("keeperVersion") instanceof String keeperVersion) || keeperVersion.isBlank()) {
            throw HttpError.badRequest("keeperVersion: expected the keeper's version string, got " + describe(hello.get("keeperVersion")));
        }
        long protocol = WholeNumbers.require("protocol", hello.get("protocol"), 1, Integer.MAX_VALUE);
        if (!KeeperLinks.ACCEPTED_PROTOCOLS.contains((int) protocol)) {
            String message = "manager " + links.managerVersion() + " accepts trial protocol " + KeeperLinks.ACCEPTED_PROTOCOLS
                    + ", but trial keeper " + keeperVersion + " speaks protocol " + protocol
                    + "; run the trial keeper this manager ships on the worker";
            LOG.error("keeper {} of experiment {} refused: {}", link.keeperId(), link.experimentId(), message);
            link.peer().handshakeRefused(message);
            throw new HttpError(409, message);
        }
        LOG.info("keeper {} of experiment {}: trial keeper {} (protocol {}), manager {}", link.keeperId(), link.experimentId(),
                keeperVersion, protocol, links.managerVersion());
        Map<String, Object> answer = new HashMap<>(link.peer().handshakeAccepted(keeperVersion));
        answer.put("managerVersion", links.managerVersion());
        answer.put("protocol", (int) protocol);
        return answer;
    }

    /**
     * Applies the reports of a batch the keeper posted above the last sequence applied, in order.
     *
     * @param body   the request's body, {@code {"reports": [...]}}, in its first {@code length} bytes
     *               (a buffer lent for the request: nothing of it is kept)
     * @return the highest sequence applied now
     * @throws HttpError 400 for a body that is not strict JSON or malformed reports (nothing applied);
     *                   the peer's own refusals (503 while its session is detached)
     */
    long reports(KeeperLink link, byte[] body, int length) {
        return apply(link, ReportsBody.read(body, length));
    }

    /**
     * Applies the reports above the last sequence applied, in order.
     *
     * @param body {@code {"reports": [...]}} as a map (the shared-storage channel reads its files so)
     * @return the highest sequence applied now
     * @throws HttpError 400 for malformed reports (nothing applied); the peer's own refusals (503
     *                   while its session is detached)
     */
    long reports(KeeperLink link, Map<String, Object> body) {
        return apply(link, ReportsBody.of(body));
    }

    private static long apply(KeeperLink link, List<KeeperReport> reports) {
        synchronized (link.reportLock()) {
            List<KeeperReport> fresh = new ArrayList<>(reports.size());
            long last = link.applied();
            for (KeeperReport report : reports) {
                if (report.seq() > last) { // older ones were sent again after a lost answer: already stored
                    fresh.add(report);
                    last = report.seq();
                }
            }
            if (!fresh.isEmpty()) {
                link.peer().apply(fresh);
                link.applied(last);
            }
            return link.applied();
        }
    }

    private static String describe(Object value) {
        return value == null ? "nothing" : value instanceof String text ? "\"" + text + "\"" : String.valueOf(value);
    }
}
