package nni.ts.cloud;

import java.util.Optional;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import nni.api.platform.PlatformException;

/**
 * A cluster refused a session's credentials (401, 403): remembered, logged and told once, and from
 * then on no job is started. Thread-safe.
 */
public final class Refusal {

    private static final Logger LOG = LoggerFactory.getLogger(Refusal.class);

    private final String title;
    private final Runnable onRefusal;
    private String message;

    /**
     * @param title     how messages name the cluster's jobs ("OpenPAI", "TFJob")
     * @param onRefusal told once, when the refusal comes
     */
    public Refusal(String title, Runnable onRefusal) {
        this.title = title;
        this.onRefusal = onRefusal;
    }

    /** Records the refusal, unless one is recorded already. */
    public void refuse(String why) {
        String said;
        synchronized (this) {
            if (message != null) {
                return;
            }
            message = why + "; no more trials are started on this experiment's " + title + " session"
                    + " (check the credentials and resume the experiment)";
            said = message;
        }
        LOG.error("{}", said);
        onRefusal.run();
    }

    /** @return why the credentials were refused, once they were */
    public synchronized Optional<String> get() {
        return Optional.ofNullable(message);
    }

    /** @throws PlatformException with the refusal, once there is one */
    public void check() throws PlatformException {
        Optional<String> refused = get();
        if (refused.isPresent()) {
            throw new PlatformException(refused.get());
        }
    }
}
