package nni.store;

/** The experiment database failed; nothing was stored by the failing call. */
public final class StoreException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public StoreException(String message, Throwable cause) {
        super(message + ": " + cause.getMessage(), cause);
    }
}
