package nni.ts.local.internal;

import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

import nni.api.platform.TrainingPlatform;
import nni.api.testkit.ConformanceTrial;
import nni.api.testkit.PlatformContract;

/** The local platform keeps the platform contract of nni.api.testkit, with real trial processes. */
public class LocalConformanceTest extends PlatformContract {

    private final LocalPlatform platform = new LocalPlatform(config());

    /** The component's defaults, with a short kill grace and no SDK probe (the trials are shell scripts). */
    private static LocalPlatform.Config config() {
        return (LocalPlatform.Config) Proxy.newProxyInstance(LocalPlatform.Config.class.getClassLoader(),
                new Class<?>[] {LocalPlatform.Config.class}, (proxy, method, args) -> switch (method.getName()) {
                    case "kill_grace_seconds" -> 1;
                    case "python_sdk" -> "never";
                    default -> method.getDefaultValue();
                });
    }

    @Override
    protected TrainingPlatform platform() {
        return platform;
    }

    @Override
    protected Map<String, Object> section(Path codeDirectory) {
        Map<String, Object> section = new LinkedHashMap<>();
        section.put("platform", "local");
        section.put("trialCommand", ConformanceTrial.COMMAND);
        section.put("trialCodeDirectory", codeDirectory.toString());
        return section;
    }

    @Override
    protected Path scratchDirectory() {
        return Path.of("target", "conformance").toAbsolutePath();
    }
}
