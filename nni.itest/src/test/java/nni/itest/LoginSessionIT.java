package nni.itest;

import static org.awaitility.Awaitility.await;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertTrue;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Hashtable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;
import org.osgi.service.cm.ConfigurationAdmin;

/**
 * The login page's cookie is a session, not the token: a random id the runtime keeps, which stops
 * working when its holder logs out or the token changes, while the token itself keeps working.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class LoginSessionIT extends RuntimeTestSupport {

    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final Pattern SESSION = Pattern.compile("nni-token=([^;]*);");
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @Configuration
    public Option[] config() {
        return new Option[] {baseOptions()};
    }

    private void login(String token) throws Exception {
        Hashtable<String, Object> login = new Hashtable<>();
        login.put("token", token);
        login.put("require.on.loopback", true);
        service(ConfigurationAdmin.class, null).getConfiguration("nni.manager.login", "?").update(login);
    }

    private HttpResponse<String> send(String method, String path, String cookie, String form) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(endpoint().resolve(path)).timeout(Duration.ofSeconds(20))
                .method(method, form == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(form));
        if (cookie != null) {
            request.header("Cookie", "nni-token=" + cookie);
        }
        if (form != null) {
            request.header("Content-Type", "application/x-www-form-urlencoded");
        }
        return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> withBearer(String token) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(endpoint().resolve("api/v1/nni/check-status")).timeout(Duration.ofSeconds(20))
                .header("Authorization", "Bearer " + token).build(), HttpResponse.BodyHandlers.ofString());
    }

    /** @return the session id the login page set */
    private String loggedIn(String token) throws Exception {
        HttpResponse<String> login = send("POST", "login", null, "token=" + token + "&next=/ui/");
        assertEquals(login.body(), 303, login.statusCode());
        Matcher cookie = SESSION.matcher(login.headers().firstValue("Set-Cookie").orElse(""));
        assertTrue(login.headers().map().toString(), cookie.find());
        return cookie.group(1);
    }

    @Test(timeout = 120_000)
    public void theCookieIsASessionThatLoggingOutOrANewTokenEnds() throws Exception {
        login("it-token");
        await().atMost(WAIT).until(() -> send("GET", "api/v1/nni/check-status", null, null).statusCode() == 401
                && withBearer("it-token").statusCode() == 200);
        String session = loggedIn("it-token");
        assertNotEquals("the cookie is not the token", "it-token", session);
        assertTrue(session, session.matches("[A-Za-z0-9_-]{43}"));
        assertEquals(200, send("GET", "api/v1/nni/check-status", session, null).statusCode());
        assertEquals("the token is no session", 401, send("GET", "api/v1/nni/check-status", "it-token", null).statusCode());
        String other = loggedIn("it-token");
        assertNotEquals(session, other);

        HttpResponse<String> logout = send("POST", "logout", session, "");
        assertEquals(303, logout.statusCode());
        assertTrue(logout.headers().map().toString(), logout.headers().firstValue("Set-Cookie").orElse("").contains("Max-Age=0"));
        assertEquals("logged out: the same cookie no longer works", 401, send("GET", "api/v1/nni/check-status", session, null).statusCode());
        assertEquals("another session goes on", 200, send("GET", "api/v1/nni/check-status", other, null).statusCode());
        assertEquals("the token goes on", 200, withBearer("it-token").statusCode());

        login("another-token");
        await().atMost(WAIT).until(() -> withBearer("another-token").statusCode() == 200);
        assertEquals("a session of the old token ends with it", 401, send("GET", "api/v1/nni/check-status", other, null).statusCode());
    }
}
