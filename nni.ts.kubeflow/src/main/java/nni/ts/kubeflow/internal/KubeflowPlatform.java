package nni.ts.kubeflow.internal;

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
 * NNI's {@code platform: kubeflow}: runs trials as Kubeflow TFJob or PyTorchJob objects on Kubernetes. This version checks the
 * experiment section by NNI's rules ({@link KubeflowSection}) so that files for this platform validate;
 * running trials here is not available yet, and {@link #open} says so.
 * Configured through PID {@code nni.ts.kubeflow}.
 */
@Component(service = TrainingPlatform.class, configurationPid = "nni.ts.kubeflow",
        // lists it as a platform that validates its section only (nni:platforms, the web UI)
        property = "nni.platform.checks.only=true",
        configurationPolicy = ConfigurationPolicy.OPTIONAL)
@Platform("kubeflow")
@Designate(ocd = KubeflowPlatform.Config.class)
public class KubeflowPlatform implements TrainingPlatform {

    @ObjectClassDefinition(name = "NNI kubeflow platform", description = "Trials as Kubeflow TFJobs/PyTorchJobs")
    public @interface Config {
    }

    @Activate
    public KubeflowPlatform(Config config) {
        // nothing to configure until trials can run here
    }

    @Override
    public SectionCheck checkSection(Map<String, Object> section, Path baseDirectory) {
        return KubeflowSection.check(section, baseDirectory);
    }

    @Override
    public TrainingSession open(SessionContext context) throws PlatformException {
        throw new PlatformException("running trials on the kubeflow platform is not available in this version of "
                + "nni-osgi: its experiment section can be validated, but no trial can be started");
    }
}
