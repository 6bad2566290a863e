package nni.ts.remote.internal.keeper;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import nni.api.environment.KeeperChoice;
import nni.api.environment.KeeperRuntime;

/**
 * Which trial keeper a worker can run, decided once per worker from what {@code java -version}
 * and {@code python3 --version} print there: the Java keeper needs Java 17 or newer, the Python
 * keeper Python 3.7 or newer. With {@link KeeperChoice#AUTO} Java is preferred (it is the keeper
 * measured for throughput), Python taken when Java is missing or too old. Pure logic: the platform
 * runs {@link #command} on the worker (over SSH) and hands the output here.
 */
public final class KeeperProbe {

    /**
     * What a worker runs: the keeper and the version of its interpreter there.
     *
     * @param version the Java feature release ({@code 17}) or the Python version ({@code 3.11})
     */
    public record Found(KeeperRuntime runtime, String version) {

        /** @return how trials show where their keeper ran ({@code java 17}, {@code python 3.11}) */
        public String describe() {
            return runtime.name().toLowerCase(Locale.ROOT) + " " + version;
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
    public static Found choose(String machine, KeeperChoice choice, String output, String javaCommand, String pythonCommand)
            throws NoKeeperException {
        int separator = output.indexOf(SEPARATOR);
        String javaSays = versionLine(separator < 0 ? output : output.substring(0, separator));
        String pythonSays = firstLine(separator < 0 ? "" : output.substring(separator + SEPARATOR.length()));
        int javaMajor = javaMajor(javaSays);
        String python = pythonVersion(pythonSays);
        String javaNeed = "Java " + JAVA_MAJOR + " or newer (`" + javaCommand + " -version`: " + said(javaSays) + ")";
        String pythonNeed = "Python 3." + PYTHON_MINOR + " or newer (`" + pythonCommand + " --version`: " + said(pythonSays) + ")";
        if (choice.allows(KeeperRuntime.JAVA) && javaMajor >= JAVA_MAJOR) {
            return new Found(KeeperRuntime.JAVA, Integer.toString(javaMajor));
        }
        if (choice.allows(KeeperRuntime.PYTHON) && python != null) {
            return new Found(KeeperRuntime.PYTHON, python);
        }
        throw new NoKeeperException(switch (choice) {
            case JAVA -> "machine " + machine + " cannot run the Java trial keeper (keeper = java): it needs " + javaNeed;
            case PYTHON -> "machine " + machine + " cannot run the Python trial keeper (keeper = python): it needs " + pythonNeed;
            case AUTO -> "machine " + machine + " can run no trial keeper: it needs " + javaNeed + " or " + pythonNeed;
        });
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

    /** @return "major.minor" when {@code python3 --version} names Python 3.7 or newer, else null */
    private static String pythonVersion(String says) {
        Matcher m = PYTHON_VERSION.matcher(says);
        if (!m.find()) {
            return null;
        }
        int major = Integer.parseInt(m.group(1));
        int minor = Integer.parseInt(m.group(2));
        return major > 3 || (major == 3 && minor >= PYTHON_MINOR) ? major + "." + minor : null;
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
