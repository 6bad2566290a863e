package nni.ts.adaptdl.internal;

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
 * NNI's {@code platform: adl} (v1 {@code trainingServicePlatform: adl}): trials run by trial keepers
 * in the pods of AdaptDL jobs ({@link AdaptdlJobs}), one job per trial as in NNI, or with
 * {@code reuseMode: true} one per environment. The code is the image's; the keeper reaches the pods
 * through each job's ConfigMap. Configured through PID {@code nni.ts.adaptdl}
 * ({@link KubernetesPlatformConfig}; {@code nfs.mount.path} does not apply).
 */
@Component(service = TrainingPlatform.class, configurationPid = "nni.ts.adaptdl", configurationPolicy = ConfigurationPolicy.OPTIONAL)
@Platform("adl")
@Designate(ocd = KubernetesPlatformConfig.class)
public class AdaptdlPlatform implements TrainingPlatform {

    private final KubernetesPlatformConfig config;
    private final KeeperSessions keeperSessions;

    @Activate
    public AdaptdlPlatform(KubernetesPlatformConfig config, @Reference KeeperSessions keeperSessions) {
        this.config = config;
        this.keeperSessions = keeperSessions;
    }

    @Override
    public SectionCheck checkSection(Map<String, Object> section, Path baseDirectory) {
        return AdaptdlSection.check(section, baseDirectory);
    }

    @Override
    public TrainingSession open(SessionContext context) throws PlatformException {
        return KubernetesSessions.open(context, keeperSessions, KubernetesSessions.Settings.of(config),
                new AdaptdlJobs(context.section()), false, false);
    }
}
