package nni.ts.remote.internal.ssh;

/** What a remote command did. */
public record ExecResult(int exitCode, String stdout, String stderr) {
    public boolean ok() {
        return exitCode == 0;
    }
}
