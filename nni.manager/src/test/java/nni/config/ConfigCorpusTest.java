package nni.config;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.Test;

/**
 * Our own corpus of experiment files ({@code src/test/resources/configs}): every file under
 * {@code valid/} validates (and loads, unless it names a platform without a bundle, listed in a
 * {@code # unchecked:} comment); every file under {@code invalid/} is refused with exactly the
 * problems its {@code # expect: LINE:COL PATH: MESSAGE} comments list (for JSON files, in a
 * side file {@code <name>.expect}). MESSAGE is the start of the message.
 */
public class ConfigCorpusTest {

    private static final Pattern EXPECT = Pattern.compile("^# expect: (\\d+):(\\d+) (\\S*): (.*)$");
    private static final Pattern UNCHECKED = Pattern.compile("^# unchecked: (\\S+)$");

    private final ExperimentConfigLoader loader = Loaders.builtIn();

    private static List<Path> files(String folder) throws IOException, URISyntaxException {
        Path root = Path.of(ConfigCorpusTest.class.getResource("/configs/" + folder).toURI());
        try (Stream<Path> listing = Files.list(root)) {
            return listing.filter(p -> p.getFileName().toString().matches("(v1|v2|[a-z0-9_-]+)\\.(yml|yaml|json)"))
                    .filter(p -> !p.getFileName().toString().startsWith("search_space"))
                    .sorted().toList();
        }
    }

    private static List<String> comments(Path file, Pattern pattern) throws IOException {
        Path side = file.resolveSibling(file.getFileName() + ".expect");
        List<String> lines = Files.readAllLines(Files.exists(side) ? side : file);
        return lines.stream().filter(l -> pattern.matcher(l).matches()).toList();
    }

    @Test
    public void everyValidFileValidates() throws Exception {
        List<Path> files = files("valid");
        assertTrue("corpus too small: " + files, files.size() >= 20);
        List<String> refused = new ArrayList<>();
        for (Path file : files) {
            ValidationReport report = loader.validate(file);
            if (!report.ok()) {
                refused.add(report.toString());
                continue;
            }
            List<String> unchecked = new ArrayList<>();
            for (String line : comments(file, UNCHECKED)) {
                Matcher m = UNCHECKED.matcher(line);
                m.matches();
                unchecked.add(m.group(1));
            }
            assertEquals(file.getFileName().toString(), unchecked.size(), report.unchecked().size());
            for (int i = 0; i < unchecked.size(); i++) {
                assertTrue(report.unchecked().get(i), report.unchecked().get(i).contains("platform " + unchecked.get(i)));
            }
            if (unchecked.isEmpty()) {
                ExperimentConfig config = loader.load(file);
                assertFalse(config.trainingServices().isEmpty());
                if (file.getFileName().toString().contains("-hybrid")) {
                    // NNI's hybrid examples (v2 lists, v1 hybridConfig): one member per platform, each checked by its platform
                    assertTrue(file.getFileName() + ": " + config.trainingServices(), config.trainingServices().size() > 1);
                }
            }
        }
        assertTrue("refused:\n" + String.join("\n", refused), refused.isEmpty());
    }

    @Test
    public void everyInvalidFileIsRefusedWithItsExpectedProblems() throws Exception {
        List<Path> files = files("invalid");
        assertTrue("corpus too small: " + files, files.size() >= 15);
        for (Path file : files) {
            List<String> expected = comments(file, EXPECT);
            assertFalse(file.getFileName() + " lists no expected problem", expected.isEmpty());
            List<ConfigError> errors;
            try {
                loader.load(file);
                fail(file.getFileName() + " was accepted");
                return;
            } catch (ConfigException e) {
                errors = e.errors();
            }
            String all = file.getFileName() + " gave:\n" + String.join("\n", errors.stream().map(ConfigError::toString).toList());
            assertEquals(all, expected.size(), errors.size());
            for (int i = 0; i < expected.size(); i++) {
                Matcher m = EXPECT.matcher(expected.get(i));
                assertTrue(m.matches());
                ConfigError error = errors.get(i);
                assertEquals(all, file.toAbsolutePath().normalize(), error.file());
                assertEquals(all, Integer.parseInt(m.group(1)), error.line());
                assertEquals(all, Integer.parseInt(m.group(2)), error.column());
                assertEquals(all, m.group(3), error.path());
                assertTrue(all, error.message().startsWith(m.group(4)));
            }
        }
    }

    @Test
    public void secretsNeverAppearInMessages() throws Exception {
        for (String folder : List.of("valid", "invalid")) {
            for (Path file : files(folder)) {
                String report = loader.validate(file).toString();
                for (String secret : List.of("hunter2-secret", "not-shown-anywhere", "also-secret", "987654321", "12345\"")) {
                    assertFalse(file + " shows a secret: " + report, report.contains(secret));
                }
            }
        }
    }
}
