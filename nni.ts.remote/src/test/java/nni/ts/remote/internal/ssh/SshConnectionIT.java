package nni.ts.remote.internal.ssh;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;
import static org.junit.Assume.assumeTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import nni.itest.sshd.SshdHarness;
import nni.itest.sshd.SshdMachine;

/** The SSH layer against real OpenSSH servers on 127.0.0.2 and 127.0.0.3. */
public class SshConnectionIT {

    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    private static SshdHarness sshd;

    @Rule
    public TemporaryFolder folder = new TemporaryFolder();

    @BeforeClass
    public static void startServers() throws Exception {
        String unavailable = SshdHarness.unavailableReason();
        assumeTrue("skipped: " + unavailable, unavailable == null);
        sshd = SshdHarness.start(2);
    }

    @AfterClass
    public static void stopServers() {
        if (sshd != null) {
            sshd.close();
        }
    }

    private static SshConnection connection(SshTarget target, Path knownHosts) {
        return new SshConnection(target, new HostKeyPolicy(knownHosts, false), TIMEOUT);
    }

    private static SshTarget passwordTarget(SshdMachine machine, String password) {
        return new SshTarget(machine.host(), machine.port(), SshdHarness.USER, password, null, null, null);
    }

    @Test(timeout = 60_000)
    public void passwordLoginRunsCommandsWithExitCodeAndPythonPathFirstOnPath() throws Exception {
        SshdMachine machine = sshd.machines().get(0);
        Path tools = sshd.toolsDirectory("tools-path");
        SshTarget target = new SshTarget(machine.host(), machine.port(), SshdHarness.USER, sshd.password(), null, null, tools.toString());
        try (SshConnection ssh = connection(target, sshd.knownHosts())) {
            ExecResult who = ssh.exec("id -un; echo oops >&2; exit 3");
            assertEquals(3, who.exitCode());
            assertEquals(SshdHarness.USER, who.stdout().strip());
            assertEquals("oops", who.stderr().strip());
            assertTrue(ssh.exec("echo $PATH").stdout().startsWith(tools + ":"));
            assertEquals("secret line", ssh.exec("read -r x; echo \"$x\"", "secret line\n").stdout().strip());
        }
    }

    /**
     * A login's home is a new folder of the harness, for root and for the password user alike: what
     * a login writes there lands in the harness's directory and never in this machine's real home,
     * and nothing of the real home (a developer's ~/.bashrc) is there to be run.
     */
    @Test(timeout = 60_000)
    public void loginsHaveHomesOfTheHarnessNeverThisMachinesRealOnes() throws Exception {
        SshdMachine machine = sshd.machines().get(1);
        SshTarget root = new SshTarget(machine.host(), machine.port(), "root", null, sshd.userKey(), null, null);
        for (SshTarget target : List.of(root, passwordTarget(machine, sshd.password()))) {
            String probe = ".nni-home-probe-" + System.nanoTime();
            try (SshConnection ssh = connection(target, sshd.knownHosts())) {
                ExecResult home = ssh.exec("cd && touch " + probe + " && echo \"$PWD\" && ls -A");
                assertEquals(target.user() + ": " + home.stderr(), 0, home.exitCode());
                List<String> lines = home.stdout().lines().toList();
                assertEquals(target.user() + "'s home holds only what the login wrote: " + lines, List.of(probe),
                        lines.subList(1, lines.size()));
                Path real = Path.of(lines.get(0));
                assertFalse(target.user() + " wrote into this machine's real home " + real, Files.exists(real.resolve(probe)));
                try (var files = Files.walk(sshd.directory())) {
                    assertTrue("the probe lies in the harness's directory",
                            files.anyMatch(file -> file.getFileName().toString().equals(probe)));
                }
            }
        }
    }

