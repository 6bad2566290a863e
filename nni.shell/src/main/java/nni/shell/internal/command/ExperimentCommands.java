package nni.shell.internal.command;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.apache.felix.service.command.Descriptor;
import org.apache.felix.service.command.Parameter;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

import nni.api.experiment.ExperimentEntry;
import nni.api.experiment.ExperimentInfo;
import nni.api.experiment.ExperimentReading;
import nni.api.experiment.ExperimentService;
import nni.api.experiment.ExperimentSummary;
import nni.api.experiment.Outcome;
import nni.api.experiment.TrialEvent;
import nni.api.experiment.TrialInfo;
import nni.api.experiment.TrialSummary;
import nni.api.experiment.ExperimentUpdate;
import nni.api.model.TrialJob;
import nni.api.model.TrialStatus;
import nni.api.platform.PlatformException;
import nni.http.JsonBodies;
import nni.shell.internal.logs.ExperimentLogFiles;

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
        "osgi.command.function=output", "osgi.command.function=top", "osgi.command.function=explog"})
public class ExperimentCommands {

    /** nni:trials' description, for both its forms: help shows the first it finds */
    private static final String TRIALS = "lists the trials of the running experiment (or of the one named by ID or --experiment "
            + "ID, open or stored), as nnictl trial ls: id, sequence, status, platform, final result, duration, parameters, "
            + "why it ended";

    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss");

    private final ExperimentService service;

    @Activate
    public ExperimentCommands(@Reference ExperimentService service) {
        this.service = service;
    }

    @Descriptor("creates and starts an experiment from an NNI config file (v2 or v1 YAML)")
    public String create(@Descriptor("the experiment config file") String file) throws PlatformException, IOException {
        String[] created = new String[1];
        ExperimentInfo experiment;
        try {
            // a configuration refused is INVALID, in the loader's words (file, line, field)
            experiment = ConsoleAnswers.of(service.create(ClientSide.file(file), (id, directory) -> created[0] = id));
        } catch (PlatformException e) {
            if (created[0] == null) {
                throw e;
            }
            throw new PlatformException("experiment " + created[0] + " could not start: " + e.getMessage()
                    + " (it stays listed by nni:experiments; nni:delete " + created[0] + " removes it)", e);
        }
        // a hybrid experiment runs on the members that opened; the others are named with why
        return "experiment " + experiment.id() + " " + experiment.status() + " in " + experiment.directory()
                + experiment.waitingForPlatform().map(why -> "\nnot running on: " + why).orElse("");
    }

    @Descriptor("resumes a stopped or crashed experiment: re-attaches running trials, continues the sequence")
    public String resume(@Descriptor("experiment id") String id) throws PlatformException, IOException {
        ExperimentInfo experiment = ConsoleAnswers.of(service.resume(id));
        return "experiment " + id + " " + experiment.status() + ", " + experiment.trialCount() + " trials so far"
                + experiment.waitingForPlatform().map(why -> "\nnot running on: " + why).orElse("");
    }

    @Descriptor("opens an experiment read-only")
    public String view(@Descriptor("experiment id") String id) throws IOException {
        // one open already, running or viewed, is shown as it is
        Outcome<ExperimentInfo> open = service.get(id);
        ExperimentInfo experiment = open.isDone() ? open.value() : ConsoleAnswers.of(service.view(id));
        return "experiment " + id + " " + experiment.status() + ", " + experiment.trialCount() + " trials";
    }

    @Descriptor("stops an experiment (nnictl stop): cancels its trials and keeps its data")
    public String halt(@Descriptor("experiment id") String id) {
        ConsoleAnswers.of(service.stop(id));
        return "experiment " + id + " stopped";
    }

