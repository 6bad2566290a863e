package nni.ts.k8s;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import nni.api.environment.EnvironmentSpec;
import nni.api.environment.KeeperRuntime;
import nni.ts.cloud.Shell;

/**
 * The shell script every container of an environment runs ({@code sh -c <script>}, or a
 * ConfigMap's {@code run.sh}). It holds no path: where things are comes from the container's
 * environment, which the object sets ({@value #HOME}: the folder with the keeper and
 * {@code nni-code.tar.gz}; {@value #WORK}: the keeper's directory; {@value #ROLE_COMMAND}: the
 * role's own command), and the token from {@value EnvironmentSpec#TOKEN_VARIABLE}, which the object
 * takes from a Secret. So the same text works wherever the share or ConfigMap is mounted.
 *
 * <p>One replica of the environment runs the keeper (the lead: the platform gives the shell test
 * that picks it, e.g. the pod named {@code <job>-worker-0}); the keeper is chosen by what is
 * offered: Java ({@code java -jar}) or Python ({@code python3}), or with both offered whichever
 * the image has (Java 17+ first, then Python 3.7+). With one keeper per trial, the other replicas
 * wait until the lead has written the trial's {@code parameter.cfg}, then run their role's command
 * in the trial's code directory with NNI's environment; in reuse mode they wait, as trials run on
 * the lead only. A failure says what is missing on stderr, which the object's
 * {@code terminationMessagePolicy} turns into the pod's termination message. Where the image's
 * Python cannot import {@code nni}, the shipped SDK ({@value #SDK_FOLDER} in {@value #HOME}) goes on
 * {@code PYTHONPATH}, as NNI pip-installs it there. A keeper reporting through files gets its
 * channel folder relative to {@value #HOME} as well.
 */
public final class KeeperScript {

    /** The folder with the keeper file(s) and the code archive, in the container. */
    public static final String HOME = "NNI_KEEPER_HOME";
    /** The keeper's channel folder (file transport) when it is not below {@link #HOME}, in the container. */
    public static final String CHANNEL = "NNI_KEEPER_CHANNEL";
    /** The keeper's directory, in the container. */
    public static final String WORK = "NNI_KEEPER_WORK";
    /** The command of a replica's role, run by the other replicas of a per-trial environment. */
    public static final String ROLE_COMMAND = "NNI_ROLE_COMMAND";
    /** The folder the container started in (the image's working directory), for commands relative to it. */
    public static final String IMAGE_WORKDIR = "NNI_IMAGE_WORKDIR";
    /** The code archive's name in {@link #HOME}. */
    public static final String CODE_ARCHIVE = "nni-code.tar.gz";
    /** The folder in {@link #HOME} with the pure-Python trial SDK ({@code sdk/nni/__init__.py}). */
    public static final String SDK_FOLDER = "sdk";

    private static final String CODE_MARK = "\u0000code";
    private static final String WORK_MARK = "\u0000work";

    private KeeperScript() {
    }

