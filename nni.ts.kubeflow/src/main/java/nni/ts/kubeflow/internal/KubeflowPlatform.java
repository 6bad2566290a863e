package nni.ts.kubeflow.internal;

import java.nio.file.Path;
import java.util.Map;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.metatype.annotations.Designate;

import nni.api.config.SectionCheck;
import nni.api.environment.KeeperSessions;
import nni.api.platform.Platform;
import nni.api.platform.PlatformException;
import nni.api.platform.SessionContext;
import nni.api.platform.TrainingPlatform;
import nni.api.platform.TrainingSession;
import nni.ts.k8s.KubernetesPlatformConfig;
import nni.ts.k8s.KubernetesSessions;

/**
 * NNI's {@code platform: kubeflow}: trials run by trial keepers in the pods of Kubeflow TFJobs or
 * PyTorchJobs ({@link KubeflowJobs}), one job per trial or, in {@code reuseMode} (the default), one
 * per environment; the keeper and the code reach the pods through the experiment's share (NFS or Azure Files).
 * Configured through PID {@code nni.ts.kubeflow} ({@link KubernetesPlatformConfig}).
 */
@Component(service = TrainingPlatform.class, configurationPid = "nni.ts.kubeflow", configurationPolicy = ConfigurationPolicy.OPTIONAL)
@Platform("kubeflow")
@Designate(ocd = KubernetesPlatformConfig.class)
public class KubeflowPlatform implements TrainingPlatform {

    private final KubernetesPlatformConfig config;
    private final KeeperSessions keeperSessions;

    @Activate
    public KubeflowPlatform(KubernetesPlatformConfig config, @Reference KeeperSessions keeperSessions) {
        this.config = config;
        this.keeperSessions = keeperSessions;
    }

    @Override
    public SectionCheck checkSection(Map<String, Object> section, Path baseDirectory) {
        return KubeflowSection.check(section, baseDirectory);
    }

    @Override
    public TrainingSession open(SessionContext context) throws PlatformException {
        return KubernetesSessions.open(context, keeperSessions, KubernetesSessions.Settings.of(config),
                new KubeflowJobs(context.section()), true, true);
    }
}
