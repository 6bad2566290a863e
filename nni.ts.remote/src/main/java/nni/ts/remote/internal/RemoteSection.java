package nni.ts.remote.internal;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import nni.api.config.ConfigReader;
import nni.api.config.SectionCheck;

/** NNI's {@code RemoteConfig} and {@code RemoteMachineConfig}: the rules of a {@code platform: remote} section. */
final class RemoteSection {

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
}
