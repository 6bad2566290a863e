package nni.trialkeeper;

import java.io.IOException;
import java.util.List;
import java.util.Map;

/**
 * How the keeper talks to the manager: HTTP to its endpoint ({@link ManagerClient}) or files in a
 * channel folder on a shared storage ({@link FileChannel}). The same protocol either way: a
 * handshake, numbered report batches acknowledged once durable, numbered commands. Failures are
 * {@link ManagerClient.Refused} (stop for good) or any other {@link IOException} (try again after a pause).
 */
interface ManagerLink {

    /** @return the manager's answer: {@code managerVersion}, {@code protocol} and, per trial, {@code trial} */
    Map<String, Object> handshake(Map<String, Object> hello) throws IOException, InterruptedException;

    /**
     * Delivers reports numbered up to {@code lastSeq} (the oldest unacknowledged ones, in order).
     *
     * @return the highest sequence the manager now has durably, never above {@code lastSeq}
     */
    long sendReports(List<String> reports, long lastSeq) throws IOException, InterruptedException;

    /**
     * Tells the manager every command up to {@code after} is handled, and waits up to
     * {@code waitMillis} for newer ones.
     *
     * @return them, possibly none, each with a numeric id and a type, in id order
     */
    List<Map<String, Object>> commands(long after, long waitMillis) throws IOException, InterruptedException;

    /** @return where the manager is, for messages */
    String where();
}
