package nni.ts.remote.internal.ssh;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.time.Duration;
import java.util.List;

import org.apache.sshd.common.config.keys.PublicKeyEntry;
import org.apache.sshd.common.keyprovider.KeyPairProvider;
import org.apache.sshd.server.SshServer;
import org.apache.sshd.server.shell.ProcessShellFactory;
import org.junit.After;
import org.junit.Before;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * The SSH client's behaviour against an in-process Apache MINA SSHD server (fast, no root needed);
 * {@code SshConnectionIT} covers the same against OpenSSH.
 */
public class SshConnectionTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    private static final String PASSWORD = "mina-secret-31";

    @Rule
    public TemporaryFolder temporary = new TemporaryFolder();

    private SshServer server;
    private KeyPair hostKey;

    @Before
    public void startServer() throws Exception {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
        generator.initialize(256);
        hostKey = generator.generateKeyPair();
        server = SshServer.setUpDefaultServer();
        server.setHost("127.0.0.1");
        server.setPort(0);
        server.setKeyPairProvider(KeyPairProvider.wrap(hostKey));
        server.setPasswordAuthenticator((user, password, session) -> user.equals("u") && password.equals(PASSWORD));
        // commands run through sh, as an OpenSSH server runs them through the login shell
        server.setCommandFactory((channel, command) -> new ProcessShellFactory(command, "/bin/sh", "-c", command).createShell(channel));
        server.start();
    }

    @After
    public void stopServer() throws Exception {
        server.stop(true);
    }

    private Path knownHosts(KeyPair key) throws Exception {
        Path file = temporary.newFile().toPath();
        Files.writeString(file, "[127.0.0.1]:" + server.getPort() + " " + PublicKeyEntry.toString(key.getPublic()) + "\n");
        return file;
    }

    private SshConnection connection(String password, Path knownHosts) {
        return new SshConnection(new SshTarget("127.0.0.1", server.getPort(), "u", password, null, null, null),
                new HostKeyPolicy(knownHosts, false), TIMEOUT);
    }

    @Test(timeout = 30_000)
    public void runsACommandAndReportsItsExitCodeAndOutput() throws Exception {
        try (SshConnection ssh = connection(PASSWORD, knownHosts(hostKey))) {
            ExecResult result = ssh.exec("echo out; echo err >&2; exit 4");
            assertEquals(4, result.exitCode());
            assertEquals("out", result.stdout().strip());
            assertEquals("err", result.stderr().strip());
            SshException failed = assertThrows(SshException.class, () -> ssh.check("exit 2", "the step"));
            assertEquals(SshException.Reason.COMMAND_FAILED, failed.reason());
            assertFalse(failed.unreachable());
        }
    }

    @Test(timeout = 30_000)
    public void anotherHostKeyIsAMismatchAndNamesTheKnownHostsFile() throws Exception {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
        generator.initialize(256);
        Path wrong = knownHosts(generator.generateKeyPair());
        try (SshConnection ssh = connection(PASSWORD, wrong)) {
            SshException e = assertThrows(SshException.class, () -> ssh.exec("true"));
            assertEquals(SshException.Reason.HOST_KEY_MISMATCH, e.reason());
            assertTrue(e.getMessage(), e.getMessage().startsWith("u@127.0.0.1:" + server.getPort() + ": host key mismatch"));
            assertTrue(e.getMessage(), e.getMessage().contains(wrong.toString()));
        }
    }

    @Test(timeout = 30_000)
    public void aWrongPasswordIsAuthFailedAndNeverShown() throws Exception {
        try (SshConnection ssh = connection("guess-77", knownHosts(hostKey))) {
            SshException e = assertThrows(SshException.class, () -> ssh.exec("true"));
            assertEquals(SshException.Reason.AUTH_FAILED, e.reason());
            assertFalse(e.getMessage(), e.getMessage().contains("guess-77"));
        }
    }

    @Test(timeout = 30_000)
    public void nobodyListeningIsConnectionRefused() throws Exception {
        int port;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            port = socket.getLocalPort();
        }
        SshConnection ssh = new SshConnection(new SshTarget("127.0.0.1", port, "u", PASSWORD, null, null, null),
                new HostKeyPolicy(knownHosts(hostKey), false), TIMEOUT);
        SshException e = assertThrows(SshException.class, ssh::session);
        assertEquals(SshException.Reason.CONNECTION_REFUSED, e.reason());
        assertTrue(e.unreachable());
    }

    @Test
    public void targetsMaskTheirSecrets() {
        SshTarget target = new SshTarget("h", 22, "u", "pw-1", Path.of("/k"), "phrase-2", null);
        assertEquals("SshTarget[u@h, password ****, key /k, passphrase ****]", target.toString());
        assertEquals(List.of(), List.of(target.toString().split("pw-1|phrase-2")).subList(1, 1));
    }
}
