package nni.manager.internal.registry;

import java.util.List;
import java.util.stream.Collectors;

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
 * @param reports  how the trials of each open session report, for the sessions whose platform says
 *                 ({@link nni.api.platform.TrainingSession#reportChannel()})
 */
public record PlatformInfo(String name, String bundle, String version, String state, int sessions, boolean runsTrials,
                           List<SessionReports> reports) {

    /**
     * How one experiment's trials report on this platform.
     *
     * @param experiment the experiment's id
     * @param transport  {@code http} or {@code files}
     * @param why        why that transport, and where
     */
    public record SessionReports(String experiment, String transport, String why) {
    }

    public PlatformInfo {
        reports = List.copyOf(reports);
    }

    /** The service property of a platform that validates its section but cannot run trials yet. */
    public static final String CHECKS_ONLY = "nni.platform.checks.only";

    /** @return the platform's line, then one indented line per session that says how its trials report */
    @Override
    public String toString() {
        return String.format("%-20s %-28s %-14s %-9s %-8d %s", name, bundle, version, state, sessions,
                runsTrials ? "yes" : "no (validates its section only)")
                + reports.stream().map(r -> "\n  experiment " + r.experiment() + " reports over " + r.transport() + ": " + r.why())
                .collect(Collectors.joining());
    }

    /** @return the header line of {@link #toString()}'s columns */
    public static String header() {
        return String.format("%-20s %-28s %-14s %-9s %-8s %s", "PLATFORM", "BUNDLE", "VERSION", "STATE", "SESSIONS",
                "RUNS TRIALS");
    }
}
