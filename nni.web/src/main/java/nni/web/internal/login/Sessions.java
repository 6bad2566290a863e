package nni.web.internal.login;

import java.security.SecureRandom;
import java.time.Duration;
import java.util.Base64;
import java.util.Comparator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * The logins of the web UI: a login page that took the token gives the browser a random session
 * id, never the token, so that logging out (or the session's end) takes the cookie's power away
 * while the token stays good. Ids are kept as their digests, each with when it ends; a session
 * ends at its lifetime, on logout, or when the token changes (every session is then forgotten).
 * At most {@link #MAX_SESSIONS} live at once: beyond that the one nearest its end is dropped.
 * Thread-safe.
 */
final class Sessions {

    static final int MAX_SESSIONS = 1_000;
    private static final SecureRandom RANDOM = new SecureRandom();

    private final Map<String, Long> endNanos = new ConcurrentHashMap<>();
    private final LongSupplier nanoClock;
    private volatile long lifetimeNanos;

    /** @param nanoClock {@link System#nanoTime} but in tests */
    Sessions(Duration lifetime, LongSupplier nanoClock) {
        this.nanoClock = nanoClock;
        this.lifetimeNanos = lifetime.toNanos();
    }

    /** Sessions started from now on last {@code lifetime}; those already started keep their end. */
    void lifetime(Duration lifetime) {
        this.lifetimeNanos = lifetime.toNanos();
    }

    /** @return a new session's id (43 URL-safe characters, 256 random bits) */
    synchronized String start() {
        long now = nanoClock.getAsLong();
        endNanos.values().removeIf(end -> end - now <= 0);
        while (endNanos.size() >= MAX_SESSIONS) {
            endNanos.entrySet().stream().min(Comparator.comparingLong(e -> e.getValue() - now))
                    .ifPresent(oldest -> endNanos.remove(oldest.getKey()));
        }
        byte[] bytes = new byte[32];
        RANDOM.nextBytes(bytes);
        String id = Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
        endNanos.put(key(id), now + lifetimeNanos);
        return id;
    }

    /** @return whether {@code id} is a session that has not ended */
    boolean valid(String id) {
        if (id == null || id.isEmpty()) {
            return false;
        }
        String key = key(id);
        Long end = endNanos.get(key);
        if (end == null) {
            return false;
        }
        if (end - nanoClock.getAsLong() <= 0) {
            endNanos.remove(key, end);
            return false;
        }
        return true;
    }

    /** Ends a session (logout); an unknown id changes nothing. */
    void end(String id) {
        if (id != null && !id.isEmpty()) {
            endNanos.remove(key(id));
        }
    }

    /** Ends every session: the token changed. */
    void endAll() {
        endNanos.clear();
    }

    private static String key(String id) {
        return Base64.getEncoder().encodeToString(LoginGate.digest(id));
    }
}
