package nni.api.platform;

/**
 * A platform could not do what it was asked, for a reason a person can act on. The message is shown
 * to the user as it is, so it names what failed and why, and never contains a secret.
 */
public class PlatformException extends Exception {
    private static final long serialVersionUID = 1L;

    public PlatformException(String message) {
        super(message);
    }

    public PlatformException(String message, Throwable cause) {
        super(message, cause);
    }
}
