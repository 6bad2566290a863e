package nni.manager.internal.launch;

import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

import nni.api.model.TrialStatus;
import nni.manager.internal.config.ConfigException;
import nni.manager.internal.config.ExperimentConfig;
import nni.manager.internal.config.ExperimentConfigLoader;
import nni.manager.internal.experiment.Experiment;
import nni.manager.internal.experiment.GivenConfig;
import nni.manager.internal.experiment.ExperimentManager;
import nni.manager.internal.experiment.ExperimentStatus;
import nni.manager.internal.experiment.Progress;
import nni.manager.internal.experiment.TrialView;

/**
 * {@code java -jar nni-osgi.jar run <config.yml>}: runs one experiment to its end with a live
 * progress line, prints the best trials and the failed ones with why, and exits 0 when it is DONE
 * with a trial that succeeded (5 when none did, 1 on ERROR, 2 on a bad configuration, 3 when it was
 * stopped before its end). Its id is printed first, before anything of
 * it is created. The experiment's data stays in its directory; {@code nni:view <id>} shows it.
 */
@Component(property = LaunchCommand.NAME + "=run")
public class RunLaunchCommand implements LaunchCommand {

    private static final int BEST_SHOWN = 5;
    private static final int FAILED_SHOWN = 3;

    private final ExperimentConfigLoader loader;
    private final ExperimentManager experiments;
    private final WebUiAddress webUi;

    @Activate
    public RunLaunchCommand(@Reference ExperimentConfigLoader loader, @Reference ExperimentManager experiments,
                            @Reference WebUiAddress webUi) {
        this.loader = loader;
        this.experiments = experiments;
        this.webUi = webUi;
    }

    @Override
    public int execute(List<String> arguments, PrintStream out, PrintStream err) throws Exception {
        if (arguments.size() != 1) {
            err.println("usage: java -jar nni-osgi.jar run <experiment config .yml>");
            return 2;
        }
        Experiment experiment;
        try {
            // the id first, before anything of the experiment exists: a run killed while creating it can be resumed
            Path config = Path.of(arguments.get(0)).toAbsolutePath();
            ExperimentConfig loaded = loader.load(config);
            experiment = experiments.create(loaded, GivenConfig.read(config), (id, directory) -> {
                out.println("experiment " + id + " is being created in " + directory);
                out.flush();
            });
        } catch (ConfigException e) {
            err.println(e.getMessage());
            return 2;
        }
        out.println("experiment " + experiment.id() + " started in " + experiment.directory());
        experiment.waitingForPlatform().ifPresent(why -> err.println("not running on: " + why));
        webUi.of(experiment.id()).ifPresent(address -> out.println("web UI: " + address));
        return follow(experiments, experiment, out, err);
    }

    /**
     * Shows an experiment's progress until it settles, prints the best trials, stops it.
     *
     * @return {@link #exitCode} of how it ended
     */
    static int follow(ExperimentManager experiments, Experiment experiment, PrintStream out, PrintStream err)
            throws InterruptedException, java.util.concurrent.ExecutionException {
        // Ctrl-C or SIGTERM ends the JVM without stopping the framework: cancel the trials then,
        // or they would outlive the run (their process groups do not get the terminal's signal)
        Thread cancelOnExit = new Thread(() -> experiment.stop(Duration.ofSeconds(15)), "nni-run-shutdown");
        Runtime.getRuntime().addShutdownHook(cancelOnExit);
        try {
            return followUntilSettled(experiments, experiment, out, err);
        } finally {
            try {
                Runtime.getRuntime().removeShutdownHook(cancelOnExit);
            } catch (IllegalStateException shuttingDown) {
                // the hook is running
            }
        }
    }

