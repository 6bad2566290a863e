package nni.launcher;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.logging.Level;

import org.junit.Test;

public class LaunchOptionsTest {

    private static final Map<String, String> USER = Map.of("HOME", "/home/ada");

    @Test
    public void noArgumentsMeansDefaultsNoCommandAndTheHomeInTheUsersFolder() {
        LaunchOptions options = LaunchOptions.parse(USER);
        assertNull(options.port());
        assertNull(options.host());
        assertEquals(Path.of("/home/ada/.nni-osgi"), options.home());
        assertTrue(options.command().isEmpty());
        assertFalse(options.verbose());
        assertEquals(Level.INFO, options.logLevel());
    }

    @Test
    public void theHomeIsTheOptionElseTheVariableElseTildeNniOsgiWithTildeFromHome() {
        Map<String, String> both = Map.of("HOME", "/home/ada", "NNI_OSGI_HOME", "~/runtimes/a");
        assertEquals(Path.of("/home/ada/runtimes/a"), LaunchOptions.parse(both).home());
        assertEquals(Path.of("/srv/nni"), LaunchOptions.parse(both, "--home", "/srv/nni").home());
        assertEquals(Path.of("/home/ada/x"), LaunchOptions.parse(both, "--home=~/x").home());
        assertEquals(Path.of("").toAbsolutePath().resolve("rel"), LaunchOptions.parse(both, "--home", "rel").home());
    }

    @Test
    public void optionsBeforeTheCommandAreOptionsAfterItAreArguments() {
        LaunchOptions options = LaunchOptions.parse(USER, "--port", "9090", "--home", "/tmp/x", "-v", "run", "--port", "exp.yml");
        assertEquals(Integer.valueOf(9090), options.port());
        assertEquals(Path.of("/tmp/x"), options.home());
        assertTrue(options.verbose());
        assertEquals(List.of("run", "--port", "exp.yml"), options.command());
    }

    @Test
    public void portWithEqualsSign() {
        assertEquals(Integer.valueOf(0), LaunchOptions.parse(USER, "--port=0").port());
    }

    @Test
    public void logLevelsAreNnisNames() {
        assertEquals(Level.FINE, LaunchOptions.parse(USER, "--log-level", "debug").logLevel());
        assertEquals(Level.FINEST, LaunchOptions.parse(USER, "--log-level=trace").logLevel());
        assertEquals(Level.WARNING, LaunchOptions.parse(USER, "--verbose", "--log-level", "WARNING", "validate").logLevel());
        assertEquals("--log-level: expected critical, error, warning, info, debug or trace, got \"loud\"",
                assertThrows(IllegalArgumentException.class, () -> LaunchOptions.parse(USER, "--log-level", "loud")).getMessage());
    }

    @Test
    public void badPortNamesTheOptionAndTheValue() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> LaunchOptions.parse(USER, "--port", "22a"));
        assertEquals("--port: expected a port number 0-65535, got \"22a\"", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> LaunchOptions.parse(USER, "--port", "70000"));
    }

    @Test
    public void missingValueAndUnknownOptionAreErrors() {
        assertEquals("--home needs a value",
                assertThrows(IllegalArgumentException.class, () -> LaunchOptions.parse(USER, "--home")).getMessage());
        assertEquals("unknown option --quiet",
                assertThrows(IllegalArgumentException.class, () -> LaunchOptions.parse(USER, "--quiet")).getMessage());
    }

    @Test
    public void helpOptionsAreTheHelpCommandAndAfterACommandAskForItsHelp() {
        assertEquals(List.of("help"), LaunchOptions.parse(USER, "--help").command());
        assertEquals(List.of("help", "run"), LaunchOptions.parse(USER, "--port", "0", "-h", "run").command());
        assertTrue(LaunchOptions.parse(USER, "run", "x.yml", "--help").asksForCommandHelp());
        assertTrue(LaunchOptions.parse(USER, "client", "-h").asksForCommandHelp());
        // the console answers its own command's --help
        assertFalse(LaunchOptions.parse(USER, "client", "nni:create", "--help").asksForCommandHelp());
        assertFalse(LaunchOptions.parse(USER, "run", "x.yml").asksForCommandHelp());
    }

    @Test
    public void aCommandsHelpIsItsLinesOfTheUsage() {
        String help = LaunchOptions.help(LaunchOptions.command("validate").orElseThrow());
        assertTrue(help, help.startsWith("usage: java -jar nni-osgi.jar"));
        for (String line : help.lines().skip(1).filter(line -> line.startsWith("  ")).toList()) {
            assertTrue(line, LaunchOptions.USAGE.contains(line));
        }
        assertTrue(LaunchOptions.command("nosuch").isEmpty());
    }

    @Test
    public void aMistypedOptionGetsTheNearestKnownOne() {
        assertEquals("unknown option --prot; did you mean --port?",
                assertThrows(IllegalArgumentException.class, () -> LaunchOptions.parse(USER, "--prot", "0")).getMessage());
        assertEquals("unknown option --hme=/x; did you mean --home?",
                assertThrows(IllegalArgumentException.class, () -> LaunchOptions.parse(USER, "--hme=/x")).getMessage());
        assertEquals("; did you mean validate?", DidYouMean.among("valdiate", List.of("run", "validate", "version")));
        assertEquals("", DidYouMean.among("frobnicate", List.of("run", "validate", "version")));
        assertEquals(1, DidYouMean.distance("verison", "version"));
    }
}
