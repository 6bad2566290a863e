package nni.shell.internal.command;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import org.apache.felix.service.command.Descriptor;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.FrameworkUtil;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

import nni.api.experiment.AlgorithmView;
import nni.api.experiment.InstalledAlgorithms;
import nni.api.experiment.InstalledPlatforms;
import nni.api.experiment.PlatformView;
import nni.api.platform.TrainingPlatform;

/** Gogo commands about the runtime itself: {@code nni:platforms}, {@code nni:algorithms}, {@code nni:version}. */
@Component(service = PlatformCommands.class, property = {
        "osgi.command.scope=nni",
        "osgi.command.function=platforms",
        "osgi.command.function=algorithms",
        "osgi.command.function=version"})
public class PlatformCommands {

    /** The columns of {@code nni:platforms}, one {@link #line} per platform under it. */
    private static final String PLATFORMS_HEADER = String.format("%-20s %-28s %-14s %-9s %-8s %s", "PLATFORM", "BUNDLE",
            "VERSION", "STATE", "SESSIONS", "RUNS TRIALS");

    private final InstalledPlatforms installed;
    private final InstalledAlgorithms algorithms;
    private final BundleContext context;

    @Activate
    public PlatformCommands(@Reference InstalledPlatforms installed, @Reference InstalledAlgorithms algorithms,
                            BundleContext context) {
        this.installed = installed;
        this.algorithms = algorithms;
        this.context = context;
    }

    @Descriptor("lists the installed training platforms: name, bundle, version, state (active, or shadowed by another "
            + "bundle with the name), open sessions, and whether trials can run there; under it, how each session's trials "
            + "report (over http or files, and why)")
    public String platforms() {
        List<PlatformView> platforms = installed.platforms();
        if (platforms.isEmpty()) {
            return "no platform is installed; drop a platform bundle into deploy/";
        }
        StringBuilder text = new StringBuilder(PLATFORMS_HEADER).append('\n');
        platforms.forEach(platform -> text.append(line(platform)).append('\n'));
        return text.toString();
    }

    /** @return the platform's line under the header, then one indented line per session that says how its trials report */
    static String line(PlatformView platform) {
        return String.format("%-20s %-28s %-14s %-9s %-8d %s", platform.name(), platform.bundle(), platform.version(),
                platform.state(), platform.sessions(), platform.runsTrials() ? "yes" : "no (validates its section only)")
                + platform.reports().stream().map(r -> "\n  experiment " + r.experiment() + " reports over "
                        + r.channel().transport() + ": " + r.channel().why()).collect(Collectors.joining());
    }

    @Descriptor("lists the installed tuners, assessors and advisors (nnictl algo list): what tuner.name and "
            + "assessor.name of an experiment file may name, matched ignoring case")
    public String algorithms() {
        TextTable table = new TextTable(List.of("TYPE", "NAME", "BUNDLE", "VERSION"));
        boolean java = false;
        boolean nni = false;
        for (AlgorithmView algorithm : algorithms.algorithms()) {
            java |= algorithm.kind().equals(AlgorithmView.ADVISOR);
            nni |= algorithm.kind().equals(AlgorithmView.NNI_DISPATCHER);
            algorithm.names().forEach(name -> table.add(List.of(algorithm.kind(), name, algorithm.bundle(), algorithm.version())));
        }
        return table + (java ? "advisors (rows \"advisor\") run in Java; implementation: python runs NNI's instead\n"
                : "advisors: none installed in Java (bundle nni.tuners has Hyperband and BOHB)\n")
                + (nni ? "the rows \"NNI dispatcher\" run through NNI's dispatcher, with python3 and NNI's nni package\n"
                : "NNI's dispatcher is not installed (bundle nni.dispatcher)\n");
    }

    @Descriptor("shows the versions of the manager, the platform SPI, the framework and Java")
    public Map<String, String> version() {
        // the engine's bundle, whose component lists the platforms (this command's bundle is the shell)
        Bundle manager = FrameworkUtil.getBundle(installed.getClass());
        Bundle api = FrameworkUtil.getBundle(TrainingPlatform.class);
        Bundle framework = context.getBundle(0);
        Map<String, String> versions = new LinkedHashMap<>();
        versions.put("manager", manager == null ? "?" : manager.getVersion().toString());
        versions.put("api", api == null ? "?" : api.getVersion().toString());
        versions.put("framework", framework.getSymbolicName() + " " + framework.getVersion());
        versions.put("java", System.getProperty("java.version"));
        return versions;
    }
}
