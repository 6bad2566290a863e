package nni.ts.remote.internal;

import java.nio.file.Path;

import nni.ts.remote.internal.keeper.KeeperProbe;
import nni.ts.remote.internal.ssh.Shell;

/**
 * The trial keepers this experiment can put on its machines, and how the machines run them: the
 * configured choice ({@code keeper = auto | java | python}), the commands, the local files to upload.
 *
 * @param javaKeeper   the keeper jar on the manager's machine
 * @param pythonKeeper the Python keeper on the manager's machine
 */
record Keepers(KeeperProbe.Choice choice, String javaCommand, String pythonCommand, Path javaKeeper, Path pythonKeeper) {

    Path file(KeeperProbe.Runtime runtime) {
        return runtime == KeeperProbe.Runtime.JAVA ? javaKeeper : pythonKeeper;
    }

    /**
     * @return the shell words that start the keeper file {@code keeperFile} on a machine, before the keeper's
     *         arguments (the configured commands as they are: they may carry options)
     */
    String command(KeeperProbe.Runtime runtime, String keeperFile) {
        return (runtime == KeeperProbe.Runtime.JAVA ? javaCommand + " -jar " : pythonCommand + " ") + Shell.quote(keeperFile);
    }
}
