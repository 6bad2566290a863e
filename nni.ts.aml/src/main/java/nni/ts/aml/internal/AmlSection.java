package nni.ts.aml.internal;

import java.nio.file.Path;
import java.util.Map;

import nni.api.config.ConfigReader;
import nni.api.config.SectionCheck;

/** NNI's {@code AmlConfig}: the rules of a {@code platform: aml} section. */
final class AmlSection {

    private AmlSection() {
    }

    static SectionCheck check(Map<String, Object> section, Path baseDirectory) {
        ConfigReader reader = ConfigReader.of(section, baseDirectory);
        reader.trainingServiceFields(true);
        reader.requiredString("subscriptionId");
        reader.requiredString("resourceGroup");
        reader.requiredString("workspaceName");
        reader.requiredString("computeTarget");
        reader.string("dockerImage", "msranni/nni:latest");
        reader.integer("maxTrialNumberPerGpu", 1, 1, Integer.MAX_VALUE);
        return reader.check();
    }
}
