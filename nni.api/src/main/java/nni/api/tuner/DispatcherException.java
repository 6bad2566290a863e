package nni.api.tuner;

/**
 * A dispatcher could not be started, for a reason a person can act on (the interpreter or the
 * package it needs is missing, say). The message is shown to the user as it is.
 *
 * @since 1.1
 */
public class DispatcherException extends Exception {
    private static final long serialVersionUID = 1L;

    public DispatcherException(String message) {
        super(message);
    }

    public DispatcherException(String message, Throwable cause) {
        super(message, cause);
    }
}