    private static int followUntilSettled(ExperimentManager experiments, Experiment experiment, PrintStream out,
                                          PrintStream err) throws InterruptedException, java.util.concurrent.ExecutionException {
        boolean terminal = System.console() != null;
        String shown = "";
        ExperimentStatus end;
        try {
            while (true) {
                try {
                    end = experiment.settled().get(terminal ? 500 : 5000, TimeUnit.MILLISECONDS);
                    break;
                } catch (TimeoutException e) {
                    String line = Progress.of(experiment).line();
                    // on a terminal the line is redrawn in place; in a log, a line is added only on change
                    if (terminal) {
                        out.print("\r" + line + "\033[K");
                        out.flush();
                    } else if (!stripClock(line).equals(stripClock(shown))) {
                        out.println(line);
                    }
                    shown = line;
                }
            }
            out.print(terminal ? "\r" : "");
            out.println(Progress.of(experiment).line() + (terminal ? "\033[K" : ""));
            printBest(experiment, out);
            printFailed(experiment, err);
            experiment.errors().forEach(error -> err.println("error: " + error));
        } finally {
            // stopped from outside already (REST DELETE /experiment, nni:halt): nothing left to stop
            experiments.stopIfOpen(experiment.id(), Duration.ofSeconds(30));
        }
        // a trial an assessor stopped early ran as it should: its results count
        boolean anySucceeded = experiment.trials().stream().anyMatch(t -> t.job().status() == TrialStatus.SUCCEEDED
                || t.job().status() == TrialStatus.EARLY_STOPPED);
        out.println("experiment " + experiment.id() + " " + end + "; data in " + experiment.directory());
        if (end == ExperimentStatus.DONE && !anySucceeded) {
            err.println("no trial succeeded (exit code " + NO_TRIAL_SUCCEEDED + ")");
        }
        return exitCode(end, anySucceeded);
    }

    /** The exit code of an experiment that ended DONE without one successful trial. */
    static final int NO_TRIAL_SUCCEEDED = 5;

    /**
     * @return 0 when the experiment ended DONE with a trial that succeeded (or was stopped early by its
     *         assessor), 5 when it ended DONE with none, 3 when it was stopped before its end, 1 on ERROR
     */
    static int exitCode(ExperimentStatus end, boolean anySucceeded) {
        return switch (end) {
            case DONE -> anySucceeded ? 0 : NO_TRIAL_SUCCEEDED;
            case STOPPED -> 3;
            default -> 1;
        };
    }

    /** The last failed trials with why (their exit code and the end of their stderr). */
    private static void printFailed(Experiment experiment, PrintStream err) {
        List<TrialView> failed = experiment.trials().stream().filter(t -> t.job().status() == TrialStatus.FAILED).toList();
        if (failed.isEmpty()) {
            return;
        }
        err.println(failed.size() + " trial" + (failed.size() == 1 ? "" : "s") + " failed"
                + (failed.size() > FAILED_SHOWN ? "; the last " + FAILED_SHOWN + ":" : ":"));
        for (TrialView trial : failed.subList(Math.max(0, failed.size() - FAILED_SHOWN), failed.size())) {
            err.println(String.format("  %-6s %4d  %s", trial.job().id(), trial.sequenceId(), trial.job().message()));
        }
    }

    private static String stripClock(String line) {
        int elapsed = line.indexOf("  elapsed ");
        return elapsed < 0 ? line : line.substring(0, elapsed);
    }

    private static void printBest(Experiment experiment, PrintStream out) {
        Comparator<TrialView> order = Comparator.comparingDouble(TrialView::finalValue);
        List<TrialView> best = experiment.trials().stream().filter(t -> t.finalValue() != null)
                .sorted(experiment.maximizing() ? order.reversed() : order).limit(BEST_SHOWN).toList();
        if (best.isEmpty()) {
            out.println("no trial reported a final result");
            return;
        }
        out.println("best trials (" + (experiment.maximizing() ? "maximize" : "minimize") + "):");
        out.println(String.format("  %-6s %4s %-10s %14s  %s", "trial", "seq", "status", "final", "parameters"));
        for (TrialView trial : best) {
            out.println(String.format("  %-6s %4d %-10s %14.6g  %s", trial.job().id(), trial.sequenceId(),
                    trial.job().status(), trial.finalValue(), parameters(trial.packed())));
        }
    }

    private static String parameters(String packed) {
        int start = packed.indexOf("\"parameters\":");
        int end = packed.lastIndexOf(",\"parameter_index\"");
        return start >= 0 && end > start ? packed.substring(start + "\"parameters\":".length(), end) : packed;
    }
}
