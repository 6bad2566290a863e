package nni.keeper.internal.reuse;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.util.List;
import java.util.function.Supplier;

import org.junit.Test;

import nni.api.platform.PlatformException;

/** Where keepers are told to call the manager back: always where its port listens (issue 26 item 5). */
public class ManagerAddressTest {

    private static final Supplier<String> NO_GUESS = () -> {
        throw new AssertionError("the outward address was asked for");
    };

    @Test
    public void aPortBoundToOneAddressIsCalledThere() throws Exception {
        assertEquals("http://127.0.0.2:4711/", ManagerAddress.decide(null, List.of("http://127.0.0.2:4711/"), false, true, NO_GUESS).url());
        assertEquals("http://10.1.2.3:4711/", ManagerAddress.decide("", List.of("http://10.1.2.3:4711/"), false, false, NO_GUESS).url());
        assertEquals("http://[fd00::5]:4711/", ManagerAddress.decide(null, List.of("http://[fd00::5]:4711/"), false, false, NO_GUESS).url());
    }

    @Test
    public void nniManagerIpWinsWhenGiven() throws Exception {
        assertEquals("http://192.0.2.9:4711/", ManagerAddress.decide(" 192.0.2.9 ", List.of("http://10.1.2.3:4711/"), false, false, NO_GUESS).url());
        assertEquals("http://[fd00::9]:4711/", ManagerAddress.decide("fd00::9", List.of("http://10.1.2.3:4711/"), true, false, NO_GUESS).url());
    }

    @Test
    public void aPortBoundToEveryAddressIsCalledOnLoopbackFromThisMachineAndAtTheOutwardAddressFromElsewhere() throws Exception {
        List<String> published = List.of("http://10.1.2.3:4711/", "http://172.17.0.1:4711/");
        assertEquals("http://127.0.0.1:4711/", ManagerAddress.decide(null, published, true, true, NO_GUESS).url());
        assertEquals("http://172.17.0.1:4711/", ManagerAddress.decide(null, published, true, false, () -> "172.17.0.1").url());
        assertEquals("http://10.1.2.3:4711/", ManagerAddress.decide(null, published, true, false, () -> null).url());
    }

    @Test
    public void noPublishedAddressIsAClearError() {
        try {
            ManagerAddress.decide(null, List.of(), false, true, NO_GUESS);
            fail("decided without an endpoint");
        } catch (PlatformException e) {
            assertTrue(e.getMessage(), e.getMessage().contains("publishes no address"));
        }
    }

    @Test
    public void wildcardHostsAndLoopbackUrls() {
        assertTrue(ManagerAddress.bindsAll(null));
        assertTrue(ManagerAddress.bindsAll("0.0.0.0"));
        assertTrue(ManagerAddress.bindsAll("::"));
        assertFalse(ManagerAddress.bindsAll("127.0.0.2"));
        assertTrue(ManagerAddress.loopback("http://127.0.0.2:4711/"));
        assertTrue(ManagerAddress.loopback("http://[::1]:4711/"));
        assertFalse(ManagerAddress.loopback("http://10.1.2.3:4711/"));
        assertFalse(ManagerAddress.loopback("http://manager.example:4711/"));
    }
}
