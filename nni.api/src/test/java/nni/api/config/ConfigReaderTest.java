package nni.api.config;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/** The section helper platforms use: NNI's key, type, default and path rules. */
public class ConfigReaderTest {

    @Rule
    public TemporaryFolder folder = new TemporaryFolder();

    private static Map<String, Object> map(Object... keysAndValues) {
        Map<String, Object> map = new LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            map.put((String) keysAndValues[i], keysAndValues[i + 1]);
        }
        return map;
    }

    private ConfigReader reader(Map<String, Object> section) {
        return ConfigReader.of(section, folder.getRoot().toPath());
    }

    @Test
    public void keysMatchIgnoringCaseAndUnderscores() {
        for (String spelling : List.of("maxTrialNumberPerGpu", "max_trial_number_per_gpu", "MAXTRIALNUMBERPERGPU",
                "_max_Trial_number_per_GPU_")) {
            ConfigReader reader = reader(map(spelling, 3));
            assertEquals(Integer.valueOf(3), reader.integer("maxTrialNumberPerGpu", 1, 1, 10));
            SectionCheck check = reader.check();
            assertTrue(spelling + ": " + check.problems(), check.valid());
            assertEquals(Map.of("maxTrialNumberPerGpu", 3), check.section());
        }
    }

    @Test
    public void unknownKeysAreProblemsAtEveryLevel() {
        ConfigReader reader = reader(map("host", "h", "colour", "red",
                "machineList", List.of(map("host", "a", "prot", 22))));
        reader.string("host");
        for (ConfigReader machine : reader.objects("machineList", true)) {
            machine.string("host");
            machine.port("port", 22);
        }
        List<ConfigProblem> problems = reader.check().problems();
        assertEquals(2, problems.size());
        assertEquals("colour", problems.get(0).path());
        assertTrue(problems.get(0).message().startsWith("unknown key \"colour\"; expected one of: host, machineList"));
        assertEquals("machineList[0].prot", problems.get(1).path());
        assertTrue(problems.get(1).message().contains("host, port"));
    }

    @Test
    public void defaultsAreFilledAndAbsentOptionalsStayAbsent() {
        ConfigReader reader = reader(map());
        reader.integer("port", 22, 1, 65535);
        reader.bool("reuseMode", false);
        reader.string("dockerImage", "msranni/nni:latest");
        reader.string("pythonPath");
        reader.bool("useActiveGpu", null);
        assertEquals(map("port", 22, "reuseMode", false, "dockerImage", "msranni/nni:latest"), reader.check().section());
    }

    @Test
    public void typesAreStrict() {
        ConfigReader reader = reader(map("a", "1", "b", 0.5, "c", "yes", "d", 12345, "e", List.of()));
        reader.integer("a", null, 0, 10);
        reader.integer("b", null, 0, 10);
        reader.bool("c", null);
        reader.string("d");
        reader.string("e");
        List<String> messages = reader.check().problems().stream().map(ConfigProblem::toString).toList();
        assertEquals(List.of("a: expected an integer 0-10, got \"1\"", "b: expected an integer 0-10, got 0.5",
                "c: expected true or false, got \"yes\"", "d: expected a string, got 12345", "e: expected a string, got a list"),
                messages);
    }

    @Test
    public void secretsAreNotEchoed() {
        ConfigReader reader = reader(map("password", 987654321));
        reader.secret("password", true);
        ConfigProblem problem = reader.check().problems().get(0);
        assertEquals("expected a string, got a number", problem.message());
        assertFalse(problem.toString().contains("987654321"));
    }

    @Test
    public void secretPathsAreListedInTheCheck() {
        ConfigReader reader = reader(map("token", "t0k3n", "machineList",
                List.of(map("password", "pw"), map("sshPassphrase", "pp"), map())));
        reader.secret("token", true);
        for (ConfigReader machine : reader.objects("machineList", true)) {
            machine.secret("password", false);
            machine.secret("sshPassphrase", false);
        }
        SectionCheck check = reader.check();
        assertTrue(check.problems().toString(), check.valid());
        // only the secrets actually given, with the paths the canonical section has them at
        assertEquals(List.of("token", "machineList[0].password", "machineList[1].sshPassphrase"), check.secrets());
    }

    @Test
    public void requiredFieldsAreNamed() {
        ConfigReader reader = reader(map());
        reader.requiredString("host");
        reader.requiredInteger("podCount", 1, 100);
        assertEquals(List.of("host: host is required", "podCount: podCount is required"),
                reader.check().problems().stream().map(ConfigProblem::toString).toList());
    }

    @Test
    public void pathsResolveAgainstTheBaseDirectoryWithTildeExpanded() throws Exception {
        Path base = folder.getRoot().toPath().toRealPath();
        Files.createDirectories(base.resolve("code"));
        ConfigReader reader = reader(map("dir", "code", "home", "~/x", "absolute", "/opt/x"));
        assertEquals(base.resolve("code"), reader.directory("dir", null, true));
        // ~ is $HOME, as in NNI (Python's expanduser), whatever Java's user.home says; the part that exists is a real path
        // the home need not exist (a fresh CI machine): only its existing part is a real path
        Path home = Path.of(System.getenv("HOME")).toAbsolutePath().normalize();
        assertEquals(existingPartReal(home).resolve("x"), reader.path("home", null, false));
        assertFalse(Files.exists(home.resolve("x")));
        assertEquals(Path.of("/opt/x"), reader.path("absolute", null, false));
        assertEquals(base.resolve("code").toString(), reader.check().section().get("dir"));
    }

    /** @return the path with its longest existing ancestor as a real path, the rest as it is */
    private static Path existingPartReal(Path path) throws java.io.IOException {
        Path existing = path;
        while (existing != null && !Files.exists(existing)) {
            existing = existing.getParent();
        }
        return existing == null ? path : existing.toRealPath().resolve(existing.relativize(path));
    }

    @Test
    public void symbolicLinksResolveInThePartThatExistsAsPythonsRealpath() throws Exception {
        Path base = folder.getRoot().toPath().toRealPath();
        Files.createDirectories(base.resolve("real"));
        Files.createSymbolicLink(base.resolve("link"), base.resolve("real"));
        ConfigReader reader = reader(map("out", "link/not/yet"));
        assertEquals(base.resolve("real").resolve("not").resolve("yet"), reader.path("out", null, false));
    }

    @Test
    public void missingDirectoryIsAProblem() {
        ConfigReader reader = reader(map("dir", "nowhere"));
        reader.directory("dir", null, true);
        assertTrue(reader.check().problems().get(0).message().startsWith("expected an existing directory"));
    }

    @Test
    public void gpuIndicesAcceptNnisThreeForms() {
        ConfigReader reader = reader(map("a", "1,2", "b", 0, "c", List.of(3, 4), "d", "1,1", "e", "x"));
        assertEquals(List.of(1, 2), reader.indices("a"));
        assertEquals(List.of(0), reader.indices("b"));
        assertEquals(List.of(3, 4), reader.indices("c"));
        reader.indices("d");
        assertNull(reader.indices("e"));
        List<ConfigProblem> problems = reader.check().problems();
        assertEquals(List.of("d", "e"), problems.stream().map(ConfigProblem::path).toList());
    }

    @Test
    public void durationsAndSizesStayAsWrittenWhenValid() {
        ConfigReader reader = reader(map("t", "1.5h", "m", "8gb", "bad", "0s"));
        assertEquals(Long.valueOf(5400), reader.duration("t"));
        assertEquals(Long.valueOf(8192), reader.size("m", true));
        assertNull(reader.duration("bad"));
        SectionCheck check = reader.check();
        assertEquals("1.5h", check.section().get("t"));
        assertEquals("8gb", check.section().get("m"));
        assertEquals("bad: expected a positive duration, got \"0s\"", check.problems().get(0).toString());
    }

    @Test
    public void problemPathsNestUnderTheirParent() {
        assertEquals("trainingService.machineList[1].port",
                new ConfigProblem("machineList[1].port", "x").under("trainingService").path());
        assertEquals("trainingService[0]", new ConfigProblem("[0]", "x").under("trainingService").path());
    }
}