    @Descriptor("changes a running experiment (nnictl update): concurrency, maxtrialnumber, duration, searchspace")
    public String change(@Descriptor("experiment id") String id,
                         @Descriptor("concurrency | maxtrialnumber | duration | searchspace") String what,
                         @Descriptor("the new value: a number, a duration such as 2h, or a search space JSON file") String value)
            throws IOException {
        String experimentId = ConsoleAnswers.of(service.get(id)).id();
        String field = ConsoleAnswers.of(ExperimentUpdate.consoleField(what));
        ExperimentUpdate update = ConsoleAnswers.of(field.equals(ExperimentUpdate.SEARCH_SPACE)
                // read as a REST body is, numbers exactly: the update's rule refuses 1e309, Jackson would make it Infinity
                ? ExperimentUpdate.of(field, JsonBodies.read(Files.readAllBytes(ClientSide.file(value)), "the search space file " + value))
                : ExperimentUpdate.fromConsole(what, value));
        ExperimentInfo changed = ConsoleAnswers.of(service.update(experimentId, update));
        // a limit lowered below what already ran takes effect at once: nothing more starts
        return "experiment " + experimentId + ": " + what + " = " + value
                + changed.belowStarted().map(note -> "\n" + note).orElse("");
    }

    @Descriptor("changes the only open experiment (nnictl update)")
    public String change(@Descriptor("concurrency | maxtrialnumber | duration | searchspace") String what,
                         @Descriptor("the new value") String value) throws IOException {
        return change(null, what, value);
    }

    @Descriptor("lists every experiment stored under the root: id, name, status (how it ended, for one not open), "
            + "platform, trials (succeeded, failed, ... of max), best final result, start and end")
    public String experiments() throws IOException {
        TextTable table = new TextTable(List.of("ID", "NAME", "STATUS", "PLATFORM", "TRIALS", "BEST", "START", "END"));
        for (ExperimentEntry entry : service.listing()) {
            ExperimentSummary summary = entry.summary();
            table.add(Arrays.asList(entry.id(), entry.name().orElse(null), entry.status(),
                    summary.configuredPlatform().orElse(null), summary.countsText(),
                    summary.best().map(Figures::number).orElse(null),
                    time(entry.startTime().map(Instant::toEpochMilli).orElse(null)),
                    time(entry.endTime().map(Instant::toEpochMilli).orElse(null))));
        }
        return table.size() == 0 ? "no experiment under " + service.root() : table.toString();
    }

    @Descriptor(TRIALS)
    public String trials(
            @Parameter(names = "--status", absentValue = "") @Descriptor("only trials with this status") String status,
            @Parameter(names = "--experiment", absentValue = "")
            @Descriptor("experiment id, open or stored (default: the running one)") String id,
            @Parameter(names = "--sort", absentValue = "sequence")
            @Descriptor("sequence (default), id, status, result or duration") String sort,
            @Parameter(names = "--head", absentValue = "0") @Descriptor("only the N best trials by final result") int head,
            @Parameter(names = "--tail", absentValue = "0") @Descriptor("only the N worst trials by final result") int tail)
            throws IOException {
        if (head < 0 || tail < 0 || (head > 0 && tail > 0)) {
            throw new IllegalArgumentException("--head and --tail: give one of them, a number above 0");
        }
        String experimentId = id.isEmpty() ? ConsoleAnswers.of(service.get(null)).id() : id;
        // an experiment that is not open is read from its store, read-only, and let go at once
        try (ExperimentReading experiment = ConsoleAnswers.of(service.read(experimentId))) {
            return trials(experiment, status, sort, head, tail);
        }
    }

    @Descriptor(TRIALS)
    public String trials(
            @Parameter(names = "--status", absentValue = "") @Descriptor("only trials with this status") String status,
            @Parameter(names = "--sort", absentValue = "sequence")
            @Descriptor("sequence (default), id, status, result or duration") String sort,
            @Parameter(names = "--head", absentValue = "0") @Descriptor("only the N best trials by final result") int head,
            @Parameter(names = "--tail", absentValue = "0") @Descriptor("only the N worst trials by final result") int tail,
            @Descriptor("experiment id, open or stored") String id) throws IOException {
        return trials(status, id, sort, head, tail);
    }

