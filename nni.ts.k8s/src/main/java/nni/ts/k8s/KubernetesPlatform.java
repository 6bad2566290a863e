package nni.ts.k8s;

import java.util.Map;

import nni.api.environment.KeeperSessions;
import nni.api.platform.PlatformException;
import nni.api.platform.SessionContext;
import nni.api.platform.TrainingPlatform;
import nni.api.platform.TrainingSession;

/**
 * A Kubernetes platform component (kubeflow, frameworkcontroller, adl): its sessions open the same way
 * for every operator ({@link KubernetesSessions}), from the component's {@link KubernetesPlatformConfig}.
 * A platform adds its section's check, its jobs, and how its sessions differ
 * ({@link KubernetesSessionSettings}); it stays one DS component with its own PID and platform name.
 */
public abstract class KubernetesPlatform implements TrainingPlatform {

    private final KubernetesPlatformConfig config;
    private final KeeperSessions keeperSessions;
    private final KubernetesSessionSettings sessionSettings;

    protected KubernetesPlatform(KubernetesPlatformConfig config, KeeperSessions keeperSessions,
                                 KubernetesSessionSettings sessionSettings) {
        this.config = config;
        this.keeperSessions = keeperSessions;
        this.sessionSettings = sessionSettings;
    }

    @Override
    public final TrainingSession open(SessionContext context) throws PlatformException {
        KubernetesSessions.ComponentSettings settings = KubernetesSessions.ComponentSettings.of(config);
        return KubernetesSessions.open(context, keeperSessions, settings, jobs(context.section()), sessionSettings);
    }

    /** @return the operator's jobs, built from an experiment's section (one that {@link #checkSection} accepted) */
    protected abstract JobKind jobs(Map<String, Object> section);
}
