package nni.ts.remote.internal.keeper;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Which trial keeper a worker can run, decided once per worker from what {@code java -version}
 * and {@code python3 --version} print there: the Java keeper needs Java 17 or newer, the Python
 * keeper Python 3.7 or newer. With {@link Choice#AUTO} Java is preferred (it is the keeper measured
 * for throughput), Python taken when Java is missing or too old. Pure logic: a platform runs
 * {@link #command} where its workers are (over SSH, in a pod, in a job) and hands the output here.
 */
public final class KeeperProbe {

    /** The keeper that runs on a worker. */
    public enum Runtime {
        JAVA, PYTHON
    }

    /** What the platform's configuration asks for ({@code keeper = auto | java | python}). */
    public enum Choice {
        AUTO, JAVA, PYTHON;

        /** @throws IllegalArgumentException naming the allowed values */
        public static Choice parse(String text) {
            for (Choice choice : values()) {
                if (choice.name().equalsIgnoreCase(text == null ? "" : text.trim())) {
                    return choice;
                }
            }
            throw new IllegalArgumentException("keeper must be auto, java or python, got '" + text + "'");
        }
    }

    /** The worker can run no keeper the configuration allows; the message names the machine and what it needs. */
    public static final class NoKeeperException extends Exception {
        private static final long serialVersionUID = 1L;

        NoKeeperException(String message) {
            super(message);
        }
    }

    public static final int JAVA_MAJOR = 17;
    public static final int PYTHON_MINOR = 7;
    static final String SEPARATOR = "--nni-keeper-probe--";
    private static final Pattern JAVA_VERSION = Pattern.compile("version \"(\\d+)(?:\\.(\\d+))?");
    private static final Pattern PYTHON_VERSION = Pattern.compile("Python (\\d+)\\.(\\d+)(?:\\.\\d+)?");

    private KeeperProbe() {
    }

    /**
     * @param javaCommand   how the worker runs Java ({@code java})
     * @param pythonCommand how the worker runs Python 3 ({@code python3})
     * @return one shell command printing both versions (first lines only), whatever is missing
     */
    public static String command(String javaCommand, String pythonCommand) {
        return "{ " + javaCommand + " -version; } 2>&1 | head -n 3; echo " + SEPARATOR + "; { " + pythonCommand
                + " --version; } 2>&1 | head -n 1; true";
    }

    /**
     * @param machine what messages call the worker ({@code 10.0.0.5:22})
     * @param output  what {@link #command} printed there
     * @throws NoKeeperException when the worker has neither (or not the one the choice names)
     */
    public static Runtime choose(String machine, Choice choice, String output, String javaCommand, String pythonCommand)
            throws NoKeeperException {
        int separator = output.indexOf(SEPARATOR);
        String javaSays = versionLine(separator < 0 ? output : output.substring(0, separator));
        String pythonSays = firstLine(separator < 0 ? "" : output.substring(separator + SEPARATOR.length()));
        boolean java = javaMajor(javaSays) >= JAVA_MAJOR;
        boolean python = pythonSays(pythonSays);
        String javaNeed = "Java " + JAVA_MAJOR + " or newer (`" + javaCommand + " -version`: " + said(javaSays) + ")";
        String pythonNeed = "Python 3." + PYTHON_MINOR + " or newer (`" + pythonCommand + " --version`: " + said(pythonSays) + ")";
        switch (choice) {
            case JAVA -> {
                if (java) {
                    return Runtime.JAVA;
                }
                throw new NoKeeperException("machine " + machine + " cannot run the Java trial keeper (keeper = java): it needs " + javaNeed);
            }
            case PYTHON -> {
                if (python) {
                    return Runtime.PYTHON;
                }
                throw new NoKeeperException("machine " + machine + " cannot run the Python trial keeper (keeper = python): it needs "
                        + pythonNeed);
            }
            default -> {
                if (java) {
                    return Runtime.JAVA;
                }
                if (python) {
                    return Runtime.PYTHON;
                }
                throw new NoKeeperException("machine " + machine + " can run no trial keeper: it needs " + javaNeed + " or " + pythonNeed);
            }
        }
    }

    /** @return the Java feature release {@code java -version} names (8 for "1.8.0"), or -1 */
    static int javaMajor(String says) {
        Matcher m = JAVA_VERSION.matcher(says);
        if (!m.find()) {
            return -1;
        }
        int major = Integer.parseInt(m.group(1));
        return major == 1 && m.group(2) != null ? Integer.parseInt(m.group(2)) : major;
    }

    private static boolean pythonSays(String says) {
        Matcher m = PYTHON_VERSION.matcher(says);
        return m.find() && (Integer.parseInt(m.group(1)) > 3 || (Integer.parseInt(m.group(1)) == 3 && Integer.parseInt(m.group(2)) >= PYTHON_MINOR));
    }

    /** @return the line naming the version (a JVM may first say "Picked up JAVA_TOOL_OPTIONS"), else the first one */
    private static String versionLine(String text) {
        for (String line : text.split("\n")) {
            if (JAVA_VERSION.matcher(line).find()) {
                return line.strip();
            }
        }
        return firstLine(text);
    }

    private static String firstLine(String text) {
        for (String line : text.split("\n")) {
            if (!line.isBlank()) {
                return line.strip();
            }
        }
        return "";
    }

    private static String said(String line) {
        String shown = line.isEmpty() ? "no output" : line.length() > 120 ? line.substring(0, 120) + "..." : line;
        return shown.toLowerCase(Locale.ROOT).contains("not found") ? "not found" : shown;
    }
}
