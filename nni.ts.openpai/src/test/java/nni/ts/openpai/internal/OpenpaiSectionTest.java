package nni.ts.openpai.internal;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import nni.api.config.ConfigProblem;
import nni.api.config.SectionCheck;

/** The rules of a {@code platform: openpai} section, and the settings a session reads from it. */
public class OpenpaiSectionTest {

    @Rule
    public TemporaryFolder folder = new TemporaryFolder();

    private Map<String, Object> section() {
        Map<String, Object> section = new LinkedHashMap<>();
        section.put("platform", "openpai");
        section.put("trialCommand", "python3 trial.py");
        section.put("trialGpuNumber", 1);
        section.put("host", "pai.example.com");
        section.put("username", "alice");
        section.put("token", "jwt-secret");
        section.put("trialCpuNumber", 2);
        section.put("trialMemorySize", "8gb");
        section.put("storageConfigName", "confignfs-data");
        section.put("localStorageMountPoint", folder.getRoot().toString());
        section.put("containerStorageMountPoint", "/mnt/confignfs-data/");
        section.put("virtualCluster", null);
        return section;
    }

    private static List<String> problems(SectionCheck check) {
        return check.problems().stream().map(ConfigProblem::toString).toList();
    }

    @Test
    public void aMinimalSectionGetsNnisDefaultsAndHttps() throws Exception {
        SectionCheck check = OpenpaiSection.check(section(), folder.getRoot().toPath());
        assertEquals(List.of(), problems(check));
        assertEquals(List.of("token"), check.secrets());
        OpenpaiSection.Settings settings = OpenpaiSection.settings(check.section());
        assertEquals("https://pai.example.com", settings.host());
        assertEquals(8192, settings.memoryMB());
        assertEquals("msranni/nni:latest", settings.dockerImage());
        assertEquals(null, settings.virtualCluster());
        assertEquals("/mnt/confignfs-data", settings.containerStorageMountPoint());
        assertTrue(settings.reuseMode());
        assertEquals("OpenPAI at https://pai.example.com (user alice)", settings.service());
    }

    @Test
    public void anEmbeddedOrFileProtocolNeedsTaskRolesWithCommandsAndNotBoth() throws Exception {
        Map<String, Object> section = section();
        section.put("openpaiConfig", Map.of("taskRoles", Map.of("worker", Map.of("commands", List.of()))));
        assertEquals(List.of("openpaiConfig: taskRoles.worker.commands: expected a list of command strings"),
                problems(OpenpaiSection.check(section, folder.getRoot().toPath())));

        Path file = folder.newFile("job.yml").toPath();
        Files.writeString(file, "taskRoles:\n  worker:\n    instances: 2\n    commands: [python3 a.py, echo done]\n");
        section.remove("openpaiConfig");
        section.put("openpaiConfigFile", "job.yml");
        SectionCheck check = OpenpaiSection.check(section, folder.getRoot().toPath());
        assertEquals(List.of(), problems(check));
        assertEquals(Map.of("worker", Map.of("instances", 2, "commands", List.of("python3 a.py", "echo done"))),
                OpenpaiSection.settings(check.section()).openpaiConfig().get("taskRoles"));

        Files.writeString(file, "taskRoles: [\n");
        assertTrue(problems(OpenpaiSection.check(section, folder.getRoot().toPath())).get(0)
                .startsWith("openpaiConfigFile: cannot read " + file + " as a YAML job protocol"));
        section.put("openpaiConfig", Map.of("taskRoles", Map.of()));
        assertEquals(List.of("openpaiConfigFile: give either openpaiConfig or openpaiConfigFile, not both"),
                problems(OpenpaiSection.check(section, folder.getRoot().toPath())));
    }

    @Test
    public void missingAndWrongFieldsAreNamed() {
        Map<String, Object> section = section();
        section.remove("trialGpuNumber");
        section.remove("username");
        section.put("containerStorageMountPoint", "mnt/data");
        section.put("token", 12345);
        section.remove("virtualCluster");
        List<String> problems = problems(OpenpaiSection.check(section, folder.getRoot().toPath()));
        assertTrue(problems.toString(), problems.contains("trialGpuNumber: trialGpuNumber is required on OpenPAI (at the top level or here)"));
        assertTrue(problems.toString(), problems.contains("username: username is required"));
        assertTrue(problems.toString(), problems.contains("containerStorageMountPoint: expected an absolute path in the container, got \"mnt/data\""));
        assertTrue(problems.toString(), problems.contains("token: expected a string, got a number"));
        // NNI 3.0: "OpenpaiConfig: virtual_cluster is not set" (null is the way to ask for the default cluster)
        assertTrue(problems.toString(), problems.contains(
                "virtualCluster: virtualCluster is not set: give the virtual cluster's name, or null for OpenPAI's default"));
    }
}
