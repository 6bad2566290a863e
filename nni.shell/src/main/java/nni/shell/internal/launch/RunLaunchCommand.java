package nni.shell.internal.launch;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

import nni.api.experiment.ExperimentInfo;
import nni.api.experiment.ExperimentReading;
import nni.api.experiment.ExperimentService;
import nni.api.experiment.Outcome;
import nni.api.experiment.TrialSummary;
import nni.api.model.TrialStatus;

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

    private final ExperimentService experiments;
    private final WebUiAddress webUi;

    @Activate
    public RunLaunchCommand(@Reference ExperimentService experiments, @Reference WebUiAddress webUi) {
        this.experiments = experiments;
        this.webUi = webUi;
    }

    @Override
    public int execute(List<String> arguments, PrintStream out, PrintStream err) throws Exception {
        if (arguments.size() != 1) {
            err.println("usage: java -jar nni-osgi.jar run <experiment config .yml>");
            return 2;
        }
        // the id first, before anything of the experiment exists: a run killed while creating it can be resumed
        Outcome<ExperimentInfo> created = experiments.create(Path.of(arguments.get(0)).toAbsolutePath(), (id, directory) -> {
            out.println("experiment " + id + " is being created in " + directory);
            out.flush();
        });
        if (!created.isDone()) {
            // the one refusal of create: the configuration, in the loader's words
            err.println(created.refusal().orElseThrow().message());
            return 2;
        }
        ExperimentInfo experiment = created.value();
        out.println("experiment " + experiment.id() + " started in " + experiment.directory());
        experiment.waitingForPlatform().ifPresent(why -> err.println("not running on: " + why));
        webUi.of(experiment.id()).ifPresent(address -> out.println("web UI: " + address));
        return follow(experiments, experiment.id(), out, err);
    }

    /**
     * Shows an experiment's progress until it settles, prints the best trials, stops it.
     *
     * @return {@link #exitCode} of how it ended
     */
    static int follow(ExperimentService experiments, String id, PrintStream out, PrintStream err)
            throws InterruptedException, ExecutionException, IOException {
        // Ctrl-C or SIGTERM ends the JVM without stopping the framework: cancel the trials then,
        // or they would outlive the run (their process groups do not get the terminal's signal)
        Thread cancelOnExit = new Thread(() -> experiments.stop(id), "nni-run-shutdown");
        Runtime.getRuntime().addShutdownHook(cancelOnExit);
        try {
            return followUntilSettled(experiments, id, out, err);
        } finally {
            try {
                Runtime.getRuntime().removeShutdownHook(cancelOnExit);
            } catch (IllegalStateException shuttingDown) {
                // the hook is running
            }
        }
    }

    private static int followUntilSettled(ExperimentService experiments, String id, PrintStream out, PrintStream err)
            throws InterruptedException, ExecutionException, IOException {
        Outcome<CompletionStage<String>> whenSettled = experiments.settled(id);
        // not open already: stopped from outside before it could be followed
        CompletableFuture<String> settled = whenSettled.isDone() ? whenSettled.value().toCompletableFuture()
                : CompletableFuture.completedFuture("STOPPED");
        boolean terminal = System.console() != null;
        String shown = "";
        String end;
        ExperimentInfo info;
        boolean anySucceeded;
        // the reading of the open experiment goes on reading it once it is stopped
        try (ExperimentReading experiment = readable(experiments, id)) {
            try {
                while (true) {
                    try {
                        end = settled.get(terminal ? 500 : 5000, TimeUnit.MILLISECONDS);
                        break;
                    } catch (TimeoutException e) {
                        String line = experiment.summary().progressLine();
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
                out.println(experiment.summary().progressLine() + (terminal ? "\033[K" : ""));
                printBest(experiment, out);
                printFailed(experiment, err);
            } finally {
                // stopped from outside already (REST DELETE /experiment, nni:halt): nothing left to stop
                experiments.stop(id);
            }
            // a trial an assessor stopped early ran as it should: its results count
            anySucceeded = experiment.trialSummaries().stream().anyMatch(t -> t.job().status() == TrialStatus.SUCCEEDED
                    || t.job().status() == TrialStatus.EARLY_STOPPED);
            info = experiment.info();
            // read after the stop: an algorithm that failed over the last results as it was closed fails the run
            if (info.status().equals("ERROR") && !end.equals("ERROR")) {
                end = "ERROR";
                out.println(experiment.summary().progressLine());
            }
            info.errors().forEach(error -> err.println("error: " + error));
        }
        out.println("experiment " + id + " " + end + "; data in " + info.directory());
        if (end.equals("DONE") && !anySucceeded) {
            err.println("no trial succeeded (exit code " + NO_TRIAL_SUCCEEDED + ")");
        }
        return exitCode(end, anySucceeded);
    }

    /** @return the experiment read: the open one, or a stored copy when it was stopped meanwhile */
    private static ExperimentReading readable(ExperimentService experiments, String id) throws IOException {
        return experiments.read(id).orElseThrow(refusal -> new IOException(refusal.message()));
    }

    /** The exit code of an experiment that ended DONE without one successful trial. */
    static final int NO_TRIAL_SUCCEEDED = 5;

    /**
     * @param end the status it settled with, as {@link ExperimentInfo#status()} spells it
     * @return 0 when the experiment ended DONE with a trial that succeeded (or was stopped early by its
     *         assessor), 5 when it ended DONE with none, 3 when it was stopped before its end, 1 on ERROR
     */
    static int exitCode(String end, boolean anySucceeded) {
        return switch (end) {
            case "DONE" -> anySucceeded ? 0 : NO_TRIAL_SUCCEEDED;
            case "STOPPED" -> 3;
            default -> 1;
        };
    }

    /** The last failed trials with why (their exit code and the end of their stderr). */
    private static void printFailed(ExperimentReading experiment, PrintStream err) {
        List<TrialSummary> failed = experiment.trialSummaries().stream().filter(t -> t.job().status() == TrialStatus.FAILED).toList();
        if (failed.isEmpty()) {
            return;
        }
        err.println(failed.size() + " trial" + (failed.size() == 1 ? "" : "s") + " failed"
                + (failed.size() > FAILED_SHOWN ? "; the last " + FAILED_SHOWN + ":" : ":"));
        for (TrialSummary trial : failed.subList(Math.max(0, failed.size() - FAILED_SHOWN), failed.size())) {
            err.println(String.format("  %-6s %4d  %s", trial.job().id(), trial.sequenceId(), trial.job().message()));
        }
    }

    private static String stripClock(String line) {
        int elapsed = line.indexOf("  elapsed ");
        return elapsed < 0 ? line : line.substring(0, elapsed);
    }

    private static void printBest(ExperimentReading experiment, PrintStream out) {
        boolean maximizing = experiment.info().maximizing();
        Comparator<TrialSummary> order = Comparator.comparingDouble(t -> t.finalValue().orElseThrow());
        List<TrialSummary> best = experiment.trialSummaries().stream().filter(t -> t.finalValue().isPresent())
                .sorted(maximizing ? order.reversed() : order).limit(BEST_SHOWN).toList();
        if (best.isEmpty()) {
            out.println("no trial reported a final result");
            return;
        }
        out.println("best trials (" + (maximizing ? "maximize" : "minimize") + "):");
        out.println(String.format("  %-6s %4s %-10s %14s  %s", "trial", "seq", "status", "final", "parameters"));
        for (TrialSummary trial : best) {
            String packed = experiment.trial(trial.job().id()).flatMap(t -> t.packedParameters()).orElse("");
            out.println(String.format("  %-6s %4d %-10s %14.6g  %s", trial.job().id(), trial.sequenceId(),
                    trial.job().status(), trial.finalValue().orElseThrow(), parameters(packed)));
        }
    }

    private static String parameters(String packed) {
        int start = packed.indexOf("\"parameters\":");
        int end = packed.lastIndexOf(",\"parameter_index\"");
        return start >= 0 && end > start ? packed.substring(start + "\"parameters\":".length(), end) : packed;
    }
}
