package nni.api.testkit;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import nni.api.model.HyperParameters;

/**
 * The trials the contract tests run, for platforms that run a trial command in a code directory
 * the way NNI does (local processes, SSH machines, cluster jobs with the code shipped along).
 * {@link #writeScript(Path)} puts {@value #SCRIPT} into the code directory; the experiment's
 * {@code trialCommand} is {@link #COMMAND}. The script reads the trial's {@code parameter.cfg}
 * from {@code $NNI_SYS_DIR} and
 * <ul>
 * <li>for {@link #finishing} parameters prints {@value #METRICS} metrics in NNI's stdout protocol
 *     ({@code NNISDK_MEb'...'} lines: PERIODICAL sequences 0 and 1, then FINAL) and exits 0;</li>
 * <li>for {@link #running} parameters runs until it is cancelled (at most ten minutes, then it
 *     exits 0), reporting nothing.</li>
 * </ul>
 * It needs only a POSIX shell with {@code sed}, {@code grep} and {@code sleep}. A platform that
 * does not run commands (or runs them differently) overrides
 * {@link PlatformContract#finishingTrial} and {@link PlatformContract#runningTrial} instead.
 */
public final class ConformanceTrial {

    /** The script's file name in the code directory. */
    public static final String SCRIPT = "nni-testkit-trial.sh";
    /** The {@code trialCommand} that runs it, in the code directory. */
    public static final String COMMAND = "sh " + SCRIPT;
    /** How many metrics a finishing trial reports. */
    public static final int METRICS = 3;

    private ConformanceTrial() {
    }

    /** Writes {@value #SCRIPT} into {@code codeDirectory} (created if needed). @return the script */
    public static Path writeScript(Path codeDirectory) throws IOException {
        Files.createDirectories(codeDirectory);
        String metric = "m() { echo \"NNISDK_MEb'{\\\"parameter_id\\\": $id, \\\"trial_job_id\\\": \\\"$NNI_TRIAL_JOB_ID\\\","
                + " \\\"type\\\": \\\"$1\\\", \\\"sequence\\\": $2, \\\"value\\\": \\\"$3\\\"}'\"; }";
        return Files.writeString(codeDirectory.resolve(SCRIPT), String.join("\n",
                "#!/bin/sh",
                "# nni.api.testkit conformance trial: \"hold\" runs until cancelled, otherwise " + METRICS + " metrics and exit 0",
                "p=\"$NNI_SYS_DIR/parameter.cfg\"",
                "id=$(sed -n 's/.*\"parameter_id\": *\\([0-9]*\\).*/\\1/p' \"$p\")",
                "if grep -q '\"nni_testkit\": *\"hold\"' \"$p\"; then",
                "  n=0; while [ $n -lt 6000 ]; do sleep 0.1; n=$((n+1)); done; exit 0",
                "fi",
                metric,
                "m PERIODICAL 0 0.25",
                "m PERIODICAL 1 0.5",
                "m FINAL 0 0.75",
                "exit 0",
                ""));
    }

    /** @return the parameters of a trial that reports {@value #METRICS} metrics and succeeds */
    public static HyperParameters finishing(long parameterId) {
        return parameters(parameterId, "finish");
    }

    /** @return the parameters of a trial that runs until it is cancelled */
    public static HyperParameters running(long parameterId) {
        return parameters(parameterId, "hold");
    }

    private static HyperParameters parameters(long parameterId, String kind) {
        return HyperParameters.of("{\"parameter_id\": " + parameterId + ", \"parameter_source\": \"algorithm\", "
                + "\"parameters\": {\"nni_testkit\": \"" + kind + "\"}, \"parameter_index\": 0}", 0);
    }
}
