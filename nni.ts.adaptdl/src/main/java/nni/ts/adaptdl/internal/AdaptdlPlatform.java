package nni.ts.adaptdl.internal;

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
 * NNI's {@code platform: adl} (v1 {@code trainingServicePlatform: adl}): trials run by trial keepers
 * in the pods of AdaptDL jobs ({@link AdaptdlJobs}), one job per trial as in NNI, or with
 * {@code reuseMode: true} one per environment. The code is the image's; the keeper reaches the pods
 * through each job's ConfigMap. Configured through PID {@code nni.ts.adaptdl}
 * ({@link KubernetesPlatformConfig}; {@code nfs.mount.path} is where the section's {@code nfs} is mounted
 * here, for {@code keeper.transport = files}: AdaptDL's pods have no NNI share, the channel folders are on that volume).
 */
@Component(service = TrainingPlatform.class, configurationPid = AdaptdlPlatform.PID,
        configurationPolicy = ConfigurationPolicy.OPTIONAL)
@Platform("adl")
@Designate(ocd = KubernetesPlatformConfig.class)
public class AdaptdlPlatform extends KubernetesPlatform {

    static final String PID = "nni.ts.adaptdl";

    @Activate
    public AdaptdlPlatform(KubernetesPlatformConfig config, @Reference KeeperSessions keeperSessions, BundleContext context) {
        super(config, keeperSessions, KubernetesSessionSettings.of(PID).withoutShare().jobPerTrialByDefault(), context.getProperty(HTTP_HOST));
    }

    /** A platform outside a framework (section checks in tests): its port counts as bound to every address. */
    public AdaptdlPlatform(KubernetesPlatformConfig config, KeeperSessions keeperSessions) {
        super(config, keeperSessions, KubernetesSessionSettings.of(PID).withoutShare().jobPerTrialByDefault(), null);
    }

    @Override
    public SectionCheck checkSection(Map<String, Object> section, Path baseDirectory) {
        return AdaptdlSection.check(section, baseDirectory);
    }

    @Override
    protected JobKind jobs(Map<String, Object> section) {
        return new AdaptdlJobs(section);
    }
}
