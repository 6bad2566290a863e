package nni.ts.openpai.internal;

import java.nio.file.Path;
import java.util.Map;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

import nni.api.config.SectionCheck;
import nni.api.platform.Platform;
import nni.api.platform.PlatformException;
import nni.api.platform.SessionContext;
import nni.api.platform.TrainingPlatform;
import nni.api.platform.TrainingSession;

/**
 * NNI's {@code platform: openpai}: runs trials as jobs of an OpenPAI cluster. This version checks the
 * experiment section by NNI's rules ({@link OpenpaiSection}) so that files for this platform validate;
 * running trials here is not available yet, and {@link #open} says so.
 * Configured through PID {@code nni.ts.openpai}.
 */
@Component(service = TrainingPlatform.class, configurationPid = "nni.ts.openpai",
        configurationPolicy = ConfigurationPolicy.OPTIONAL)
@Platform("openpai")
@Designate(ocd = OpenpaiPlatform.Config.class)
public class OpenpaiPlatform implements TrainingPlatform {

    @ObjectClassDefinition(name = "NNI openpai platform", description = "Trials as OpenPAI jobs")
    public @interface Config {
    }

    @Activate
    public OpenpaiPlatform(Config config) {
        // nothing to configure until trials can run here
    }

    @Override
    public SectionCheck checkSection(Map<String, Object> section, Path baseDirectory) {
        return OpenpaiSection.check(section, baseDirectory);
    }

    @Override
    public TrainingSession open(SessionContext context) throws PlatformException {
        throw new PlatformException("running trials on the openpai platform is not available in this version of "
                + "nni-osgi: its experiment section can be validated, but no trial can be started");
    }
}
