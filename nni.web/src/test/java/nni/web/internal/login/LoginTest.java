package nni.web.internal.login;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertTrue;

import org.junit.Test;

/** The pieces of the login: what counts as loopback, where the login page may lead. */
public class LoginTest {

    @Test
    public void loopbackIsTheLoopbackRangeAndLocalhostOnly() {
        for (String host : new String[] {"127.0.0.1", "127.0.0.2", "localhost", "[::1]", "::1"}) {
            assertTrue(host, LoginGate.loopback(host));
        }
        for (String host : new String[] {"0.0.0.0", "::", "10.0.0.1", "192.168.1.20", "example.org", "127.0.0.1.example.org"}) {
            assertFalse(host, LoginGate.loopback(host));
        }
    }

    @Test
    public void tokensAreComparedByDigest() {
        assertTrue(java.security.MessageDigest.isEqual(LoginGate.digest("abc"), LoginGate.digest("abc")));
        assertFalse(java.security.MessageDigest.isEqual(LoginGate.digest("abc"), LoginGate.digest("abd")));
        assertEquals(32, LoginGate.digest("").length);
    }

    @Test
    public void theLoginPageLeadsOnlyToPathsOfThisServer() {
        assertEquals("/ui/#/experiments/abc", LoginPage.safeNext("/ui/#/experiments/abc"));
        for (String elsewhere : new String[] {null, "", "https://evil.example/", "//evil.example/", "/\\evil.example", "/login?next=/x",
                "ui/", "/ui/\r\nSet-Cookie: x=y"}) {
            assertEquals(String.valueOf(elsewhere), "/ui/", LoginPage.safeNext(elsewhere));
        }
        assertEquals("&lt;script&gt;&quot;&#39;&amp;", LoginPage.escape("<script>\"'&"));
    }
    @Test
    public void aSessionIsARandomIdThatEndsOnLogoutAtItsLifetimeOrWhenTheTokenChanges() {
        long[] now = {0};
        Sessions sessions = new Sessions(java.time.Duration.ofMinutes(10), () -> now[0]);
        String first = sessions.start();
        String second = sessions.start();
        assertTrue(first, first.matches("[A-Za-z0-9_-]{43}"));
        assertNotEquals(first, second);
        assertTrue(sessions.valid(first) && sessions.valid(second));
        assertFalse(sessions.valid(first.substring(1) + "x"));
        assertFalse(sessions.valid(null));
        sessions.end(first);
        assertFalse("logged out", sessions.valid(first));
        assertTrue(sessions.valid(second));
        now[0] = java.time.Duration.ofMinutes(10).toNanos();
        assertFalse("past its lifetime", sessions.valid(second));
        String third = sessions.start();
        sessions.endAll();
        assertFalse("the token changed", sessions.valid(third));
    }
}
