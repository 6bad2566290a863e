package nni.ts.dlc.internal;

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
 * NNI's {@code platform: dlc}: runs trials as Alibaba PAI-DLC jobs. This version checks the
 * experiment section by NNI's rules ({@link DlcSection}) so that files for this platform validate;
 * running trials here is not available yet, and {@link #open} says so.
 * Configured through PID {@code nni.ts.dlc}.
 */
@Component(service = TrainingPlatform.class, configurationPid = "nni.ts.dlc",
        // lists it as a platform that validates its section only (nni:platforms, the web UI)
        property = "nni.platform.checks.only=true",
        configurationPolicy = ConfigurationPolicy.OPTIONAL)
@Platform("dlc")
@Designate(ocd = DlcPlatform.Config.class)
public class DlcPlatform implements TrainingPlatform {

    @ObjectClassDefinition(name = "NNI dlc platform", description = "Trials as PAI-DLC jobs")
    public @interface Config {
    }

    @Activate
    public DlcPlatform(Config config) {
        // nothing to configure until trials can run here
    }

    @Override
    public SectionCheck checkSection(Map<String, Object> section, Path baseDirectory) {
        return DlcSection.check(section, baseDirectory);
    }

    @Override
    public TrainingSession open(SessionContext context) throws PlatformException {
        throw new PlatformException("running trials on the dlc platform is not available in this version of "
                + "nni-osgi: its experiment section can be validated, but no trial can be started");
    }
}
