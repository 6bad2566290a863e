package nni.ts.kubeflow.internal;

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
 * NNI's {@code platform: kubeflow}: trials run by trial keepers in the pods of Kubeflow TFJobs or
 * PyTorchJobs ({@link KubeflowJobs}), one job per trial or, in {@code reuseMode} (the default), one
 * per environment; the keeper and the code reach the pods through the experiment's share (NFS or Azure Files).
 * Configured through PID {@code nni.ts.kubeflow} ({@link KubernetesPlatformConfig}).
 */
@Component(service = TrainingPlatform.class, configurationPid = KubeflowPlatform.PID,
        configurationPolicy = ConfigurationPolicy.OPTIONAL)
@Platform("kubeflow")
@Designate(ocd = KubernetesPlatformConfig.class)
public class KubeflowPlatform extends KubernetesPlatform {

    static final String PID = "nni.ts.kubeflow";

    @Activate
    public KubeflowPlatform(KubernetesPlatformConfig config, @Reference KeeperSessions keeperSessions, BundleContext context) {
        super(config, keeperSessions, KubernetesSessionSettings.of(PID), context.getProperty(HTTP_HOST));
    }

    /** A platform outside a framework (section checks in tests): its port counts as bound to every address. */
    public KubeflowPlatform(KubernetesPlatformConfig config, KeeperSessions keeperSessions) {
        super(config, keeperSessions, KubernetesSessionSettings.of(PID), null);
    }

    @Override
    public SectionCheck checkSection(Map<String, Object> section, Path baseDirectory) {
        return KubeflowSection.check(section, baseDirectory);
    }

    @Override
    protected JobKind jobs(Map<String, Object> section) {
        return new KubeflowJobs(section);
    }
}
