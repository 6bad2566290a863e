package nni.example.echo.internal;

import java.lang.annotation.Annotation;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import nni.api.platform.TrainingPlatform;
import nni.api.testkit.ConformanceTrial;
import nni.api.testkit.PlatformContract;

/**
 * The echo platform keeps the platform contract, tested on the plain class without a framework
 * (nni.itest's EchoConformanceIT runs the same contract on the bundle inside the runtime).
 */
public class EchoPlatformContractTest extends PlatformContract {

    @Override
    protected TrainingPlatform platform() {
        return new EchoPlatform(new EchoPlatform.Config() {
            @Override
            public double final_value() {
                return 0.5;
            }

            @Override
            public Class<? extends Annotation> annotationType() {
                return EchoPlatform.Config.class;
            }
        });
    }

    @Override
    protected Map<String, Object> section(Path codeDirectory) {
        Map<String, Object> section = new LinkedHashMap<>();
        section.put("platform", "echo");
        section.put("trialCommand", ConformanceTrial.COMMAND);
        section.put("trialCodeDirectory", codeDirectory.toString());
        section.put("echoToken", "not-for-your-eyes");
        return section;
    }

    @Override
    protected List<String> secretPaths() {
        return List.of("echoToken");
    }

    /** Echo reports one FINAL metric per finished trial, whatever the trial would have written. */
    @Override
    protected int metricsPerFinishingTrial() {
        return 1;
    }
}
