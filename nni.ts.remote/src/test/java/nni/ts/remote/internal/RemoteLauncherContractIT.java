package nni.ts.remote.internal;

import static org.junit.Assume.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ScheduledThreadPoolExecutor;

import org.junit.AfterClass;
import org.junit.BeforeClass;

import nni.api.environment.EnvironmentLauncher;
import nni.api.environment.KeeperChoice;
import nni.api.environment.KeeperRuntime;
import nni.api.testkit.environment.EnvironmentLauncherContract;
import nni.itest.sshd.SshdHarness;
import nni.itest.sshd.SshdMachine;
import nni.ts.remote.internal.ssh.HostKeyPolicy;
import nni.ts.remote.internal.ssh.SshConnection;
import nni.ts.remote.internal.ssh.SshTarget;

/**
 * The remote platform's launcher keeps the launcher contract: keepers started over SSH on two real
 * OpenSSH machines on loopback, one with Java (the Java keeper) and one without (the Python
 * keeper, {@code keeper = auto}), reporting to the kit's stand-in manager.
 */
public class RemoteLauncherContractIT extends EnvironmentLauncherContract {

    private static SshdHarness sshd;
    private ScheduledThreadPoolExecutor executor;

    @BeforeClass
    public static void startMachines() throws Exception {
        String unavailable = SshdHarness.unavailableReason();
        assumeTrue("skipped: " + unavailable, unavailable == null);
        sshd = SshdHarness.start(2, 1);
        Files.setPosixFilePermissions(sshd.toolsDirectory("remote"), PosixFilePermissions.fromString("rwxrwxrwx"));
    }

    @AfterClass
    public static void stopMachines() {
        if (sshd != null) {
            sshd.close();
        }
    }

    @Override
    protected EnvironmentLauncher launcher() {
        executor = new ScheduledThreadPoolExecutor(4);
        executor.setRemoveOnCancelPolicy(true);
        List<RemoteMachine> machines = new ArrayList<>();
        for (SshdMachine machine : sshd.machines()) {
            SshTarget target = new SshTarget(machine.host(), machine.port(), "root", null, sshd.userKey(), null, null);
            machines.add(new RemoteMachine(new RemoteSection.Machine(target, false, 1, null),
                    new SshConnection(target, new HostKeyPolicy(sshd.knownHosts(), false), Duration.ofSeconds(10)),
                    sshd.directory().resolve("remote").toString(), "contract"));
        }
        RemoteLauncher launcher = new RemoteLauncher(machines, 0, null, new KeeperCommands(KeeperChoice.AUTO, "java", "python3"),
                Duration.ofSeconds(2), Duration.ofSeconds(60), Duration.ofSeconds(1), executor);
        launcher.connectAll();
        return launcher;
    }

    @Override
    protected void closeLauncher(EnvironmentLauncher launcher) {
        ((RemoteLauncher) launcher).close();
        executor.shutdownNow();
    }

    @Override
    protected Map<KeeperRuntime, Path> keeperFiles() {
        Map<KeeperRuntime, Path> files = new LinkedHashMap<>();
        files.put(KeeperRuntime.JAVA, Path.of(System.getProperty("nni.keeper.jar")));
        files.put(KeeperRuntime.PYTHON, Path.of(System.getProperty("nni.keeper.py")));
        return files;
    }

    @Override
    protected String platform() {
        return "remote";
    }
}
