package nni.ts.local.internal;

import java.nio.file.Path;
import java.util.Map;

import nni.api.config.ConfigReader;
import nni.api.config.SectionCheck;

/** NNI's {@code LocalConfig}: the rules of a {@code platform: local} section. */
final class LocalSection {

    private LocalSection() {
    }

    static SectionCheck check(Map<String, Object> section, Path baseDirectory) {
        ConfigReader reader = ConfigReader.of(section, baseDirectory);
        reader.trainingServiceFields(true);
        Boolean useActiveGpu = reader.bool("useActiveGpu", null);
        Integer perGpu = reader.integer("maxTrialNumberPerGpu", 1, 1, Integer.MAX_VALUE);
        reader.indices("gpuIndices");
        reader.bool("reuseMode", false);
        Object gpus = reader.canonical("trialGpuNumber");
        if (gpus instanceof Integer number && number > 0 && useActiveGpu == null) {
            reader.problem("useActiveGpu", "useActiveGpu is required (true or false) when trialGpuNumber > 0: "
                    + "whether trials may use GPUs other processes are using");
        }
        if (perGpu != null && perGpu != 1 && (gpus == null || Integer.valueOf(0).equals(gpus))) {
            reader.problem("maxTrialNumberPerGpu", "expected 1 unless trialGpuNumber is set and not 0, got " + perGpu);
        }
        // NNI ignores the manager IP on this machine
        reader.set("nniManagerIp", null);
        return reader.check();
    }
}
