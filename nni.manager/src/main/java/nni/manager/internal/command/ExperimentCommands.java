package nni.manager.internal.command;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import org.apache.felix.service.command.Descriptor;
import org.apache.felix.service.command.Parameter;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;

import nni.api.model.TrialStatus;
import nni.api.platform.PlatformException;
import nni.manager.internal.config.ConfigException;
import nni.manager.internal.config.ExperimentConfigLoader;
import nni.manager.internal.config.UpdatableFields;
import nni.manager.internal.experiment.Experiment;
import nni.manager.internal.experiment.ExperimentManager;
import nni.manager.internal.experiment.Progress;
import nni.manager.internal.experiment.TrialFiles;
import nni.manager.internal.experiment.TrialView;

/**
 * The experiment console: {@code nni:create}, {@code nni:resume}, {@code nni:view},
 * {@code nni:halt}, {@code nni:change}, {@code nni:experiments}, {@code nni:trials},
 * {@code nni:trial}, {@code nni:cancel}, {@code nni:output}, {@code nni:top}. Commands return values
 * (Gogo prints them); a bad argument is an exception whose message names it.
 *
 * <p>No name is one the Felix shell already has: Gogo runs the first command of a name whatever
 * its scope, so an {@code nni:stop} made {@code stop 0} stop an experiment instead of the
 * framework. NNI's {@code stop}, {@code update} and {@code log} are {@code halt}, {@code change}
 * and {@code output} here.
 */
@Component(service = ExperimentCommands.class, property = {
        "osgi.command.scope=nni",
        "osgi.command.function=create", "osgi.command.function=resume", "osgi.command.function=view",
        "osgi.command.function=halt", "osgi.command.function=change", "osgi.command.function=experiments",
        "osgi.command.function=trials", "osgi.command.function=trial", "osgi.command.function=cancel",
        "osgi.command.function=output", "osgi.command.function=top"})
public class ExperimentCommands {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long TOP_MAX_REFRESHES = 86_400;

    private final ExperimentManager experiments;
    private final ExperimentConfigLoader loader;

    @Activate
    public ExperimentCommands(@Reference ExperimentManager experiments, @Reference ExperimentConfigLoader loader) {
        this.experiments = experiments;
        this.loader = loader;
    }

    @Descriptor("creates and starts an experiment from an NNI config file (v2 or v1 YAML)")
    public String create(@Descriptor("the experiment config file") String file)
            throws ConfigException, PlatformException, IOException {
        Experiment experiment = experiments.create(loader.loadRunnable(Path.of(file).toAbsolutePath()));
        return "experiment " + experiment.id() + " " + experiment.status() + " in " + experiment.directory();
    }

    @Descriptor("resumes a stopped or crashed experiment: re-attaches running trials, continues the sequence")
    public String resume(@Descriptor("experiment id") String id) throws PlatformException, IOException {
        Experiment experiment = experiments.resume(id);
        return "experiment " + id + " " + experiment.status() + ", " + experiment.trials().size() + " trials so far";
    }

    @Descriptor("opens an experiment read-only")
    public String view(@Descriptor("experiment id") String id) throws IOException {
        Experiment experiment = experiments.view(id);
        return "experiment " + id + " " + experiment.status() + ", " + experiment.trials().size() + " trials";
    }

    @Descriptor("stops an experiment (nnictl stop): cancels its trials and keeps its data")
    public String halt(@Descriptor("experiment id") String id) {
        experiments.stop(id, Duration.ofSeconds(30));
        return "experiment " + id + " stopped";
    }

    @Descriptor("changes a running experiment (nnictl update): concurrency, maxtrialnumber, duration, searchspace")
    public String change(@Descriptor("experiment id") String id,
                         @Descriptor("concurrency | maxtrialnumber | duration | searchspace") String what,
                         @Descriptor("the new value: a number, a duration such as 2h, or a search space JSON file") String value)
            throws IOException {
        Experiment experiment = experiments.require(id);
        switch (what.toLowerCase()) {
            case "concurrency", "trialconcurrency" -> experiment.update(Experiment.Update.TRIAL_CONCURRENCY,
                    UpdatableFields.fromText(value));
            case "maxtrialnumber", "maxtrialnum", "trialnum" -> experiment.update(Experiment.Update.MAX_TRIAL_NUM,
                    UpdatableFields.fromText(value));
            case "duration", "maxexperimentduration" -> experiment.update(Experiment.Update.MAX_EXEC_DURATION,
                    UpdatableFields.fromText(value));
            case "searchspace" -> experiment.update(Experiment.Update.SEARCH_SPACE,
                    JSON.readValue(Path.of(value).toFile(), new TypeReference<Map<String, Object>>() { }));
            default -> throw new IllegalArgumentException("what: expected concurrency, maxtrialnumber, duration or "
                    + "searchspace, got '" + what + "'");
        }
        return "experiment " + experiment.id() + ": " + what + " = " + value;
    }

    @Descriptor("changes the only open experiment (nnictl update)")
    public String change(@Descriptor("concurrency | maxtrialnumber | duration | searchspace") String what,
                         @Descriptor("the new value") String value) throws IOException {
        return change(null, what, value);
    }

