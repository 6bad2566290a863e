package nni.trialkeeper;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.Test;

/**
 * The Python keeper against the Java one at source level: it parses as Python 3.7 (the oldest
 * worker Python it supports), and it declares the same version, the same usage and the same
 * options. What it does is checked at process level by nni.itest's keeper conformance suite.
 */
public class PythonKeeperSourceTest {

    static final Path SOURCE = Path.of("src", "main", "python", "nni-trialkeeper.py");

    @Test
    public void parsesAsPython37() throws Exception {
        String check = "import ast, sys; ast.parse(open(sys.argv[1], encoding='utf-8').read(), filename=sys.argv[1], feature_version=(3, 7))";
        Process python = new ProcessBuilder("python3", "-c", check, SOURCE.toString()).redirectErrorStream(true).start();
        String output = new String(python.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(python.waitFor(60, TimeUnit.SECONDS));
        assertEquals(output, 0, python.exitValue());
    }

    @Test
    public void declaresTheJavaKeepersVersionUsageAndOptions() throws IOException {
        String source = Files.readString(SOURCE);
        Matcher version = Pattern.compile("(?m)^VERSION = \"([^\"]+)\"$").matcher(source);
        assertTrue(version.find());
        assertEquals(Keeper.VERSION, version.group(1));
        Matcher usage = Pattern.compile("(?s)USAGE = \"\\\\n\"\\.join\\(\\[\\n(.*?)\\n\\]\\)").matcher(source);
        assertTrue("USAGE not found", usage.find());
        StringBuilder lines = new StringBuilder();
        for (String line : usage.group(1).split("\n")) {
            String literal = line.strip();
            literal = literal.substring(1, literal.lastIndexOf('"'));
            lines.append(literal.replace("\\\"", "\"")).append('\n');
        }
        assertEquals(KeeperOptions.USAGE, lines.substring(0, lines.length() - 1));
    }
}
