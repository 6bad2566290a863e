package nni.itest.cloud;

import static org.junit.Assert.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.After;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.ClassRule;
import org.junit.rules.TemporaryFolder;

import nni.api.environment.EnvironmentLauncher;
import nni.api.environment.KeeperRuntime;
import nni.api.testkit.environment.EnvironmentLauncherContract;
import nni.itest.cloud.emulator.dlc.DlcEmulator;
import nni.ts.dlc.internal.DlcPlatform;

/**
 * The {@code dlc} platform's launcher (the cloud platforms' job launcher over {@code DlcApi}) keeps
 * the launcher contract against the PAI-DLC emulator, which checks every request's signature and
 * runs the jobs as local processes with the NAS folder mounted: the launcher is the one
 * {@link DlcPlatform} opens for a session ({@link PlatformLaunchers}), its keepers reporting over
 * HTTP ({@code keeper.transport=http}) to the contract's stand-in manager. The failure cases are
 * DLC's answers once the session is open: 403 (the AccessKey no longer allowed) and 503.
 */
public class DlcLauncherContractIT extends EnvironmentLauncherContract {

    private static final String KEY_ID = "LTAI5tContractKeyId01";
    private static final String KEY_SECRET = "dlc-secret-Y29udHJhY3Q";
    private static final String WORKSPACE = "86995";

    @ClassRule
    public static final TemporaryFolder FOLDER = new TemporaryFolder();
    private static DlcEmulator dlc;
    private static Path nas;
    private PlatformLaunchers launchers;

    @BeforeClass
    public static void startRegion() throws Exception {
        nas = FOLDER.newFolder("nas").toPath();
        dlc = new DlcEmulator(KEY_ID, KEY_SECRET, WORKSPACE, Map.of("data1a2b3c", nas), FOLDER.newFolder("tasks").toPath());
    }

    @AfterClass
    public static void stopRegion() throws Exception {
        if (dlc != null) {
            dlc.close();
        }
    }

    /** Runs before the contract's cleanup: DLC refused no request as invalid or wrongly signed. */
    @After
    public void everyRequestWasValid() {
        dlc.faults().clear();
        assertEquals("requests the emulator refused", List.of(), dlc.refused());
    }

    @Override
    protected EnvironmentLauncher launcher() throws Exception {
        launchers = new PlatformLaunchers(Files.createTempDirectory(FOLDER.getRoot().toPath(), "experiments-"));
        return open();
    }

    private EnvironmentLauncher open() throws Exception {
        DlcPlatform.Config config = PlatformLaunchers.config(DlcPlatform.Config.class, Map.of("endpoint", dlc.address(),
                "keeper", "java", "keeper_transport", "http", "status_refresh_seconds", "1", "missing_job_seconds", "5"));
        return launchers.open(keeperSessions -> new DlcPlatform(config, keeperSessions), "dlc", """
                trialCommand: sh %s
                type: Worker
                image: registry-vpc.cn-hangzhou.aliyuncs.com/pai-dlc/pytorch-training:1.6.0-gpu-py37-cu101-ubuntu18.04
                jobType: PyTorchJob
                podCount: 1
                ecsSpec: ecs.c6.large
                region: cn-hangzhou
                workspaceId: '%s'
                nasDataSourceId: data1a2b3c
                accessKeyId: %s
                accessKeySecret: %s
                localStorageMountPoint: %s
                containerStorageMountPoint: /root/data/
                nniManagerIp: 127.0.0.1
                """.formatted(TRIAL_SCRIPT, WORKSPACE, KEY_ID, KEY_SECRET, nas));
    }

    @Override
    protected EnvironmentLauncher launcherThatCannotStart() throws Exception {
        EnvironmentLauncher launcher = open();
        dlc.faults().failNext(1, 403);
        return launcher;
    }

    @Override
    protected EnvironmentLauncher launcherThatCannotStartNow() throws Exception {
        EnvironmentLauncher launcher = open();
        dlc.faults().failNext(1, 503);
        return launcher;
    }

    @Override
    protected void closeLauncher(EnvironmentLauncher launcher) {
        launchers.close(launcher);
    }

    @Override
    protected Map<KeeperRuntime, Path> keeperFiles() {
        return Map.of(KeeperRuntime.JAVA, Path.of(System.getProperty("nni.keeper.jar")));
    }

    @Override
    protected String platform() {
        return "dlc";
    }
}
