package nni.ts.remote.internal.ssh;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import com.jcraft.jsch.ChannelExec;
import com.jcraft.jsch.ChannelSftp;
import com.jcraft.jsch.JSch;
import com.jcraft.jsch.JSchChangedHostKeyException;
import com.jcraft.jsch.JSchException;
import com.jcraft.jsch.JSchUnknownHostKeyException;
import com.jcraft.jsch.Session;
import com.jcraft.jsch.SftpException;

/**
 * One SSH connection to one machine, opened on first use and opened again after it broke. Commands
 * run in exec channels with {@code pythonPath} prepended to {@code PATH}; files go by SFTP.
 *
 * <p>Thread-safe: channels of one session may be used concurrently; (re)connecting is serialized.
 */
public final class SshConnection implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(SshConnection.class);

    private final SshTarget target;
    private final HostKeyPolicy hostKeys;
    private final Duration connectTimeout;
    private Session session;
    private boolean closed;

    public SshConnection(SshTarget target, HostKeyPolicy hostKeys, Duration connectTimeout) {
        this.target = target;
        this.hostKeys = hostKeys;
        this.connectTimeout = connectTimeout;
    }

    public SshTarget target() {
        return target;
    }

    /** Connects if not connected. */
    public synchronized Session session() throws SshException {
        if (closed) {
            throw new SshException(SshException.Reason.OTHER, target.name() + ": the connection is closed", null);
        }
        if (session != null && session.isConnected()) {
            return session;
        }
        try {
            JSch jsch = new JSch();
            if (!hostKeys.insecureSkipHostKeyCheck()) {
                jsch.setKnownHosts(hostKeys.knownHosts().toString());
            }
            if (target.password() == null && target.keyFile() != null) {
                if (!Files.isReadable(target.keyFile())) {
                    throw new SshException(SshException.Reason.AUTH_FAILED,
                            target.name() + ": cannot read sshKeyFile " + target.keyFile(), null);
                }
                byte[] passphrase = target.passphrase() == null ? null : target.passphrase().getBytes(StandardCharsets.UTF_8);
                jsch.addIdentity(target.keyFile().toString(), passphrase);
            }
            Session fresh = jsch.getSession(target.user(), target.host(), target.port());
            fresh.setConfig("StrictHostKeyChecking", hostKeys.insecureSkipHostKeyCheck() ? "no" : "yes");
            if (target.password() != null) {
                fresh.setPassword(target.password());
                fresh.setConfig("PreferredAuthentications", "password,keyboard-interactive");
            } else {
                fresh.setConfig("PreferredAuthentications", "publickey");
            }
            // a machine that stops answering is noticed within about 15 s, not at the next TCP timeout
            fresh.setServerAliveInterval(5000);
            fresh.setServerAliveCountMax(3);
            fresh.connect((int) connectTimeout.toMillis());
            session = fresh;
            LOG.info("connected to {}@{}", target.user(), target.name());
            return session;
        } catch (JSchException e) {
            throw classify(e);
        }
    }

    /** @return the failure as the user should read it: which machine, which of the known reasons */
    SshException classify(JSchException e) {
        String machine = target.user() + "@" + target.name();
        Throwable cause = e.getCause();
        if (e instanceof JSchChangedHostKeyException) {
            return new SshException(SshException.Reason.HOST_KEY_MISMATCH, machine + ": host key mismatch: the key the server"
                    + " presented differs from the one in " + hostKeys.knownHosts() + " (possible man-in-the-middle attack)", null);
        }
        if (e instanceof JSchUnknownHostKeyException) {
            return new SshException(SshException.Reason.HOST_KEY_UNKNOWN, machine + ": host key unknown: " + target.name()
                    + " is not in " + hostKeys.knownHosts() + "; add it there (ssh-keyscan) before using the machine", null);
        }
        if (String.valueOf(e.getMessage()).startsWith("Auth fail") || String.valueOf(e.getMessage()).startsWith("Auth cancel")) {
            return new SshException(SshException.Reason.AUTH_FAILED, machine + ": authentication failed ("
                    + (target.password() != null ? "password" : "key " + target.keyFile()) + " not accepted)", null);
        }
        if (cause instanceof ConnectException || cause instanceof NoRouteToHostException || cause instanceof UnknownHostException) {
            return new SshException(SshException.Reason.CONNECTION_REFUSED, machine + ": connection refused ("
                    + cause.getMessage() + ")", null);
        }
        if (cause instanceof SocketTimeoutException || String.valueOf(e.getMessage()).contains("timeout")) {
            return new SshException(SshException.Reason.TIMEOUT, machine + ": timeout after " + connectTimeout.toSeconds() + " s", null);
        }
        String lower = String.valueOf(e.getMessage()).toLowerCase(java.util.Locale.ROOT);
        if (lower.contains("passphrase")) {
            return new SshException(SshException.Reason.AUTH_FAILED, machine + ": authentication failed: the sshPassphrase does not unlock key "
                    + target.keyFile(), null);
        }
        if (lower.contains("invalid privatekey")) {
            return new SshException(SshException.Reason.AUTH_FAILED, machine + ": cannot use key " + target.keyFile()
                    + " (not a private key, or wrong passphrase)", null);
        }
        return new SshException(SshException.Reason.OTHER, machine + ": " + e.getMessage(), null);
    }

    /** @return {@code command} with {@code pythonPath} first on PATH, as NNI runs every remote command */
    public String withPath(String command) {
        return target.pythonPath() == null || target.pythonPath().isBlank() ? command
                : "export PATH=" + Shell.quote(target.pythonPath()) + ":\"$PATH\" && " + command;
    }

    /** Runs a command and waits for it (bounded by the session's keep-alive when the machine dies). */
    public ExecResult exec(String command) throws SshException {
        return exec(command, null);
    }

    /**
     * Runs a command, feeding it {@code stdin} (then end of input), and waits for its exit code.
     * Secrets go through stdin, never into the command line.
     */
    public ExecResult exec(String command, String stdin) throws SshException {
        Session current = session();
        ChannelExec channel = null;
        try {
            channel = (ChannelExec) current.openChannel("exec");
            channel.setCommand(withPath(command));
            ByteArrayOutputStream stderr = new ByteArrayOutputStream();
            channel.setErrStream(stderr);
            InputStream stdout = channel.getInputStream();
            OutputStream input = channel.getOutputStream();
            channel.connect((int) connectTimeout.toMillis());
            if (stdin != null) {
                input.write(stdin.getBytes(StandardCharsets.UTF_8));
            }
            input.close();
            byte[] out = stdout.readAllBytes();
            // the exit status arrives with or right after the end of output
            long deadline = System.nanoTime() + connectTimeout.toNanos();
            while (!channel.isClosed() && System.nanoTime() < deadline) {
                Thread.sleep(5); // JSch offers no event for the exit status
            }
            if (!channel.isClosed()) {
                throw new SshException(SshException.Reason.TIMEOUT, target.name() + ": no exit status for a command", null);
            }
            return new ExecResult(channel.getExitStatus(), new String(out, StandardCharsets.UTF_8), stderr.toString(StandardCharsets.UTF_8));
        } catch (JSchException e) {
            dropIfBroken(current);
            throw classify(e);
        } catch (IOException e) {
            dropIfBroken(current);
            throw new SshException(SshException.Reason.OTHER, target.name() + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SshException(SshException.Reason.OTHER, target.name() + ": interrupted", e);
        } finally {
            if (channel != null) {
                channel.disconnect();
            }
        }
    }

    /** Runs a command that must succeed; the error carries its stderr. */
    public String check(String command, String what) throws SshException {
        return check(command, null, what);
    }

    /** Runs a command that must succeed, feeding it {@code stdin}; the error carries its stderr. */
    public String check(String command, String stdin, String what) throws SshException {
        ExecResult result = exec(command, stdin);
        if (!result.ok()) {
            throw new SshException(SshException.Reason.COMMAND_FAILED, target.name() + ": " + what + " failed (exit code "
                    + result.exitCode() + "): " + result.stderr().strip(), null);
        }
        return result.stdout();
    }

    /** Copies a local file to {@code remotePath} by SFTP (through a temporary name, so readers never see half a file). */
    public void upload(Path local, String remotePath) throws SshException {
        Session current = session();
        ChannelSftp sftp = null;
        try {
            sftp = (ChannelSftp) current.openChannel("sftp");
            sftp.connect((int) connectTimeout.toMillis());
            String temporary = remotePath + ".part";
            sftp.put(local.toString(), temporary);
            sftp.rename(temporary, remotePath);
        } catch (JSchException e) {
            dropIfBroken(current);
            throw classify(e);
        } catch (SftpException e) {
            throw new SshException(SshException.Reason.COMMAND_FAILED, target.name() + ": cannot upload " + local.getFileName()
                    + " to " + remotePath + ": " + e.getMessage(), e);
        } finally {
            if (sftp != null) {
                sftp.disconnect();
            }
        }
    }

    /** @return the content of a remote file read by SFTP */
    public byte[] download(String remotePath) throws SshException {
        Session current = session();
        ChannelSftp sftp = null;
        try {
            sftp = (ChannelSftp) current.openChannel("sftp");
            sftp.connect((int) connectTimeout.toMillis());
            try (InputStream in = sftp.get(remotePath)) {
                return in.readAllBytes();
            }
        } catch (JSchException e) {
            dropIfBroken(current);
            throw classify(e);
        } catch (SftpException | IOException e) {
            throw new SshException(SshException.Reason.COMMAND_FAILED, target.name() + ": cannot read " + remotePath + ": " + e.getMessage(), e);
        } finally {
            if (sftp != null) {
                sftp.disconnect();
            }
        }
    }

    private synchronized void dropIfBroken(Session current) {
        if (session == current && !current.isConnected()) {
            session = null;
        }
    }

    @Override
    public synchronized void close() {
        closed = true;
        if (session != null) {
            session.disconnect();
            session = null;
        }
    }
}
