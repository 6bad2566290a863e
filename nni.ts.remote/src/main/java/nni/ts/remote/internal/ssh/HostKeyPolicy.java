package nni.ts.remote.internal.ssh;

import java.nio.file.Path;

/**
 * How host keys are checked.
 *
 * @param knownHosts              the OpenSSH {@code known_hosts} file a machine's key must be in
 * @param insecureSkipHostKeyCheck accept any host key (man-in-the-middle attacks go unnoticed)
 */
public record HostKeyPolicy(Path knownHosts, boolean insecureSkipHostKeyCheck) {
}
