package nni.ts.k8s;

import java.util.Map;

import nni.api.environment.KeeperSessions;
import nni.api.platform.PlatformException;
import nni.api.platform.SessionContext;
import nni.api.platform.TrainingPlatform;
import nni.api.platform.TrainingSession;
import nni.ts.cloud.ManagerAddress;

/**
 * A Kubernetes platform component (kubeflow, frameworkcontroller, adl): its sessions open the same way
 * for every operator ({@link KubernetesSessions}), from the component's {@link KubernetesPlatformConfig}.
 * A platform adds its section's check, its jobs, and how its sessions differ
 * ({@link KubernetesSessionSettings}); it stays one DS component with its own PID and platform name.
 */
public abstract class KubernetesPlatform implements TrainingPlatform {

    /** The framework property naming the host the manager's HTTP port is bound to. */
    protected static final String HTTP_HOST = ManagerAddress.HTTP_HOST;

    private final KubernetesPlatformConfig config;
    private final KeeperSessions keeperSessions;
    private final KubernetesSessionSettings sessionSettings;
    private final String httpHost;

    /**
     * @param httpHost the host the manager's port is bound to ({@value #HTTP_HOST}), or null (every address):
     *                 {@code keeper.transport = auto} takes files when it is loopback only ({@link ReportRoute})
     */
    protected KubernetesPlatform(KubernetesPlatformConfig config, KeeperSessions keeperSessions,
                                 KubernetesSessionSettings sessionSettings, String httpHost) {
        this.config = config;
        this.keeperSessions = keeperSessions;
        this.sessionSettings = sessionSettings;
        this.httpHost = httpHost;
    }

    @Override
    public final TrainingSession open(SessionContext context) throws PlatformException {
        KubernetesSessions.ComponentSettings settings = KubernetesSessions.ComponentSettings.of(config);
        return KubernetesSessions.open(context, keeperSessions, settings, jobs(context.section()), sessionSettings, httpHost);
    }

    /** @return the operator's jobs, built from an experiment's section (one that {@link #checkSection} accepted) */
    protected abstract JobKind jobs(Map<String, Object> section);
}
