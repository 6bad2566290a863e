package nni.ts.remote.internal;

import java.util.List;

import nni.api.environment.EnvironmentSpec;
import nni.api.environment.KeeperChoice;
import nni.api.environment.KeeperRuntime;
import nni.ts.remote.internal.ssh.Shell;

/**
 * How this experiment's machines run trial keepers: which keepers the configuration allows
 * ({@code keeper = auto | java | python}) and the interpreters it names for them.
 *
 * @param javaCommand   the configured Java 17+ command, as written (it may carry options)
 * @param pythonCommand the configured Python 3.7+ command, as written
 */
record KeeperCommands(KeeperChoice choice, String javaCommand, String pythonCommand) {

    /**
     * @return the shell command line that starts {@code spec}'s keeper of {@code runtime}: the
     *         configured interpreter, then the spec's command after its interpreter, quoted
     */
    String commandLine(EnvironmentSpec spec, KeeperRuntime runtime, String keeperOnWorker, String codeArchiveOnWorker,
                       String workDirectory) {
        List<String> words = spec.command(runtime, keeperOnWorker, codeArchiveOnWorker, workDirectory);
        StringBuilder line = new StringBuilder(runtime == KeeperRuntime.JAVA ? javaCommand : pythonCommand);
        for (String word : words.subList(1, words.size())) {
            line.append(' ').append(Shell.quote(word));
        }
        return line.toString();
    }
}
