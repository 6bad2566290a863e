package nni.ts.remote.internal;

import java.nio.file.Path;
import java.time.Instant;
import java.util.List;

import nni.api.environment.KeeperRuntime;
import nni.ts.remote.internal.keeper.KeeperProbe;
import nni.ts.remote.internal.schedule.GpuInfo;
import nni.ts.remote.internal.schedule.MachineSlots;
import nni.ts.remote.internal.schedule.NvidiaSmi;
import nni.ts.remote.internal.ssh.Shell;
import nni.ts.remote.internal.ssh.SshConnection;
import nni.ts.remote.internal.ssh.SshException;

/**
 * One machine of an experiment: its connection, its scheduling state, and the experiment's
 * directory there ({@code <remote root>/<experiment>/<user>@<host>_<port>}), prepared once.
 */
final class RemoteMachine {

    final RemoteSection.Machine config;
    final SshConnection ssh;
    final MachineSlots slots;
    final String directory;
    private boolean prepared;
    private KeeperProbe.Found keeper;
    private String sdkDirectory;
    private Instant unreachableSince;
    private volatile Instant gpusSeen = Instant.EPOCH;

    RemoteMachine(RemoteSection.Machine config, SshConnection ssh, String remoteRoot, String experimentId) {
        this.config = config;
        this.ssh = ssh;
        this.slots = new MachineSlots(config.target().name(), config.gpuIndices(), config.maxTrialNumberPerGpu(), config.useActiveGpu());
        this.directory = remoteRoot + "/" + experimentId + "/" + config.target().user() + "@" + config.target().host()
                + "_" + config.target().port();
    }

    String name() {
        return config.target().name();
    }

    /**
     * Decides, once per experiment, which trial keeper this machine runs ({@link KeeperProbe}); the
     * machine is excluded from placement when it can run none.
     *
     * @throws KeeperProbe.NoKeeperException naming the machine and both requirements
     */
    synchronized KeeperProbe.Found keeper(KeeperCommands commands) throws SshException, KeeperProbe.NoKeeperException {
        if (keeper == null) {
            String output = ssh.exec(KeeperProbe.command(commands.javaCommand(), commands.pythonCommand())).stdout();
            try {
                keeper = KeeperProbe.choose(name(), commands.choice(), output, commands.javaCommand(), commands.pythonCommand());
            } catch (KeeperProbe.NoKeeperException e) {
                slots.exclude(e.getMessage());
                throw e;
            }
        }
        return keeper;
    }

    /** @return the keeper this machine runs, or null before {@link #keeper} decided it */
    synchronized KeeperProbe.Found keeperFound() {
        return keeper;
    }

    /** @return where the file of {@code runtime}'s keeper is on the machine */
    String keeperFile(KeeperRuntime runtime) {
        return directory + "/" + runtime.fileName();
    }

    /**
     * Creates the experiment's directory and uploads the keeper this machine runs and the code, once
     * per experiment; where {@code python3} cannot {@code import nni}, also the SDK shipped with nni-osgi.
     *
     * @param keeperFile the local file of the keeper {@code runtime} names
     * @param sdk        the local {@code nni/__init__.py} to upload where needed, or null
     */
    synchronized void prepare(KeeperRuntime runtime, Path keeperFile, Path codeArchive, Path sdk) throws SshException {
        if (prepared) {
            return;
        }
        String experimentRoot = directory.substring(0, directory.lastIndexOf('/'));
        // the experiment's root is shared by the users of one host (umask 0, as NNI does)
        ssh.check("(umask 0; mkdir -p " + Shell.quote(experimentRoot) + ") && mkdir -p " + Shell.quote(directory + "/envs"),
                "creating " + directory);
        ssh.upload(keeperFile, keeperFile(runtime));
        ssh.upload(codeArchive, directory + "/nni-code.tar.gz");
        if (sdk != null && !ssh.exec("python3 -c 'import nni'").ok()) {
            ssh.check("mkdir -p " + Shell.quote(directory + "/sdk/nni"), "creating the SDK directory");
            ssh.upload(sdk, directory + "/sdk/nni/__init__.py");
            sdkDirectory = directory + "/sdk";
        }
        prepared = true;
    }

    /** @return the directory holding the uploaded SDK, to put on PYTHONPATH, or null when trials import an installed nni */
    synchronized String sdkDirectory() {
        return sdkDirectory;
    }

    /** Reads the GPUs with nvidia-smi unless they were read within {@code maxAgeMillis}. */
    void refreshGpus(long maxAgeMillis) throws SshException {
        if (Instant.now().isBefore(gpusSeen.plusMillis(maxAgeMillis))) {
            return;
        }
        var result = ssh.exec(NvidiaSmi.COMMAND);
        List<GpuInfo> gpus;
        if (!result.ok()) {
            gpus = List.of(); // no nvidia-smi: a machine without GPUs
        } else {
            try {
                gpus = NvidiaSmi.parse(result.stdout());
            } catch (IllegalArgumentException e) {
                gpus = List.of();
            }
        }
        slots.gpus(gpus);
        gpusSeen = Instant.now();
    }

    /** @return when nvidia-smi was last read here, or null when it never was */
    Instant gpusReadAt() {
        Instant seen = gpusSeen;
        return seen.equals(Instant.EPOCH) ? null : seen;
    }

    /** @return since when the machine cannot be reached (null when it can) */
    Instant unreachableSince() {
        return unreachableSince;
    }

    void reachable(String reason) {
        if (reason == null) {
            unreachableSince = null;
        } else if (unreachableSince == null) {
            unreachableSince = Instant.now();
        }
        slots.reachable(reason);
    }
}