    @Test(timeout = 60_000)
    public void keyLoginWithAndWithoutPassphraseAndSftpRoundTrip() throws Exception {
        SshdMachine machine = sshd.machines().get(1);
        SshTarget plain = new SshTarget(machine.host(), machine.port(), "root", null, sshd.userKey(), null, null);
        SshTarget protectedKey = new SshTarget(machine.host(), machine.port(), "root", null, sshd.passphraseKey(), SshdHarness.PASSPHRASE, null);
        Path local = folder.newFile("upload.bin").toPath();
        byte[] content = new byte[300_000];
        for (int i = 0; i < content.length; i++) {
            content[i] = (byte) (i * 31);
        }
        Files.write(local, content);
        String remote = sshd.directory().resolve("uploaded.bin").toString();
        try (SshConnection ssh = connection(plain, sshd.knownHosts()); SshConnection other = connection(protectedKey, sshd.knownHosts())) {
            assertEquals("root", ssh.exec("id -un").stdout().strip());
            ssh.upload(local, remote);
            assertArrayEquals(content, other.download(remote));
            assertEquals("300000", other.exec("stat -c %s " + Shell.quote(remote)).stdout().strip());
        }
    }

    @Test(timeout = 60_000)
    public void wrongPasswordIsAuthFailedWithoutThePassword() {
        SshTarget target = passwordTarget(sshd.machines().get(0), "not-the-password-42");
        try (SshConnection ssh = connection(target, sshd.knownHosts())) {
            SshException e = assertThrows(SshException.class, () -> ssh.exec("true"));
            assertEquals(SshException.Reason.AUTH_FAILED, e.reason());
            assertTrue(e.getMessage(), e.getMessage().contains("authentication failed") && e.getMessage().contains(SshdHarness.USER));
            assertFalse(e.getMessage(), e.getMessage().contains("not-the-password-42"));
            assertFalse(target.toString().contains("not-the-password-42"));
        }
    }

    @Test(timeout = 60_000)
    public void wrongPassphraseIsAnAuthProblem() {
        SshdMachine machine = sshd.machines().get(0);
        SshTarget target = new SshTarget(machine.host(), machine.port(), "root", null, sshd.passphraseKey(), "wrong phrase", null);
        try (SshConnection ssh = connection(target, sshd.knownHosts())) {
            SshException e = assertThrows(SshException.class, () -> ssh.exec("true"));
            assertEquals(e.getMessage(), SshException.Reason.AUTH_FAILED, e.reason());
            assertFalse(e.getMessage(), e.getMessage().contains("wrong phrase"));
        }
    }

    @Test(timeout = 60_000)
    public void hostKeyMismatchIsRefusedAndUnknownHostTooUnlessInsecureOptionIsOn() throws Exception {
        SshTarget target = passwordTarget(sshd.machines().get(1), sshd.password());
        try (SshConnection ssh = connection(target, sshd.wrongKnownHosts())) {
            SshException e = assertThrows(SshException.class, () -> ssh.exec("true"));
            assertEquals(SshException.Reason.HOST_KEY_MISMATCH, e.reason());
            assertTrue(e.getMessage(), e.getMessage().contains("host key mismatch") && e.getMessage().contains(sshd.wrongKnownHosts().toString()));
        }
        Path empty = folder.newFile("known_hosts").toPath();
        try (SshConnection ssh = connection(target, empty)) {
            SshException e = assertThrows(SshException.class, () -> ssh.exec("true"));
            assertEquals(SshException.Reason.HOST_KEY_UNKNOWN, e.reason());
        }
        assertEquals("", Files.readString(empty, StandardCharsets.UTF_8)); // nothing learnt behind the user's back
        try (SshConnection ssh = new SshConnection(target, new HostKeyPolicy(empty, true), TIMEOUT)) {
            assertEquals(0, ssh.exec("true").exitCode());
        }
    }

    @Test(timeout = 90_000)
    public void stoppedMachineIsConnectionRefusedAndTheConnectionComesBackWithIt() throws Exception {
        SshdMachine machine = sshd.machines().get(1);
        SshTarget target = passwordTarget(machine, sshd.password());
        try (SshConnection ssh = connection(target, sshd.knownHosts())) {
            assertEquals(0, ssh.exec("true").exitCode());
            machine.stop();
            try {
                SshException e = assertThrows(SshException.class, () -> {
                    // the old session may still look open until the first command fails on it
                    ssh.exec("true");
                    ssh.exec("true");
                });
                assertTrue(e.getMessage(), e.unreachable());
                SshException refused = assertThrows(SshException.class, () -> ssh.exec("true"));
                assertEquals(refused.getMessage(), SshException.Reason.CONNECTION_REFUSED, refused.reason());
                assertTrue(refused.getMessage().contains("connection refused"));
            } finally {
                machine.start();
            }
            assertEquals(0, ssh.exec("true").exitCode());
        }
    }
}
