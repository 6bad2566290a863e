package nni.manager.internal.registry;

/**
 * One installed platform as {@code nni:platforms} and {@code /api/v1/nni/platforms} show it.
 *
 * @param name     the platform name experiments use
 * @param bundle   symbolic name of the bundle that provides it
 * @param version  that bundle's version
 * @param state    {@code active}, or {@code shadowed} when another service answers to the name
 * @param sessions how many experiment sessions it serves now
 * @param runsTrials whether trials can run there; false for a platform whose bundle only checks
 *                   experiment sections (its service has {@value #CHECKS_ONLY}{@code =true})
 */
public record PlatformInfo(String name, String bundle, String version, String state, int sessions, boolean runsTrials) {

    /** The service property of a platform that validates its section but cannot run trials yet. */
    public static final String CHECKS_ONLY = "nni.platform.checks.only";

    @Override
    public String toString() {
        return String.format("%-20s %-28s %-14s %-9s %-8d %s", name, bundle, version, state, sessions,
                runsTrials ? "yes" : "no (validates its section only)");
    }

    /** @return the header line of {@link #toString()}'s columns */
    public static String header() {
        return String.format("%-20s %-28s %-14s %-9s %-8s %s", "PLATFORM", "BUNDLE", "VERSION", "STATE", "SESSIONS",
                "RUNS TRIALS");
    }
}
