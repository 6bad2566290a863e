package nni.ts.remote.internal;

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
 * NNI's {@code platform: remote}: runs trials on remote machines over SSH. This version checks the
 * experiment section by NNI's rules ({@link RemoteSection}) so that files for this platform validate;
 * running trials here is not available yet, and {@link #open} says so. The SSH implementation comes in a later version; this bundle checks the section.
 * Configured through PID {@code nni.ts.remote}.
 */
@Component(service = TrainingPlatform.class, configurationPid = "nni.ts.remote",
        configurationPolicy = ConfigurationPolicy.OPTIONAL)
@Platform("remote")
@Designate(ocd = RemotePlatform.Config.class)
public class RemotePlatform implements TrainingPlatform {

    @ObjectClassDefinition(name = "NNI remote platform", description = "Trials on machines reached over SSH")
    public @interface Config {
    }

    @Activate
    public RemotePlatform(Config config) {
        // nothing to configure until trials can run here
    }

    @Override
    public SectionCheck checkSection(Map<String, Object> section, Path baseDirectory) {
        return RemoteSection.check(section, baseDirectory);
    }

    @Override
    public TrainingSession open(SessionContext context) throws PlatformException {
        throw new PlatformException("running trials on the remote platform is not available in this version of "
                + "nni-osgi: its experiment section can be validated, but no trial can be started");
    }
}
