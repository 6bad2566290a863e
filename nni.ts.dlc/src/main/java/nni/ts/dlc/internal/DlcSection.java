package nni.ts.dlc.internal;

import java.nio.file.Path;
import java.util.Map;

import nni.api.config.ConfigReader;
import nni.api.config.SectionCheck;

/** NNI's {@code DlcConfig} (Alibaba PAI-DLC): the rules of a {@code platform: dlc} section. */
final class DlcSection {

    private DlcSection() {
    }

    static SectionCheck check(Map<String, Object> section, Path baseDirectory) {
        ConfigReader reader = ConfigReader.of(section, baseDirectory);
        reader.trainingServiceFields(true);
        reader.string("type", "Worker");
        reader.requiredString("image");
        reader.oneOf("jobType", "TFJob", false, "TFJob", "PyTorchJob");
        reader.requiredInteger("podCount", 1, Integer.MAX_VALUE);
        reader.requiredString("ecsSpec");
        reader.requiredString("region");
        reader.requiredString("workspaceId");
        reader.requiredString("nasDataSourceId");
        reader.string("ossDataSourceId");
        reader.requiredString("accessKeyId");
        reader.secret("accessKeySecret", true);
        reader.requiredString("localStorageMountPoint");
        reader.requiredString("containerStorageMountPoint");
        return reader.check();
    }
}
