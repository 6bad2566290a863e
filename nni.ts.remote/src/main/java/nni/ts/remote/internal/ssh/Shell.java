package nni.ts.remote.internal.ssh;

/** Quoting for the POSIX shell on the remote side. */
public final class Shell {

    private Shell() {
    }

    /** @return {@code text} in single quotes, safe as one shell word */
    public static String quote(String text) {
        return "'" + text.replace("'", "'\\''") + "'";
    }
}
