package nni.launcher;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.nio.file.Path;
import java.util.List;

import org.junit.Test;

public class LaunchOptionsTest {

    @Test
    public void noArgumentsMeansDefaultsAndNoCommand() {
        LaunchOptions options = LaunchOptions.parse();
        assertNull(options.port());
        assertNull(options.host());
        assertEquals(Path.of("").toAbsolutePath(), options.home());
        assertTrue(options.command().isEmpty());
    }

    @Test
    public void optionsBeforeTheCommandAreOptionsAfterItAreArguments() {
        LaunchOptions options = LaunchOptions.parse("--port", "9090", "--home", "/tmp/x", "run", "--port", "exp.yml");
        assertEquals(Integer.valueOf(9090), options.port());
        assertEquals(Path.of("/tmp/x"), options.home());
        assertEquals(List.of("run", "--port", "exp.yml"), options.command());
    }

    @Test
    public void portWithEqualsSign() {
        assertEquals(Integer.valueOf(0), LaunchOptions.parse("--port=0").port());
    }

    @Test
    public void badPortNamesTheOptionAndTheValue() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> LaunchOptions.parse("--port", "22a"));
        assertEquals("--port: expected a port number 0-65535, got \"22a\"", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> LaunchOptions.parse("--port", "70000"));
    }

    @Test
    public void missingValueAndUnknownOptionAreErrors() {
        assertEquals("--home needs a value",
                assertThrows(IllegalArgumentException.class, () -> LaunchOptions.parse("--home")).getMessage());
        assertEquals("unknown option --verbose",
                assertThrows(IllegalArgumentException.class, () -> LaunchOptions.parse("--verbose")).getMessage());
    }
}