    private String trials(ExperimentReading experiment, String status, String sort, int head, int tail) {
        if (!status.isEmpty()) {
            try {
                TrialStatus.valueOf(status.toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("--status: expected one of " + List.of(TrialStatus.values()) + ", got '" + status + "'");
            }
        }
        ExperimentInfo info = experiment.info();
        Comparator<TrialSummary> byResult = Comparator.comparing((TrialSummary t) -> t.finalValue().orElse(null),
                Comparator.nullsLast(info.maximizing() ? Comparator.<Double>reverseOrder() : Comparator.<Double>naturalOrder()));
        Comparator<TrialSummary> order = switch (sort.toLowerCase(Locale.ROOT)) {
            case "sequence", "seq" -> Comparator.comparingLong(TrialSummary::sequenceId);
            case "id" -> Comparator.comparing(t -> t.job().id());
            case "status" -> Comparator.comparing((TrialSummary t) -> t.job().status().name())
                    .thenComparingLong(TrialSummary::sequenceId);
            case "result", "default" -> byResult;
            case "duration" -> Comparator.comparing(t -> duration(t.job()), Comparator.nullsLast(Comparator.<Duration>reverseOrder()));
            default -> throw new IllegalArgumentException("--sort: expected sequence, id, status, result or duration, got '"
                    + sort + "'");
        };
        List<TrialSummary> all = experiment.trialSummaries();
        List<TrialSummary> shown = all.stream()
                .filter(t -> status.isEmpty() || t.job().status().name().equalsIgnoreCase(status)).toList();
        if (head > 0 || tail > 0) {
            List<TrialSummary> withResult = shown.stream().filter(t -> t.finalValue().isPresent()).sorted(byResult).toList();
            shown = head > 0 ? withResult.subList(0, Math.min(head, withResult.size()))
                    : withResult.subList(Math.max(0, withResult.size() - tail), withResult.size());
        }
        if (head == 0 && tail == 0) {
            shown = shown.stream().sorted(order).toList();
        }
        TextTable table = new TextTable(List.of("TRIAL", "SEQ", "STATUS", "PLATFORM", "RESULT", "DURATION", "PARAMETERS",
                "MESSAGE"));
        for (TrialSummary trial : shown) {
            Duration took = duration(trial.job());
            table.add(Arrays.asList(trial.job().id(), trial.sequenceId(), trial.job().status(), trial.platform().orElse(null),
                    trial.finalValue().map(Figures::number).orElse(null),
                    took == null ? null : Figures.clock(took), parameters(trial.parameters()),
                    trial.job().message().isEmpty() ? null : trial.job().message()));
        }
        return "experiment " + info.id() + " (" + info.status() + "), " + table.size() + " of "
                + all.size() + " trials\n" + table;
    }

    @Descriptor("shows one trial: status, why it waits or ended, where it runs, times, parameters, metrics, directory")
    public Map<String, Object> trial(@Descriptor("trial id") String trialId) {
        TrialInfo trial = owned(trialId);
        Map<String, Object> shown = new LinkedHashMap<>();
        shown.put("experiment", trial.experimentId());
        shown.put("id", trial.job().id());
        shown.put("sequence", trial.sequenceId());
        shown.put("status", trial.job().status());
        String message = trial.job().message();
        if (!message.isEmpty()) {
            shown.put(message.startsWith("waiting") ? "waiting" : "message", message.replaceFirst("^waiting: ", ""));
        }
        shown.put("platform", trial.platform().orElse(null));
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
        shown.put("parameters", trial.packedParameters().orElse(null));
        shown.put("intermediate", trial.intermediate());
        shown.put("final", trial.finalValue().orElse(null));
        shown.put("directory", trial.job().workingDirectory());
        return shown;
    }

    @Descriptor("cancels a trial (USER_CANCELED); its whole process tree is killed")
    public String cancel(@Descriptor("trial id") String trialId) {
        TrialInfo trial = owned(trialId);
        TrialJob before = trial.job();
        if (before.status().isTerminal()) {
            return "trial " + trialId + " had already ended (" + before.status()
                    + (before.endTime() == null ? "" : " at " + time(before.endTime().toEpochMilli())) + "); nothing to cancel";
        }
        ConsoleAnswers.of(service.cancelTrial(trial.experimentId(), trialId));
        return "trial " + trialId + " cancelled";
    }

    @Descriptor("prints a trial's stdout (default), stderr or trial.log (nnictl log)")
    public String output(@Descriptor("trial id") String trialId,
                      @Descriptor("stdout | stderr | trial.log") String which) throws IOException {
        TrialInfo trial = owned(trialId);
        if (!ExperimentService.TRIAL_FILES.contains(which)) {
            throw new IllegalArgumentException("which: expected stdout, stderr or trial.log, got '" + which + "'");
        }
        Optional<InputStream> file = ConsoleAnswers.of(service.openTrialFile(trial.experimentId(), trialId, which));
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

    @Descriptor("prints the end of an experiment's own log, log/nnimanager.log (what the runtime logged about it), "
            + "with its trials' state changes, in time order")
    public String explog(
            @Parameter(names = "--tail", absentValue = "100") @Descriptor("how many of its last lines (default 100)") int tail,
            @Descriptor("experiment id, open or stored") String id) throws IOException {
        if (tail < 1) {
            throw new IllegalArgumentException("--tail: expected a number of lines above 0, got " + tail);
        }
        Path file;
        List<TrialEvent> events;
        try (ExperimentReading reading = ConsoleAnswers.of(service.read(id))) {
            file = reading.info().directory().resolve("log").resolve(ExperimentLogFiles.MANAGER_LOG);
            events = reading.trialEvents();
        }
        List<String> log = Files.isRegularFile(file) ? Files.readAllLines(file, StandardCharsets.UTF_8) : List.of();
        List<String> lines = ExperimentTimeline.lines(log, events, ZoneId.systemDefault());
        if (lines.isEmpty()) {
            return "(experiment " + id + " has no " + file + " and no trial yet)";
        }
        return String.join("\n", lines.subList(Math.max(0, lines.size() - tail), lines.size()));
    }

    @Descriptor("prints the end of the running experiment's own log, log/nnimanager.log, with its trials' state changes")
    public String explog(
            @Parameter(names = "--tail", absentValue = "100") @Descriptor("how many of its last lines (default 100)") int tail)
            throws IOException {
        return explog(tail, ConsoleAnswers.of(service.get(null)).id());
    }

    @Descriptor("live view of the open experiments: succeeded, failed, stopped early, cancelled, running, waiting of max; "
            + "best metric, elapsed, time left (from the finished trials' mean run time); redrawn in place on a terminal, "
            + "else printed as it changes; until they all settle (interrupt to leave)")
    public void top(
            @Parameter(names = "--interval", absentValue = "1") @Descriptor("seconds between refreshes") int interval,
            @Parameter(names = "--once", presentValue = "true", absentValue = "false") @Descriptor("print once") boolean once)
            throws IOException, InterruptedException {
        new TopView(service, System.out, ClientSide.terminalColumns()).run(interval, once);
    }

    private static String time(Object epochMillis) {
        return epochMillis instanceof Number millis
                ? TIME.format(Instant.ofEpochMilli(millis.longValue()).atZone(ZoneId.systemDefault())) : null;
    }

    /** @return how long a trial ran, or ran so far; null when it never started */
    private static Duration duration(TrialJob job) {
        if (job.startTime() == null) {
            return null;
        }
        Instant end = job.endTime() != null ? job.endTime() : job.status().isTerminal() ? job.startTime() : Instant.now();
        return Duration.between(job.startTime(), end);
    }

    /** @return {@code name=value} pairs, the way a user reads a trial's parameters */
    static String parameters(Map<String, Object> parameters) {
        StringBuilder text = new StringBuilder();
        parameters.forEach((name, value) -> text.append(text.length() == 0 ? "" : " ").append(name).append('=')
                .append(value instanceof Double d ? Figures.number(d) : value));
        return text.toString();
    }

    /** @return the trial as the open experiment that has it tracks it */
    private TrialInfo owned(String trialId) {
        for (ExperimentInfo experiment : service.list()) {
            Outcome<TrialInfo> trial = service.trial(experiment.id(), trialId);
            if (trial.isDone()) {
                return trial.value();
            }
        }
        throw new IllegalArgumentException("no open experiment has a trial " + trialId);
    }
}
