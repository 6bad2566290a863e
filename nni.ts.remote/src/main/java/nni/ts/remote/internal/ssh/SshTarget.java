package nni.ts.remote.internal.ssh;

import java.nio.file.Path;
import java.util.Objects;

/**
 * How to reach one machine. The secrets ({@code password}, {@code passphrase}) never leave this
 * record except into JSch: {@link #toString()} masks them.
 *
 * @param host       host name or address
 * @param port       SSH port
 * @param user       login
 * @param password   password, or null for key authentication
 * @param keyFile    private key file, or null for password authentication
 * @param passphrase the key's passphrase, or null
 * @param pythonPath a directory prepended to {@code PATH} for every command (NNI's {@code pythonPath}), or null
 */
public record SshTarget(String host, int port, String user, String password, Path keyFile, String passphrase,
                        String pythonPath) {

    public SshTarget {
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(user, "user");
    }

    /** @return {@code host:port}, how messages name the machine */
    public String name() {
        return port == 22 ? host : host + ":" + port;
    }

    @Override
    public String toString() {
        return "SshTarget[" + user + "@" + name() + (password != null ? ", password ****" : "")
                + (keyFile != null ? ", key " + keyFile : "") + (passphrase != null ? ", passphrase ****" : "") + "]";
    }
}
