package nni.ts.remote.internal.ssh;

/** An SSH operation failed; the message names the machine and the reason, never a secret. */
public final class SshException extends Exception {
    private static final long serialVersionUID = 1L;

    /** Why a machine could not be used, as users need to tell the cases apart. */
    public enum Reason {
        AUTH_FAILED("authentication failed"),
        HOST_KEY_MISMATCH("host key mismatch"),
        HOST_KEY_UNKNOWN("host key unknown"),
        CONNECTION_REFUSED("connection refused"),
        TIMEOUT("timeout"),
        COMMAND_FAILED("command failed"),
        OTHER("error");

        private final String words;

        Reason(String words) {
            this.words = words;
        }

        /** @return the reason in a few words ("connection refused") */
        public String words() {
            return words;
        }
    }

    private final Reason reason;

    public SshException(Reason reason, String message, Throwable cause) {
        super(message, cause);
        this.reason = reason;
    }

    public Reason reason() {
        return reason;
    }

    /** @return whether the machine itself could not be reached or logged into (not one command failing) */
    public boolean unreachable() {
        return reason != Reason.COMMAND_FAILED;
    }
}
