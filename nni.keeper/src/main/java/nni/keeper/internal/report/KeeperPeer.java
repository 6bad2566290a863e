package nni.keeper.internal.report;

import java.util.List;
import java.util.Map;

/**
 * The manager-side owner of one keeper link (a session's environment or trial): answers the
 * handshake and applies the keeper's reports. Called by {@link TrialReportServlet} while it holds
 * the link, so one keeper's reports arrive one at a time and in sequence order.
 */
public interface KeeperPeer {

    /** @return what the handshake answer adds for this keeper (for a per-trial keeper: its trial) */
    Map<String, Object> handshakeAccepted(String keeperVersion);

    /** The keeper was refused at the handshake; {@code message} names both versions. */
    void handshakeRefused(String message);

    /**
     * Applies new reports, in sequence order; returns once what they carry is durable. A report
     * that is not acceptable is logged and skipped by the peer.
     *
     * @throws RuntimeException when they could not be applied (the store failed); the keeper sends
     *                          them again, and applying a report twice changes nothing
     */
    void apply(List<KeeperReport> reports);
}
