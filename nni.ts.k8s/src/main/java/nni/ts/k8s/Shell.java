package nni.ts.k8s;

/** Quoting for the POSIX shell that runs the keeper script in the containers. */
final class Shell {

    private Shell() {
    }

    /** @return {@code text} as one shell word, taken literally ({@code 'it'\''s'}) */
    static String quote(String text) {
        return "'" + text.replace("'", "'\\''") + "'";
    }
}
