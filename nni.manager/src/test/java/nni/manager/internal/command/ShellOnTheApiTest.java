package nni.manager.internal.command;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.Test;

/**
 * The Gogo commands, the launch commands, the nnictl bridge and the log files on their way to the
 * nni.shell bundle (issue 27): which of the manager's other packages their classes use, read from
 * the compiled classes' constant pools (an import, a fully qualified name and a lambda's target all
 * count), as WebUiOnTheApiTest reads the web UI's. The five packages may use each other; every use
 * of another package is listed here, so a new one fails this test and each one removed shrinks the list.
 */
public class ShellOnTheApiTest {

    private static final Pattern INTERNAL = Pattern.compile("nni/manager/internal/([a-z]+)/");

    /** The packages that move to nni.shell together. */
    private static final Set<String> SHELL = Set.of("command", "launch", "console", "nnictl", "logs");

    /** What still reads the engine, each to go as the API gains what it reads. */
    private static final Set<String> LEFT_TO_MOVE = Set.of();

    @Test
    public void theShellUsesOnlyTheListedPackagesOfTheManager() throws Exception {
        Path internal = Path.of(ClientSide.class.getResource("ClientSide.class").toURI()).getParent().getParent();
        Set<String> used = new TreeSet<>();
        int read = 0;
        for (String shellPackage : SHELL) {
            try (Stream<Path> classes = Files.list(internal.resolve(shellPackage))) {
                for (Path file : classes.filter(f -> f.getFileName().toString().endsWith(".class")).toList()) {
                    read++;
                    Matcher matcher = INTERNAL.matcher(new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1));
                    while (matcher.find()) {
                        if (!SHELL.contains(matcher.group(1))) {
                            used.add(file.getFileName() + " -> " + matcher.group(1));
                        }
                    }
                }
            }
        }
        assertFalse("no classes read in " + internal, read == 0);
        assertEquals(new TreeSet<>(LEFT_TO_MOVE), used);
    }
}
