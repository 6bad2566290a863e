package nni.itest.keeper;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

/** Trial code for the tests: bash that speaks NNI's trial protocol the way the Python SDK does. */
public final class TrialScripts {

    private TrialScripts() {
    }

    /**
     * Writes {@code trial.sh} into {@code codeDirectory}. It checks NNI's environment, reads
     * {@code parameter.cfg}, reports {@code before} PERIODICAL metrics on stdout, waits for the file
     * named by the parameter {@code waitFor} if given, reports {@code after} more, alternating
     * stdout lines and {@code .nni/metrics} frames, then a FINAL metric whose value is the
     * parameter id, and exits with the parameter {@code exit} (0 if absent).
     */
    public static Path write(Path codeDirectory) throws IOException {
        Files.createDirectories(codeDirectory);
        String script = String.join("\n",
                "#!/bin/bash",
                "export LC_ALL=C",
                "[ -n \"$NNI_PLATFORM\" ] && [ -n \"$NNI_EXP_ID\" ] && [ -n \"$NNI_TRIAL_JOB_ID\" ] || { echo 'NNI environment missing' >&2; exit 90; }",
                "[ -z \"$NNI_KEEPER_TOKEN\" ] || { echo 'the keeper token leaked into the trial' >&2; exit 91; }",
                "cfg=\"$NNI_SYS_DIR/parameter.cfg\"",
                "[ -s \"$cfg\" ] || { echo 'no parameter.cfg' >&2; exit 92; }",
                "param() { sed -n \"s/.*\\\"$1\\\": *\\\"\\{0,1\\}\\([^\\\",}]*\\).*/\\1/p\" \"$cfg\"; }",
                "pid=$(param parameter_id); before=$(param before); after=$(param after); waitFor=$(param waitFor); code=$(param exit)",
                "if [ \"$(param child)\" = 1 ]; then sleep 300 & echo $! > \"$NNI_SYS_DIR/child.pid\"; fi",
                "metric() { echo \"{\\\"parameter_id\\\": $pid, \\\"trial_job_id\\\": \\\"$NNI_TRIAL_JOB_ID\\\", \\\"type\\\": \\\"$1\\\", \\\"sequence\\\": $2, \\\"value\\\": \\\"$3\\\"}\"; }",
                "frame() { local data=\"$1\"$'\\n'; printf 'ME%06d%s' \"${#data}\" \"$data\" >> \"$NNI_SYS_DIR/.nni/metrics\"; }",
                "i=0",
                "while [ $i -lt ${before:-0} ]; do echo \"NNISDK_MEb'$(metric PERIODICAL $i $i)'\"; i=$((i+1)); done",
                "echo phase1-done",
                "if [ -n \"$waitFor\" ]; then n=0; while [ ! -e \"$waitFor\" ]; do n=$((n+1)); [ $n -lt 1200 ] || exit 93; sleep 0.05; done; fi",
                "end=$(( ${before:-0} + ${after:-0} ))",
                "while [ $i -lt $end ]; do",
                "  if [ $((i % 2)) -eq 0 ]; then echo \"NNISDK_MEb'$(metric PERIODICAL $i $i)'\"; else frame \"$(metric PERIODICAL $i $i)\"; fi",
                "  i=$((i+1))",
                "done",
                "frame \"$(metric FINAL 0 $pid)\"",
                "echo phase2-done",
                "[ \"${code:-0}\" = 0 ] || echo \"failing with $code on purpose\" >&2",
                "exit ${code:-0}",
                "");
        Path file = codeDirectory.resolve("trial.sh");
        Files.writeString(file, script);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
        return file;
    }

    /** @return a packed parameter set as the tuner would send it */
    public static String parameters(int parameterId, int before, int after, String waitFor, int exit) {
        return parameters(parameterId, before, after, waitFor, exit, false);
    }

    /** @param child true: the trial also starts a long {@code sleep} child and writes its pid to {@code child.pid} */
    public static String parameters(int parameterId, int before, int after, String waitFor, int exit, boolean child) {
        return "{\"parameter_id\": " + parameterId + ", \"parameter_source\": \"algorithm\", \"parameters\": {\"before\": " + before
                + ", \"after\": " + after + (waitFor == null ? "" : ", \"waitFor\": \"" + waitFor + "\"")
                + ", \"exit\": " + exit + (child ? ", \"child\": 1" : "") + "}, \"parameter_index\": 0}";
    }
}
