package nni.ts.remote.internal;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import nni.api.config.SectionCheck;

public class RemoteSectionTest {

    @Rule
    public TemporaryFolder temporary = new TemporaryFolder();

    private Map<String, Object> section(Object... machineFields) {
        Map<String, Object> machine = new LinkedHashMap<>();
        for (int i = 0; i < machineFields.length; i += 2) {
            machine.put((String) machineFields[i], machineFields[i + 1]);
        }
        Map<String, Object> section = new LinkedHashMap<>();
        section.put("platform", "remote");
        section.put("trialCommand", "python3 trial.py");
        section.put("trialCodeDirectory", temporary.getRoot().toString());
        section.put("machineList", List.of(machine));
        return section;
    }

    @Test
    public void passwordMachineGetsNnisDefaultsAndTheKeyFileIsDropped() {
        SectionCheck check = RemoteSection.check(section("host", "127.0.0.2", "user", "u", "password", "s3cret", "ssh_key_file", "/nope"),
                temporary.getRoot().toPath());
        assertEquals(List.of(), check.problems());
        RemoteSection.Settings settings = RemoteSection.settings(check.section());
        assertFalse(settings.reuseMode()); // NNI v3.0's default
        RemoteSection.Machine machine = settings.machines().get(0);
        assertEquals(22, machine.target().port());
        assertEquals(null, machine.target().keyFile());
        assertEquals(1, machine.maxTrialNumberPerGpu());
        assertFalse(machine.target().toString().contains("s3cret"));
    }

    @Test
    public void keyMachineNeedsAnExistingKeyAndProblemsNameTheFieldWithoutSecrets() throws Exception {
        Path key = Files.writeString(temporary.getRoot().toPath().resolve("id"), "k");
        SectionCheck ok = RemoteSection.check(section("host", "h", "user", "u", "sshKeyFile", "id", "sshPassphrase", "pp",
                "gpuIndices", "0,1", "pythonPath", "/opt/py/bin"), temporary.getRoot().toPath());
        assertEquals(List.of(), ok.problems());
        RemoteSection.Machine machine = RemoteSection.settings(ok.section()).machines().get(0);
        assertEquals(key.toRealPath(), machine.target().keyFile());
        assertEquals(List.of(0, 1), machine.gpuIndices());
        SectionCheck bad = RemoteSection.check(section("host", "h", "user", "u", "sshKeyFile", "missing", "port", 70000,
                "sshPassphrase", 12345, "maxTrialNumberPerGpu", 2, "colour", "red"), temporary.getRoot().toPath());
        String problems = bad.problems().toString();
        assertTrue(problems, problems.contains("machineList[0].sshKeyFile"));
        assertTrue(problems, problems.contains("machineList[0].port"));
        assertTrue(problems, problems.contains("machineList[0].maxTrialNumberPerGpu"));
        assertTrue(problems, problems.contains("machineList[0].colour"));
        assertTrue(problems, problems.contains("machineList[0].sshPassphrase"));
        assertFalse(problems, problems.contains("12345"));
    }

    @Test
    public void machineListIsRequired() {
        Map<String, Object> section = section();
        section.remove("machineList");
        assertTrue(RemoteSection.check(section, temporary.getRoot().toPath()).problems().toString().contains("machineList"));
    }
}
