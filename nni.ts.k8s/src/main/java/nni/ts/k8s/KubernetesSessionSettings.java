package nni.ts.k8s;

/**
 * How one Kubernetes platform's sessions differ from the others', besides its jobs ({@link JobKind}):
 * fixed by the platform, not configured. Start from {@link #of} (the kubeflow and frameworkcontroller
 * way) and say what differs.
 *
 * @param pid            the component's configuration PID ({@code nni.ts.kubeflow}): messages name its
 *                       {@code etc/<pid>.cfg}
 * @param keeperOnShare  whether the keeper and the code reach the pods through the section's
 *                       {@code storage} (NFS or Azure Files); otherwise the jobs place them
 *                       ({@link JobKind#placement}) and the code is the image's
 * @param reuseByDefault {@code reuseMode} when the section has none
 */
public record KubernetesSessionSettings(String pid, boolean keeperOnShare, boolean reuseByDefault) {

    /** @return the settings of a platform whose keeper goes through the share and that reuses environments by default */
    public static KubernetesSessionSettings of(String pid) {
        return new KubernetesSessionSettings(pid, true, true);
    }

    /** @return these settings, the keeper and code reaching the pods without the experiment's share */
    public KubernetesSessionSettings withoutShare() {
        return new KubernetesSessionSettings(pid, false, reuseByDefault);
    }

    /** @return these settings, one job per trial unless the section sets {@code reuseMode: true} */
    public KubernetesSessionSettings jobPerTrialByDefault() {
        return new KubernetesSessionSettings(pid, keeperOnShare, false);
    }
}