    @Descriptor("lists experiments: open ones with their progress, and the others stored under the root")
    public List<String> experiments() {
        List<String> lines = new ArrayList<>();
        for (Experiment experiment : experiments.open()) {
            lines.add(Progress.of(experiment).line());
        }
        for (String id : experiments.stored()) {
            if (experiments.get(id).isEmpty()) {
                lines.add(id + " (not open: nni:resume " + id + " or nni:view " + id + ")");
            }
        }
        return lines;
    }

    @Descriptor("lists the trials of the open experiment (or of --experiment)")
    public List<String> trials(
            @Parameter(names = "--status", absentValue = "") @Descriptor("only trials with this status") String status,
            @Parameter(names = "--experiment", absentValue = "") @Descriptor("experiment id") String id) {
        Experiment experiment = experiments.require(id.isEmpty() ? null : id);
        if (!status.isEmpty()) {
            try {
                TrialStatus.valueOf(status.toUpperCase());
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("--status: expected one of " + List.of(TrialStatus.values()) + ", got '" + status + "'");
            }
        }
        List<String> lines = new ArrayList<>();
        for (TrialView trial : experiment.trials()) {
            if (status.isEmpty() || trial.job().status().name().equalsIgnoreCase(status)) {
                lines.add(String.format("%-6s %4d %-13s %12s  %s", trial.job().id(), trial.sequenceId(),
                        trial.job().status(), trial.finalValue() == null ? "-" : String.format("%.6g", trial.finalValue()),
                        trial.job().message()));
            }
        }
        return lines;
    }

    @Descriptor("shows one trial: status, why it waits or ended, where it runs, times, parameters, metrics, directory")
    public Map<String, Object> trial(@Descriptor("trial id") String trialId) {
        Experiment experiment = owner(trialId);
        TrialView trial = experiment.trial(trialId).orElseThrow();
        Map<String, Object> shown = new LinkedHashMap<>();
        shown.put("experiment", experiment.id());
        shown.put("id", trial.job().id());
        shown.put("sequence", trial.sequenceId());
        shown.put("status", trial.job().status());
        String message = trial.job().message();
        if (!message.isEmpty()) {
            shown.put(message.startsWith("waiting") ? "waiting" : "message", message.replaceFirst("^waiting: ", ""));
        }
        if (!trial.job().host().isEmpty()) {
            shown.put("host", trial.job().host());
        }
        if (!trial.job().attributes().isEmpty()) {
            shown.put("attributes", trial.job().attributes());
        }
        if (!trial.job().handle().isEmpty()) {
            shown.put("handle", trial.job().handle());
        }
        shown.put("submitted", trial.job().submitTime());
        Optional.ofNullable(trial.job().startTime()).ifPresent(t -> shown.put("started", t));
        Optional.ofNullable(trial.job().endTime()).ifPresent(t -> shown.put("ended", t));
        shown.put("parameters", trial.packed());
        shown.put("intermediate", trial.intermediate());
        shown.put("final", trial.finalValue());
        shown.put("directory", trial.job().workingDirectory());
        return shown;
    }

    @Descriptor("cancels a trial (USER_CANCELED); its whole process tree is killed")
    public String cancel(@Descriptor("trial id") String trialId) {
        owner(trialId).cancelTrial(trialId);
        return "trial " + trialId + " cancelled";
    }

    @Descriptor("prints a trial's stdout (default), stderr or trial.log (nnictl log)")
    public String output(@Descriptor("trial id") String trialId,
                      @Descriptor("stdout | stderr | trial.log") String which) throws IOException {
        Experiment experiment = owner(trialId);
        Optional<InputStream> file = TrialFiles.open(experiment, trialId, which);
        if (file.isEmpty()) {
            return "(trial " + trialId + " has no " + which + " yet)";
        }
        try (InputStream in = file.get()) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    @Descriptor("prints a trial's stdout")
    public String output(@Descriptor("trial id") String trialId) throws IOException {
        return output(trialId, "stdout");
    }

    @Descriptor("live view of the open experiments: done/running/waiting/failed, best metric, elapsed, time left; "
            + "refreshes until they all settle (interrupt to leave)")
    public void top(
            @Parameter(names = "--interval", absentValue = "1") @Descriptor("seconds between refreshes") int interval,
            @Parameter(names = "--once", presentValue = "true", absentValue = "false") @Descriptor("print once") boolean once)
            throws InterruptedException {
        for (long refresh = 0; refresh < TOP_MAX_REFRESHES; refresh++) {
            List<Experiment> open = experiments.open();
            System.out.println("--- " + Instant.now().toString().substring(11, 19) + " ---");
            if (open.isEmpty()) {
                System.out.println("no experiment is open");
            }
            open.forEach(e -> System.out.println(Progress.of(e).line()));
            if (once || open.stream().allMatch(e -> e.status().settled())) {
                return;
            }
            TimeUnit.SECONDS.sleep(Math.max(1, interval));
        }
    }

    private Experiment owner(String trialId) {
        for (Experiment experiment : experiments.open()) {
            if (experiment.trial(trialId).isPresent()) {
                return experiment;
            }
        }
        throw new IllegalArgumentException("no open experiment has a trial " + trialId);
    }
}
