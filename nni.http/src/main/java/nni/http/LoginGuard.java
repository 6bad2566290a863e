package nni.http;

/**
 * How a servlet waits for the login: the login gate (bundle {@code nni.web}) registers its
 * {@code Preprocessor} with {@link #PROPERTY}{@code =login}, and a servlet that must not serve
 * before the port is guarded references that service with {@link #TARGET}
 * ({@code @Reference(service = Preprocessor.class, target = LoginGuard.TARGET)}): SCR registers the
 * servlet only once the gate is in place, and withdraws it while the gate is away, without the
 * servlet's bundle knowing the gate's class.
 */
public final class LoginGuard {

    /** The service property naming what a {@code Preprocessor} guards. */
    public static final String PROPERTY = "nni.http.guard";

    /** The target filter that selects the login gate. */
    public static final String TARGET = "(" + PROPERTY + "=login)";

    private LoginGuard() {
    }
}
