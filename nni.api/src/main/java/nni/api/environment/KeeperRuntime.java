package nni.api.environment;

import java.util.List;

/**
 * The two trial keepers: the same protocol, one needing Java 17 on the worker, the other only
 * Python 3.7 and its standard library.
 */
public enum KeeperRuntime {
    /** {@code nni-trialkeeper.jar}, run as {@code java -jar <file> <arguments>} */
    JAVA("nni-trialkeeper.jar", List.of("java", "-jar")),
    /** {@code nni-trialkeeper.py}, run as {@code python3 <file> <arguments>} */
    PYTHON("nni-trialkeeper.py", List.of("python3"));

    private final String fileName;
    private final List<String> launcher;

    KeeperRuntime(String fileName, List<String> launcher) {
        this.fileName = fileName;
        this.launcher = launcher;
    }

    /** @return the keeper's file name, as the manager ships it and as platforms copy it to workers */
    public String fileName() {
        return fileName;
    }

    /**
     * @return the words before the keeper file on a command line, with the interpreter as found on
     *         the worker's {@code PATH} first ({@code java -jar}, {@code python3})
     */
    public List<String> launcher() {
        return launcher;
    }
}
