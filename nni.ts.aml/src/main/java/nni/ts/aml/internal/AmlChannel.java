package nni.ts.aml.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;

import nni.api.environment.KeeperTransport;
import nni.api.platform.PlatformException;
import nni.ts.cloud.ManagerAddress;

/**
 * How an Azure ML session's keepers report: over HTTP to the manager's port, or through files on a
 * datastore of the workspace (an Azure Files share or blob container) that the jobs mount
 * read-write as their output {@value #OUTPUT} and the manager's machine sees at a local folder
 * (an SMB or blobfuse mount). With files the compute needs no connection to the manager: the code
 * still goes up as a code version, only the channel folders are on the datastore.
 *
 * @param transport the keepers' transport
 * @param uri       the experiment's folder on the datastore ({@code azureml://datastores/<name>/paths/...}), or null for HTTP
 * @param why       why this transport, for the session's log
 */
record AmlChannel(KeeperTransport transport, String uri, String why) {

    /** The name of the job output that mounts the datastore's folder; AML puts its path for {@code ${{outputs.<name>}}}. */
    static final String OUTPUT = "nni_channels";

    /**
     * @param setting      {@code keeper.transport}: {@code http}, {@code files} or {@code auto} (files when the
     *                     manager has no address the compute can reach: no {@code nniManagerIp} and the port
     *                     bound to loopback only; and a datastore mount is configured)
     * @param datastore    {@code datastore}: the datastore's name in the workspace
     * @param mount        {@code datastore.mount}: where that datastore is mounted on this machine, or blank
     * @param nniManagerIp the experiment's {@code nniManagerIp}, or null
     * @param httpHost     the host the manager's port is bound to ({@code org.apache.felix.http.host}), or null (every address)
     */
    static AmlChannel choose(String setting, String datastore, String mount, String nniManagerIp, String httpHost,
                             String experimentId) throws PlatformException {
        String mode = setting == null ? "auto" : setting.strip().toLowerCase(Locale.ROOT);
        boolean unreachable = new ManagerAddress(nniManagerIp, httpHost).unreachable();
        switch (mode) {
            case "http" -> {
                return new AmlChannel(KeeperTransport.http(), null, "keeper.transport = http");
            }
            case "files" -> {
                return files(datastore, mount, experimentId, "keeper.transport = files");
            }
            case "auto" -> {
                if (unreachable && mount != null && !mount.isBlank()) {
                    return files(datastore, mount, experimentId, "keeper.transport = auto: nniManagerIp is not set and the port is"
                            + " bound to " + httpHost + " only, which the compute cannot reach");
                }
                return new AmlChannel(KeeperTransport.http(), null, unreachable
                        ? "keeper.transport = auto, but no datastore.mount is configured for the file transport; the compute must reach"
                        + " the manager's port (bound to " + httpHost + ")"
                        : "keeper.transport = auto: the compute reaches the manager at " + (nniManagerIp == null || nniManagerIp.isBlank()
                        ? "the port's address" : "nniManagerIp " + nniManagerIp.strip()));
            }
            default -> throw new PlatformException("aml: keeper.transport: expected http, files or auto, got \"" + setting + "\"");
        }
    }

    private static AmlChannel files(String datastore, String mount, String experimentId, String why) throws PlatformException {
        if (mount == null || mount.isBlank()) {
            throw new PlatformException("aml: keeper.transport = files needs datastore.mount: the folder where datastore "
                    + datastore + " is mounted on this machine");
        }
        if (datastore == null || !datastore.matches("[A-Za-z0-9_]+")) {
            throw new PlatformException("aml: datastore: expected a datastore name (letters, digits, _), got \"" + datastore + "\"");
        }
        Path root = Path.of(mount.strip()).toAbsolutePath().normalize();
        if (!Files.isDirectory(root)) {
            throw new PlatformException("aml: datastore.mount " + root + " is not a folder (mount datastore " + datastore + " there)");
        }
        String relative = "nni-experiments/" + experimentId;
        Path local = root.resolve(relative);
        try {
            Files.createDirectories(local.resolve("channels"));
        } catch (IOException e) {
            throw new PlatformException("aml: cannot create " + local.resolve("channels") + " on datastore.mount: " + e.getMessage(), e);
        }
        KeeperTransport transport = KeeperTransport.sharedFiles(local.resolve("channels"), "${{outputs." + OUTPUT + "}}/channels");
        return new AmlChannel(transport, "azureml://datastores/" + datastore + "/paths/" + relative + "/", why);
    }

    /** @return the job's {@code outputs}: the datastore's folder mounted read-write as {@value #OUTPUT} */
    Map<String, Object> outputs() {
        return Map.of(OUTPUT, Map.of("jobOutputType", "uri_folder", "mode", "ReadWriteMount", "uri", uri));
    }

    @Override
    public String toString() {
        return transport.files() ? "files on " + uri + " (" + transport.localRoot() + " here)" : "http";
    }
}
