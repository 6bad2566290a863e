package nni.ts.frameworkcontroller.internal;

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
 * NNI's {@code platform: frameworkcontroller}: runs trials as FrameworkController Framework objects on Kubernetes. This version checks the
 * experiment section by NNI's rules ({@link FrameworkControllerSection}) so that files for this platform validate;
 * running trials here is not available yet, and {@link #open} says so.
 * Configured through PID {@code nni.ts.frameworkcontroller}.
 */
@Component(service = TrainingPlatform.class, configurationPid = "nni.ts.frameworkcontroller",
        // lists it as a platform that validates its section only (nni:platforms, the web UI)
        property = "nni.platform.checks.only=true",
        configurationPolicy = ConfigurationPolicy.OPTIONAL)
@Platform("frameworkcontroller")
@Designate(ocd = FrameworkControllerPlatform.Config.class)
public class FrameworkControllerPlatform implements TrainingPlatform {

    @ObjectClassDefinition(name = "NNI frameworkcontroller platform", description = "Trials as FrameworkController Frameworks")
    public @interface Config {
    }

    @Activate
    public FrameworkControllerPlatform(Config config) {
        // nothing to configure until trials can run here
    }

    @Override
    public SectionCheck checkSection(Map<String, Object> section, Path baseDirectory) {
        return FrameworkControllerSection.check(section, baseDirectory);
    }

    @Override
    public TrainingSession open(SessionContext context) throws PlatformException {
        throw new PlatformException("running trials on the frameworkcontroller platform is not available in this version of "
                + "nni-osgi: its experiment section can be validated, but no trial can be started");
    }
}
