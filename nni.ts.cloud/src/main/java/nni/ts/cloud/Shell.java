package nni.ts.cloud;

import java.util.List;
import java.util.stream.Collectors;

/** Quoting for the POSIX shell that runs a job's command on a cluster. */
public final class Shell {

    private Shell() {
    }

    /** @return {@code text} in single quotes, safe as one shell word */
    public static String quote(String text) {
        return "'" + text.replace("'", "'\\''") + "'";
    }

    /** @return the words quoted and joined with spaces: one command line */
    public static String join(List<String> words) {
        return words.stream().map(Shell::quote).collect(Collectors.joining(" "));
    }
}
