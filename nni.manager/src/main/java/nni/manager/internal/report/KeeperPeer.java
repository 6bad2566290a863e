package nni.manager.internal.report;

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
     * Applies one report; returns once what it carries is durable.
     *
     * @throws IllegalArgumentException when the report is not acceptable; it is logged and skipped
     */
    void apply(Map<String, Object> report);
}