    /**
     * @param spec        the environment the manager asks for
     * @param leadTest    a shell test, true in the one replica that runs the keeper
     * @param leadCommand the command the keeper runs for each trial (the lead role's), or null for
     *                    the experiment's {@code trialCommand}
     * @param home        the folder {@value #HOME} names in the container: an argument below it (the
     *                    keeper's {@code --channel} on the share) is written relative to {@value #HOME}
     * @param channel     the keeper's channel folder when {@value #CHANNEL} names it (not below {@code home}), or null
     * @return the script
     */
    public static String build(EnvironmentSpec spec, String leadTest, String leadCommand, String home, String channel) {
        Set<KeeperRuntime> keepers = spec.keepers();
        StringBuilder script = new StringBuilder();
        script.append("# nni-osgi: the trial keeper of ").append(spec.mode().equals("trial") ? "trial " : "environment ")
                .append(spec.environmentId()).append(" (experiment ").append(spec.experimentId()).append(")\n");
        script.append(IMAGE_WORKDIR).append("=$(pwd); export ").append(IMAGE_WORKDIR).append('\n');
        script.append("mkdir -p \"$").append(WORK).append("\" || exit 1\n");
        // trial code imports nni: an image whose Python has none gets the SDK shipped beside the keeper (NNI pip-installs it)
        script.append("{ python3 -c 'import nni' >/dev/null 2>&1 || export PYTHONPATH=\"$").append(HOME).append('/').append(SDK_FOLDER)
                .append("${PYTHONPATH:+:$PYTHONPATH}\"; }\n");
        script.append("if ").append(leadTest).append("; then\n");
        script.append("  cd \"$").append(WORK).append("\" || exit 1\n");
        for (KeeperRuntime runtime : keepers) {
            script.append("  nni_keeper_").append(runtime.name().toLowerCase()).append("() { exec");
            for (String word : keeperCommand(spec, runtime, leadCommand, home, channel)) {
                script.append(' ').append(word);
            }
            script.append("; }\n");
        }
        if (keepers.size() == 1) {
            KeeperRuntime only = keepers.iterator().next();
            script.append("  ").append(probe(only)).append(" || { echo \"nni-osgi: the trial keeper needs ")
                    .append(requirement(only)).append(" in the image, and it has none\" >&2; exit 127; }\n");
            script.append("  nni_keeper_").append(only.name().toLowerCase()).append('\n');
        } else {
            List<String> needs = new ArrayList<>();
            String keyword = "if";
            for (KeeperRuntime runtime : keepers) {
                script.append("  ").append(keyword).append(' ').append(probe(runtime)).append("; then nni_keeper_")
                        .append(runtime.name().toLowerCase()).append('\n');
                keyword = "elif";
                needs.add(requirement(runtime));
            }
            script.append("  else echo \"nni-osgi: the trial keeper needs ").append(String.join(" or ", needs))
                    .append(" in the image, and it has neither\" >&2; exit 127; fi\n");
        }
        script.append("elif [ \"").append(spec.mode()).append("\" = trial ]; then\n");
        script.append("  n=0\n");
        script.append("  while [ ! -e \"$").append(WORK).append("/parameter.cfg\" ]; do\n");
        script.append("    n=$((n+1)); if [ $n -gt 3000 ]; then echo \"nni-osgi: the replica running the keeper did not prepare trial ")
                .append(spec.environmentId()).append(" within 10 minutes\" >&2; exit 1; fi; sleep 0.2\n");
        script.append("  done\n");
        script.append("  export NNI_PLATFORM=").append(Shell.quote(spec.platform())).append(" NNI_EXP_ID=")
                .append(Shell.quote(spec.experimentId())).append(" NNI_TRIAL_JOB_ID=").append(Shell.quote(spec.environmentId()))
                .append(" MULTI_PHASE=false NNI_SYS_DIR=\"$").append(WORK).append("\" NNI_CODE_DIR=\"$").append(WORK)
                .append("/code\" NNI_OUTPUT_DIR=\"$").append(WORK).append("/output/${HOSTNAME:-replica}\"\n");
        script.append("  mkdir -p \"$NNI_OUTPUT_DIR\" && cd \"$NNI_CODE_DIR\" || exit 1\n");
        script.append("  exec sh -c \"$").append(ROLE_COMMAND).append("\"\n");
        script.append("else\n");
        script.append("  echo \"nni-osgi: in reuse mode trials run on the replica with the keeper; this one waits\"\n");
        script.append("  exec sleep 2147483647\n");
        script.append("fi\n");
        return script.toString();
    }

    /** @return the keeper's command line, its words quoted for the shell */
    private static List<String> keeperCommand(EnvironmentSpec spec, KeeperRuntime runtime, String leadCommand, String home,
                                              String channel) {
        List<String> words = new ArrayList<>(runtime.launcher());
        words.add(CODE_MARK.replace("code", runtime.fileName()));
        List<String> arguments = new ArrayList<>(spec.arguments(CODE_MARK, WORK_MARK));
        int command = arguments.indexOf("--command");
        if (leadCommand != null && command >= 0 && command + 1 < arguments.size()) {
            arguments.set(command + 1, leadCommand);
        }
        words.addAll(arguments);
        List<String> quoted = new ArrayList<>();
        for (String word : words) {
            if (word.equals(CODE_MARK)) {
                quoted.add("\"$" + HOME + "/" + CODE_ARCHIVE + "\"");
            } else if (word.equals(WORK_MARK)) {
                quoted.add("\"$" + WORK + "\"");
            } else if (word.startsWith("\u0000")) {
                quoted.add("\"$" + HOME + "/" + word.substring(1) + "\"");
            } else if (channel != null && word.equals(channel)) {
                quoted.add("\"$" + CHANNEL + "\"");
            } else if (home != null && word.startsWith(home + "/")) {
                quoted.add("\"$" + HOME + "\"" + Shell.quote(word.substring(home.length())));
            } else {
                quoted.add(Shell.quote(word));
            }
        }
        return quoted;
    }

    private static String probe(KeeperRuntime runtime) {
        return switch (runtime) {
            case JAVA -> "command -v java >/dev/null 2>&1 && java -version 2>&1 | grep -Eq 'version \"(1[7-9]|[2-9][0-9])'";
            case PYTHON -> "command -v python3 >/dev/null 2>&1 && python3 -c 'import sys; sys.exit(sys.version_info < (3, 7))'";
        };
    }

    private static String requirement(KeeperRuntime runtime) {
        return switch (runtime) {
            case JAVA -> "Java 17+ (java on PATH)";
            case PYTHON -> "Python 3.7+ (python3 on PATH)";
        };
    }
}
