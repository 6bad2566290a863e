package nni.ts.adaptdl.internal;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Pattern;

import nni.api.config.ConfigReader;
import nni.api.config.SectionCheck;

/**
 * The rules of a {@code platform: adl} section, NNI's AdaptDL {@code trial} fields of v1 files
 * (NNI never converted them to v2; the v1 converter here moves them into the section):
 * {@code trialCommand}, {@code trialCodeDirectory} (NNI's {@code codeDir}: the code's folder in the
 * image, {@code .} for its working directory; nothing is uploaded), {@code trialGpuNumber},
 * {@code image}, {@code namespace}, {@code imagePullSecrets}, {@code nfs}, {@code adaptive},
 * {@code checkpoint}, {@code cpuNum}, {@code memorySize} (a Kubernetes quantity such as {@code 8Gi})
 * and {@code nniManagerIp}, which NNI requires for AdaptDL. {@code reuseMode} (default false: NNI
 * runs AdaptDL one job per trial) runs trials in long-lived one-replica jobs.
 *
 * <p>The canonical section names the code's folder {@code codeDirectory}, kept as written, and has no
 * {@code trialCodeDirectory}: the manager then ships no code.
 */
final class AdaptdlSection {

    /** A Kubernetes resource quantity ({@code 1Gi}, {@code 512Mi}, {@code 2}, {@code 500m}). */
    static final Pattern QUANTITY = Pattern.compile("[0-9]+(\\.[0-9]+)?([EPTGMK]i|[EPTGMk]|m)?");

    private AdaptdlSection() {
    }

    static SectionCheck check(Map<String, Object> section, Path baseDirectory) {
        ConfigReader reader = ConfigReader.of(section, baseDirectory);
        reader.string("platform");
        reader.requiredString("trialCommand");
        String codeDirectory = reader.string("trialCodeDirectory", ".");
        reader.requiredInteger("trialGpuNumber", 0, 99999);
        if (!reader.has("nniManagerIp")) {
            reader.problem("nniManagerIp", "nniManagerIp is required with AdaptDL: the address its pods call the manager back at");
        }
        reader.string("nniManagerIp");
        reader.bool("debug", false);
        reader.requiredString("image");
        reader.string("namespace", "default");
        for (ConfigReader secret : reader.objects("imagePullSecrets", false)) {
            secret.requiredString("name");
        }
        ConfigReader nfs = reader.object("nfs", false);
        if (nfs != null) {
            nfs.requiredString("server");
            nfs.requiredString("path");
            nfs.requiredString("containerMountPath");
        }
        reader.bool("adaptive", false);
        ConfigReader checkpoint = reader.object("checkpoint", false);
        if (checkpoint != null) {
            checkpoint.requiredString("storageClass");
            quantity(checkpoint, "storageSize", true);
        }
        reader.integer("cpuNum", null, 1, Integer.MAX_VALUE);
        quantity(reader, "memorySize", false);
        reader.bool("reuseMode", false);
        SectionCheck check = reader.check();
        Map<String, Object> canonical = new LinkedHashMap<>(check.section());
        canonical.remove("trialCodeDirectory");
        canonical.put("codeDirectory", codeDirectory == null ? "." : codeDirectory);
        return new SectionCheck(canonical, check.problems(), check.secrets());
    }

    private static void quantity(ConfigReader reader, String key, boolean required) {
        Object value = reader.peek(key);
        String text = value == null ? null : String.valueOf(value);
        if (value instanceof Number) {
            reader.integer(key, null, 0, Long.MAX_VALUE);
            return;
        }
        String read = required ? reader.requiredString(key) : reader.string(key);
        if (read != null && !QUANTITY.matcher(read.strip()).matches()) {
            reader.problem(key, "expected a Kubernetes quantity such as 1Gi, 512Mi or 2, got \"" + text + "\"");
        }
    }
}
