package nni.ts.remote.internal;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import nni.api.config.ConfigReader;
import nni.api.config.SectionCheck;
import nni.ts.remote.internal.ssh.SshTarget;

/**
 * NNI's {@code RemoteConfig} and {@code RemoteMachineConfig}: the rules of a {@code platform: remote}
 * section, and the settings a session reads back from the canonical section.
 */
final class RemoteSection {

    /** One machine of {@code machineList}. */
    record Machine(SshTarget target, boolean useActiveGpu, int maxTrialNumberPerGpu, List<Integer> gpuIndices) {
    }

    /** What a session needs from a checked section. */
    record Settings(List<Machine> machines, boolean reuseMode, int trialGpuNumber, String nniManagerIp, Path codeDirectory) {
    }

    private RemoteSection() {
    }

    static SectionCheck check(Map<String, Object> section, Path baseDirectory) {
        ConfigReader reader = ConfigReader.of(section, baseDirectory);
        reader.trainingServiceFields(true);
        reader.bool("reuseMode", false);
        Object gpus = reader.canonical("trialGpuNumber");
        for (ConfigReader machine : reader.objects("machineList", true)) {
            machine.requiredString("host");
            machine.port("port", 22);
            machine.requiredString("user");
            String password = machine.secret("password", false);
            Path keyFile = machine.path("sshKeyFile", "~/.ssh/id_rsa", false);
            machine.secret("sshPassphrase", false);
            machine.bool("useActiveGpu", false);
            Integer perGpu = machine.integer("maxTrialNumberPerGpu", 1, 1, Integer.MAX_VALUE);
            machine.indices("gpuIndices");
            machine.string("pythonPath");
            if (password != null || machine.has("password")) {
                // as NNI: a password wins over a key file
                machine.set("sshKeyFile", null);
            } else if (keyFile != null && !Files.isRegularFile(keyFile)) {
                machine.problem(machine.has("sshKeyFile") ? "sshKeyFile" : "",
                        "expected a password or an existing SSH key file, and there is no file \"" + keyFile + "\"");
            }
            if (perGpu != null && perGpu != 1 && gpus == null) {
                machine.problem("maxTrialNumberPerGpu", "expected 1 unless trialGpuNumber is set, got " + perGpu);
            }
        }
        return reader.check();
    }

    /** Reads a section {@link #check} accepted. */
    @SuppressWarnings("unchecked")
    static Settings settings(Map<String, Object> section) {
        List<Machine> machines = new ArrayList<>();
        for (Object entry : (List<Object>) section.get("machineList")) {
            Map<String, Object> m = (Map<String, Object>) entry;
            Object key = m.get("sshKeyFile");
            SshTarget target = new SshTarget((String) m.get("host"), number(m.get("port"), 22), (String) m.get("user"),
                    (String) m.get("password"), key == null ? null : Path.of(key.toString()), (String) m.get("sshPassphrase"),
                    (String) m.get("pythonPath"));
            List<Integer> indices = m.get("gpuIndices") instanceof List<?> list
                    ? list.stream().map(i -> ((Number) i).intValue()).toList() : null;
            machines.add(new Machine(target, Boolean.TRUE.equals(m.get("useActiveGpu")), number(m.get("maxTrialNumberPerGpu"), 1), indices));
        }
        Object code = section.get("trialCodeDirectory");
        return new Settings(machines, !Boolean.FALSE.equals(section.get("reuseMode")), number(section.get("trialGpuNumber"), 0),
                (String) section.get("nniManagerIp"), Path.of(code == null ? "." : code.toString()).toAbsolutePath().normalize());
    }

    private static int number(Object value, int fallback) {
        return value instanceof Number n ? n.intValue() : fallback;
    }
}
