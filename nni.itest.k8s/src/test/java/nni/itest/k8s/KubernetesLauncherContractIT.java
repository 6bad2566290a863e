package nni.itest.k8s;

import static nni.itest.k8s.KubernetesCluster.TFJOBS;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

import org.junit.After;
import org.junit.AfterClass;
import org.junit.BeforeClass;

import nni.api.environment.EnvironmentLauncher;
import nni.api.environment.KeeperRuntime;
import nni.api.testkit.environment.EnvironmentLauncherContract;
import nni.itest.cloud.PlatformLaunchers;
import nni.itest.k8s.emulator.OperatorEmulator;
import nni.ts.k8s.KubernetesPlatformConfig;
import nni.ts.kubeflow.internal.KubeflowPlatform;

/**
 * {@code nni.ts.k8s}'s {@code KubernetesLauncher}, the launcher the kubeflow, frameworkcontroller
 * and adl platforms share, keeps the launcher contract: the launcher is the one {@link KubeflowPlatform}
 * opens for a session ({@link PlatformLaunchers}) on the {@link MockCluster} (TFJobs), its checks at
 * open passed; the {@link OperatorEmulator} runs each TFJob's pod, the Python keeper in it, as a local
 * process with the experiment's NFS share mounted, and the keepers report over HTTP to the contract's
 * stand-in manager. Their token comes from a Secret, the platform's default.
 *
 * <p>The failure cases: a session whose {@code keeper.token.secret} names a Secret that is not there
 * (every create is refused), and one whose API server stopped after it opened (no answer: a create
 * may succeed later). Refused credentials cannot be had this way: the platform checks credentials
 * and rights before a session opens ({@code ClusterChecksTest}), and the mock API server does not
 * withdraw them from a user once it accepted them.
 */
public class KubernetesLauncherContractIT extends EnvironmentLauncherContract {

    /**
     * Each TFJob's worker runs the role's command, not the experiment's trialCommand (NNI's kubeflow):
     * the trial is told what to do by its parameters, as a kubeflow trial is.
     */
    private static final String ROLE_COMMAND = "python3 -c \"import json, os; contract = json.load(open(os.path.join("
            + "os.environ['NNI_SYS_DIR'], 'parameter.cfg')))['parameters']['contract']; os.execvp('sh', ['sh', '" + TRIAL_SCRIPT
            + "'] + contract.split())\"";
    private static Path root;
    private static Path share;
    private static MockCluster cluster;
    private static OperatorEmulator emulator;
    private static Path kubeconfig;
    private PlatformLaunchers launchers;

    @BeforeClass
    public static void cluster() throws Exception {
        root = KubernetesCluster.freshFolder("k8s-launcher-contract");
        share = Files.createDirectories(root.resolve("share"));
        cluster = MockCluster.start(TFJOBS);
        emulator = new OperatorEmulator(cluster.admin(), root.resolve("emulator"), share, Duration.ofSeconds(3));
        kubeconfig = cluster.writeKubeconfig(root.resolve("kube").resolve("config"), "nni-user", MockCluster.PLATFORM_TOKEN);
    }

    @AfterClass
    public static void stop() {
        if (emulator != null) {
            emulator.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    /** Runs before the contract's cleanup: the emulator met nothing it could not do, the CRD's schema refused nothing. */
    @After
    public void nothingWentWrong() {
        KubernetesCluster.assertClean(cluster, emulator);
    }

    @Override
    protected EnvironmentLauncher launcher() throws Exception {
        launchers = new PlatformLaunchers(Files.createDirectories(root.resolve("experiments")));
        return open(kubeconfig, Map.of());
    }

    private EnvironmentLauncher open(Path kubeconfig, Map<String, String> settings) throws Exception {
        Map<String, String> values = new HashMap<>(Map.of("kubeconfig", kubeconfig.toString(), "nfs_mount_path", share.toString(),
                "keeper", "python", "keeper_transport", "http", "cancel_grace_seconds", "20"));
        values.putAll(settings);
        KubernetesPlatformConfig config = PlatformLaunchers.config(KubernetesPlatformConfig.class, values);
        return launchers.open(keeperSessions -> new KubeflowPlatform(config, keeperSessions), "kubeflow", """
                trialCommand: sh %s
                operator: tf-operator
                apiVersion: v1
                nniManagerIp: 127.0.0.1
                storage: {storageType: nfs, server: 192.0.2.10, path: /exports/nni}
                worker:
                  replicas: 1
                  command: '%s'
                  cpuNumber: 1
                  memorySize: 512mb
                  dockerImage: emulated/nni:nojava
                  codeDirectory: .
                """.formatted(TRIAL_SCRIPT, ROLE_COMMAND.replace("'", "''")));
    }

    /**
     * A keeper.token.secret that does not exist in the namespace: the platform checks at open that it
     * may patch it, not that it is there (an administrator creates it once), so every start is refused.
     */
    @Override
    protected EnvironmentLauncher launcherThatCannotStart() throws Exception {
        return open(kubeconfig, Map.of("keeper_token_secret", "nni-keeper-tokens-never-made"));
    }

    /** A launcher opened on an API server of its own, which then stops: no answer, a start may succeed later. */
    @Override
    protected EnvironmentLauncher launcherThatCannotStartNow() throws Exception {
        MockCluster gone = MockCluster.start(TFJOBS);
        try {
            return open(gone.writeKubeconfig(Files.createTempDirectory(root, "kube-").resolve("config"), "nni-user",
                    MockCluster.PLATFORM_TOKEN), Map.of());
        } finally {
            gone.close();
        }
    }

    @Override
    protected void closeLauncher(EnvironmentLauncher launcher) {
        launchers.close(launcher);
    }

    @Override
    protected Map<KeeperRuntime, Path> keeperFiles() {
        return Map.of(KeeperRuntime.PYTHON, Path.of(System.getProperty("nni.keeper.py")));
    }

    @Override
    protected String platform() {
        return "kubeflow";
    }
}
