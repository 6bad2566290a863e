package nni.ts.remote.internal;

import static org.awaitility.Awaitility.await;
import static org.junit.Assert.assertEquals;
import static org.junit.Assume.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.concurrent.ScheduledThreadPoolExecutor;

import org.junit.After;
import org.junit.Test;

import nni.api.environment.KeeperChoice;
import nni.api.platform.SessionView;
import nni.itest.sshd.SshdHarness;
import nni.itest.sshd.SshdMachine;
import nni.ts.remote.internal.ssh.HostKeyPolicy;
import nni.ts.remote.internal.ssh.SshConnection;
import nni.ts.remote.internal.ssh.SshTarget;

/**
 * The remote launcher's machines for the web UI's machines view, over SSH to a real OpenSSH
 * server on loopback with a fake {@code nvidia-smi} on the machine's {@code pythonPath}: the first
 * view has nothing read yet and starts a reading on the launcher's threads; a later one shows the
 * GPUs with their utilisation and memory.
 */
public class RemoteMachinesViewIT {

    private SshdHarness sshd;
    private ScheduledThreadPoolExecutor executor;
    private RemoteLauncher launcher;

    @After
    public void stop() {
        if (launcher != null) {
            launcher.close();
        }
        if (executor != null) {
            executor.shutdownNow();
        }
        if (sshd != null) {
            sshd.close();
        }
    }

    @Test(timeout = 120_000)
    public void showsTheGpusNvidiaSmiReportsOnTheMachine() throws Exception {
        String unavailable = SshdHarness.unavailableReason();
        assumeTrue("skipped: " + unavailable, unavailable == null);
        sshd = SshdHarness.start(1, 0);
        Path tools = sshd.toolsDirectory("tools");
        Files.setPosixFilePermissions(sshd.toolsDirectory("remote"), PosixFilePermissions.fromString("rwxrwxrwx"));
        Path smi = tools.resolve("nvidia-smi");
        Files.writeString(smi, """
                #!/bin/sh
                cat <<'XML'
                <?xml version="1.0" ?>
                <nvidia_smi_log><attached_gpus>2</attached_gpus>
                <gpu id="0"><minor_number>0</minor_number><fb_memory_usage><total>16384 MiB</total><used>1024 MiB</used></fb_memory_usage>
                <utilization><gpu_util>87 %</gpu_util></utilization><processes></processes></gpu>
                <gpu id="1"><minor_number>1</minor_number><fb_memory_usage><total>16384 MiB</total><used>15000 MiB</used></fb_memory_usage>
                <utilization><gpu_util>12 %</gpu_util></utilization><processes></processes></gpu>
                </nvidia_smi_log>
                XML
                """);
        Files.setPosixFilePermissions(smi, PosixFilePermissions.fromString("rwxr-xr-x"));
        executor = new ScheduledThreadPoolExecutor(2);
        executor.setRemoveOnCancelPolicy(true);
        SshdMachine machine = sshd.machines().get(0);
        SshTarget target = new SshTarget(machine.host(), machine.port(), "root", null, sshd.userKey(), null, tools.toString());
        RemoteMachine remote = new RemoteMachine(new RemoteSection.Machine(target, false, 1, null),
                new SshConnection(target, new HostKeyPolicy(sshd.knownHosts(), false), Duration.ofSeconds(10)),
                sshd.directory().resolve("remote").toString(), "machines");
        launcher = new RemoteLauncher(List.of(remote), 1, null, new KeeperCommands(KeeperChoice.AUTO, "java", "python3"),
                Duration.ofSeconds(2), Duration.ofSeconds(60), Duration.ofSeconds(1), executor);
        launcher.connectAll();

        SessionView.Machine first = launcher.machines(Map.of()).get(0);
        assertEquals(target.name(), first.name());

        SessionView.Machine read = await().atMost(Duration.ofSeconds(60)).until(() -> launcher.machines(Map.of()).get(0),
                shown -> shown.readAt().isPresent() && shown.gpus().size() == 2);
        SessionView.Gpu gpu0 = read.gpus().get(0);
        assertEquals(OptionalInt.of(87), gpu0.utilization());
        assertEquals(OptionalLong.of(1024), gpu0.memoryUsedMiB());
        assertEquals(OptionalLong.of(16384), gpu0.memoryTotalMiB());
        assertEquals(OptionalInt.of(12), read.gpus().get(1).utilization());
        assertEquals(OptionalLong.of(15000), read.gpus().get(1).memoryUsedMiB());
    }
}
