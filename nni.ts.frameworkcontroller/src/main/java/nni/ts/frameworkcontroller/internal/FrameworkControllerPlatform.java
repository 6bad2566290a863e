package nni.ts.frameworkcontroller.internal;

import java.nio.file.Path;
import java.util.Map;

import org.osgi.framework.BundleContext;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.metatype.annotations.Designate;

import nni.api.config.SectionCheck;
import nni.api.environment.KeeperSessions;
import nni.api.platform.Platform;
import nni.api.platform.TrainingPlatform;
import nni.ts.k8s.JobKind;
import nni.ts.k8s.KubernetesPlatform;
import nni.ts.k8s.KubernetesPlatformConfig;
import nni.ts.k8s.KubernetesSessionSettings;

/**
 * NNI's {@code platform: frameworkcontroller}: trials run by trial keepers in the pods of
 * FrameworkController Frameworks ({@link FrameworkJobs}), one Framework per trial or, in
 * {@code reuseMode} (the default), one per environment; the keeper and the code reach the pods
 * through the experiment's share (NFS or Azure Files).
 * Configured through PID {@code nni.ts.frameworkcontroller} ({@link KubernetesPlatformConfig}).
 */
@Component(service = TrainingPlatform.class, configurationPid = FrameworkControllerPlatform.PID,
        configurationPolicy = ConfigurationPolicy.OPTIONAL)
@Platform("frameworkcontroller")
@Designate(ocd = KubernetesPlatformConfig.class)
public class FrameworkControllerPlatform extends KubernetesPlatform {

    static final String PID = "nni.ts.frameworkcontroller";

    @Activate
    public FrameworkControllerPlatform(KubernetesPlatformConfig config, @Reference KeeperSessions keeperSessions, BundleContext context) {
        super(config, keeperSessions, KubernetesSessionSettings.of(PID), context.getProperty(HTTP_HOST));
    }

    /** A platform outside a framework (section checks in tests): its port counts as bound to every address. */
    public FrameworkControllerPlatform(KubernetesPlatformConfig config, KeeperSessions keeperSessions) {
        super(config, keeperSessions, KubernetesSessionSettings.of(PID), null);
    }

    @Override
    public SectionCheck checkSection(Map<String, Object> section, Path baseDirectory) {
        return FrameworkControllerSection.check(section, baseDirectory);
    }

    @Override
    protected JobKind jobs(Map<String, Object> section) {
        return new FrameworkJobs(section);
    }
}
