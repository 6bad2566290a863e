package nni.ts.cloud;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import nni.api.environment.EnvironmentSpec;
import nni.api.environment.KeeperRuntime;

/**
 * The shell command a cluster job runs to start one keeper: into its work directory, the shipped
 * SDK on {@code PYTHONPATH} when the image's Python cannot import {@code nni}, then the keeper with
 * its output in {@code keeper.stdout} and {@code keeper.stderr} there. When both keepers are
 * offered ({@code keeper = auto}) the job picks at run time: Java 17 or later if the image has it,
 * else Python. The token is not in it: the caller passes it as the cluster allows.
 */
public final class KeeperCommand {

    private final EnvironmentSpec spec;
    private final Map<KeeperRuntime, String> keepersOnWorker;
    private final String javaCommand;
    private final String pythonCommand;

    /**
     * @param keepersOnWorker where each offered keeper file is on the worker
     * @param javaCommand     the Java launcher on the worker ({@code java})
     * @param pythonCommand   the Python 3 launcher on the worker ({@code python3})
     */
    public KeeperCommand(EnvironmentSpec spec, Map<KeeperRuntime, String> keepersOnWorker, String javaCommand,
                         String pythonCommand) {
        this.spec = spec;
        this.keepersOnWorker = keepersOnWorker;
        this.javaCommand = javaCommand;
        this.pythonCommand = pythonCommand;
    }

    /**
     * @param codeOnWorker  the code archive on the worker
     * @param workDirectory the keeper's directory on the worker
     * @param sdkOnWorker   the directory holding the shipped {@code nni} package on the worker, or null
     * @param trialCommand  the command the keeper runs for each trial, or null for the experiment's
     * @param extra         more keeper arguments ({@code --token-file F})
     * @return one shell command line
     */
    public String line(String codeOnWorker, String workDirectory, String sdkOnWorker, String trialCommand, List<String> extra) {
        StringBuilder line = new StringBuilder("mkdir -p ").append(Shell.quote(workDirectory)).append(" && cd ")
                .append(Shell.quote(workDirectory));
        if (sdkOnWorker != null) {
            line.append(" && ").append(pythonPath(pythonCommand, sdkOnWorker));
        }
        Set<KeeperRuntime> offered = keepersOnWorker.keySet();
        line.append(" && { ");
        if (offered.contains(KeeperRuntime.JAVA) && offered.contains(KeeperRuntime.PYTHON)) {
            line.append("if ").append(javaCommand).append(" -version 2>&1 | grep -Eq '\"(1[7-9]|[2-9][0-9])[.\"]'; then ")
                    .append(keeper(KeeperRuntime.JAVA, codeOnWorker, workDirectory, trialCommand, extra)).append("; else ")
                    .append(keeper(KeeperRuntime.PYTHON, codeOnWorker, workDirectory, trialCommand, extra)).append("; fi");
        } else {
            line.append(keeper(offered.iterator().next(), codeOnWorker, workDirectory, trialCommand, extra));
        }
        return line.append("; } >keeper.stdout 2>keeper.stderr").toString();
    }

    /**
     * @return a shell command that puts {@code sdkOnWorker} on {@code PYTHONPATH} unless the worker's
     *         Python can import {@code nni} already; it always succeeds
     */
    public static String pythonPath(String pythonCommand, String sdkOnWorker) {
        return "{ " + pythonCommand + " -c 'import nni' >/dev/null 2>&1 || export PYTHONPATH=" + Shell.quote(sdkOnWorker)
                + "${PYTHONPATH:+:$PYTHONPATH}; }";
    }

    private String keeper(KeeperRuntime runtime, String codeOnWorker, String workDirectory, String trialCommand,
                          List<String> extra) {
        List<String> arguments = new ArrayList<>(spec.arguments(codeOnWorker, workDirectory));
        if (trialCommand != null) {
            arguments.set(arguments.indexOf("--command") + 1, trialCommand);
        }
        arguments.addAll(extra);
        String interpreter = runtime == KeeperRuntime.JAVA ? javaCommand + " -jar" : pythonCommand;
        return "exec " + interpreter + " " + Shell.quote(keepersOnWorker.get(runtime)) + " " + Shell.join(arguments);
    }
}
