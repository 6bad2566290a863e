package nni.dispatcher.internal;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertSame;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import org.junit.Test;

import nni.api.tuner.DispatcherException;

public class FramingTest {

    @Test
    public void theInstalledVersionChoosesTheFraming() throws Exception {
        assertSame(Framing.JSON, Framing.forVersion("3.0"));
        assertSame(Framing.JSON, Framing.forVersion("3.0rc1"));
        assertSame(Framing.JSON, Framing.forVersion("999.dev0"));
        assertSame(Framing.JSON, Framing.forVersion("unknown"));
        assertSame(Framing.PLAIN, Framing.forVersion("2.10"));
        assertSame(Framing.PLAIN, Framing.forVersion("2.8\n"));
        DispatcherException old = assertThrows(DispatcherException.class, () -> Framing.forVersion("2.7"));
        assertTrue(old.getMessage(), old.getMessage().startsWith("the installed nni is 2.7, whose dispatcher talks over pipes"));
    }

    @Test
    public void v3CommandsAreJsonObjectsAndV28OnesATypeAndThePayload() {
        assertEquals("{\"type\":\"GE\",\"content\":\"3\"}", Framing.JSON.encode("GE", "3"));
        assertEquals(new Framing.Command("TR", "{\"parameter_id\":0}"),
                Framing.JSON.decode("{\"type\":\"TR\",\"content\":\"{\\\"parameter_id\\\":0}\"}"));
        assertEquals(new Framing.Command("ID", ""), Framing.JSON.decode("{\"type\":\"ID\"}"));
        assertEquals(new Framing.Command("_nop_", ""), Framing.JSON.decode("{\"type\":\"_nop_\"}"));
        assertEquals("GE3", Framing.PLAIN.encode("GE", "3"));
        assertEquals(new Framing.Command("KI", "\"AbCd1\""), Framing.PLAIN.decode("KI\"AbCd1\""));
        assertThrows(IllegalArgumentException.class, () -> Framing.JSON.decode("GE3"));
        assertThrows(IllegalArgumentException.class, () -> Framing.PLAIN.decode("G"));
    }
}
