package nni.manager.internal.service;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.function.BiConsumer;
import java.util.function.Supplier;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;

import nni.config.GivenConfig;
import nni.api.experiment.ConfigCheck;
import nni.api.experiment.ExperimentEntry;
import nni.api.experiment.ExperimentInfo;
import nni.api.experiment.ExperimentProfile;
import nni.api.experiment.ExperimentReading;
import nni.api.experiment.ExperimentService;
import nni.api.experiment.ExperimentUpdate;
import nni.api.experiment.MetricInfo;
import nni.api.experiment.NnictlRegistry;
import nni.api.experiment.Outcome;
import nni.api.experiment.Refusal;
import nni.api.experiment.TrialDetail;
import nni.api.experiment.TrialInfo;
import nni.api.experiment.TrialSummary;
import nni.api.platform.PlatformException;
import nni.config.ConfigException;
import nni.config.ExperimentConfig;
import nni.config.ExperimentConfigLoader;
import nni.manager.internal.registry.ConfigLoading;
import nni.manager.internal.experiment.Experiment;
import nni.manager.internal.experiment.ExperimentManager;
import nni.manager.internal.experiment.TrialFiles;
import nni.manager.internal.experiment.UnknownExperimentException;
import nni.store.ExperimentStore;

/**
 * {@link ExperimentService} over the engine ({@link ExperimentManager}, {@link Experiment}): the one
 * place where the engine's refusals, thrown today as IllegalArgumentException and
 * IllegalStateException, become {@link Refusal} values. The
 * {@link nni.api.experiment.ExperimentListener} whiteboard is {@link ExperimentListenerWhiteboard}.
 */
@Component(service = ExperimentService.class, immediate = true)
public class ExperimentServiceComponent implements ExperimentService {

    /** How long {@link #stop} waits for trials to end, as {@code nni:halt} and NNI's DELETE /experiment do */
    private static final Duration STOP_PATIENCE = Duration.ofSeconds(30);

    private final ExperimentManager manager;
    private final ExperimentConfigLoader loader;
    private final StoredSummaries storedSummaries = new StoredSummaries();

    /**
     * Where the statuses of ended experiments are read (NNI's registry file). Optional and dynamic:
     * its provider belongs to the nnictl bridge, a face that may be absent or updated; while it is
     * away every ended experiment is STOPPED.
     */
    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    volatile NnictlRegistry nnictl; // package-private: a test sets it as DS would

    @Activate
    public ExperimentServiceComponent(@Reference ExperimentManager manager, @Reference ConfigLoading loading) {
        this(manager, loading.loader());
    }

    /** Over a loader of the caller's: a test's, or none for a test that creates nothing from a file. */
    public ExperimentServiceComponent(ExperimentManager manager, ExperimentConfigLoader loader) {
        this.manager = manager;
        this.loader = loader;
    }

    @Override
    public Outcome<ExperimentInfo> create(Path configFile) throws IOException, PlatformException {
        return create(configFile, (id, directory) -> { });
    }

    @Override
    public Outcome<ExperimentInfo> create(Path configFile, BiConsumer<String, Path> announce)
            throws IOException, PlatformException {
        try {
            ExperimentConfig loaded = loader.load(configFile);
            return Outcome.done(ExperimentViews.of(manager.create(loaded, GivenConfig.read(configFile), announce)));
        } catch (ConfigException e) {
            // the first error's field, else the file (an error of the whole file, such as one that is missing)
            String field = e.errors().stream().map(error -> error.path()).filter(path -> path != null && !path.isEmpty())
                    .findFirst().orElse(configFile.toString());
            return Outcome.refused(Refusal.invalid(field, e.getMessage()));
        }
    }

    @Override
    public Outcome<CompletionStage<String>> settled(String experimentId) {
        // a minimal stage: who waits cannot complete the engine's future
        return manager.find(experimentId).map(experiment -> experiment.settled().thenApply(Enum::name).minimalCompletionStage());
    }

    @Override
    public ConfigCheck check(Path configFile) {
        return ConfigChecks.of(loader.validate(configFile));
    }

    @Override
    public Outcome<ExperimentInfo> resume(String experimentId) throws IOException, PlatformException {
        // the engine refuses in its own words, and settles a creation that was interrupted (its folder
        // removed, said by an IOException) before telling an experiment that is not stored
        try {
            return Outcome.done(ExperimentViews.of(manager.resume(experimentId)));
        } catch (UnknownExperimentException e) {
            return Outcome.refused(Refusal.notFound(e.getMessage()));
        } catch (IllegalArgumentException | IllegalStateException e) {
            return refusal(e, "id");
        }
    }

    @Override
    public Outcome<ExperimentInfo> view(String experimentId) throws IOException {
        Outcome<ExperimentInfo> closed = closedAndStored(experimentId);
        if (!closed.isDone()) {
            return closed;
        }
        try {
            return Outcome.done(ExperimentViews.of(manager.view(experimentId)));
        } catch (IllegalArgumentException | IllegalStateException e) {
            return refusal(e, "id");
        }
    }

    /** @return done (with nothing) when the experiment is stored and not open */
    private Outcome<ExperimentInfo> closedAndStored(String experimentId) throws IOException {
        if (manager.get(experimentId).isPresent()) {
            return Outcome.refused(Refusal.conflict("experiment " + experimentId + " is already open"));
        }
        return storedFolder(experimentId).then(folder -> Outcome.done(null));
    }

    /**
     * The engine finds a stored experiment's folder as it opens one (an interrupted creation settled
     * first), so a refusal says what the console has always said: an id that is none, or no such folder.
     *
     * @return its folder; NOT_FOUND in the engine's words when none is stored under that id
     */
    private Outcome<Path> storedFolder(String experimentId) throws IOException {
        try {
            return Outcome.done(manager.directoryOf(experimentId));
        } catch (UnknownExperimentException | IllegalArgumentException e) {
            return Outcome.refused(Refusal.notFound(e.getMessage()));
        }
    }

    @Override
    public Outcome<ExperimentInfo> stop(String experimentId) {
        return manager.find(experimentId).then(experiment -> {
            if (!manager.stopIfOpen(experiment.id(), STOP_PATIENCE)) {
                return Outcome.refused(Refusal.notFound("experiment " + experiment.id() + " was stopped meanwhile"));
            }
            return Outcome.done(ExperimentViews.of(experiment));
        });
    }

    @Override
    public Outcome<ExperimentInfo> update(String experimentId, ExperimentUpdate update) {
        return manager.find(experimentId).then(experiment -> engine(() -> {
            experiment.update(update);
            return ExperimentViews.of(experiment);
        }, update.field()));
    }

    @Override
    public Outcome<Void> cancelTrial(String experimentId, String trialId) {
        return manager.find(experimentId).then(experiment -> {
            try {
                experiment.cancelTrial(trialId);
                return Outcome.done(null);
            } catch (IllegalArgumentException e) { // the one thing it refuses so: a trial it does not have
                return Outcome.refused(Refusal.notFound(e.getMessage()));
            } catch (IllegalStateException e) {
                return Outcome.refused(Refusal.conflict(e.getMessage()));
            }
        });
    }

    @Override
    public Outcome<Integer> importData(String experimentId, String json) {
        return manager.find(experimentId).then(experiment -> engine(() -> experiment.importData(json), "data"));
    }

    @Override
    public Outcome<List<Map<String, Object>>> exportData(String experimentId) {
        return manager.find(experimentId).map(experiment -> ExportRows.of(experiment.store(), false));
    }

    @Override
    public Outcome<List<Map<String, Object>>> exportData(String experimentId, boolean intermediate) throws IOException {
        Optional<Experiment> open = manager.get(experimentId);
        if (open.isPresent()) {
            return Outcome.done(ExportRows.of(open.get().store(), intermediate));
        }
        Path directory;
        try {
            directory = manager.directoryOf(experimentId);
        } catch (UnknownExperimentException | IllegalArgumentException e) {
            return Outcome.refused(Refusal.notFound(e.getMessage()));
        }
        try (ExperimentStore stored = ExperimentStore.openReadOnly(directory)) {
            return Outcome.done(ExportRows.of(stored, intermediate));
        }
    }

    @Override
    public Outcome<Path> delete(String experimentId) throws IOException {
        try {
            Path deleted = manager.delete(experimentId);
            storedSummaries.forget(experimentId);
            return Outcome.done(deleted);
        } catch (UnknownExperimentException | IllegalArgumentException e) {
            return Outcome.refused(Refusal.notFound(e.getMessage()));
        } catch (IllegalStateException e) {
            return Outcome.refused(Refusal.conflict(e.getMessage()));
        }
    }

    @Override
    public Path root() {
        return manager.root();
    }

    @Override
    public Outcome<ExperimentReading> read(String experimentId) throws IOException {
        if (experimentId == null) {
            return Outcome.refused(Refusal.invalid("id", "name the experiment to read"));
        }
        Optional<Experiment> open = manager.get(experimentId);
        if (open.isPresent()) {
            return Outcome.done(new EngineReading(open.get(), false, this::isOpen));
        }
        Outcome<Path> stored = storedFolder(experimentId);
        if (!stored.isDone()) {
            return Outcome.refused(stored.refusal().orElseThrow());
        }
        try {
            return Outcome.done(new EngineReading(manager.readStored(experimentId), true, this::isOpen));
        } catch (IllegalArgumentException e) { // deleted meanwhile
            return Outcome.refused(Refusal.notFound(e.getMessage()));
        }
    }

    private boolean isOpen(Experiment experiment) {
        return manager.get(experiment.id()).filter(open -> open == experiment).isPresent();
    }

    @Override
    public List<ExperimentInfo> list() {
        return manager.open().stream().map(ExperimentViews::of).toList();
    }

    @Override
    public List<String> stored() {
        return manager.stored();
    }

    @Override
    public List<ExperimentEntry> listing() throws IOException {
        return ExperimentListing.of(this, endedStatuses(), this::storedSummary);
    }

    @Override
    public String endedStatus(String experimentId) throws IOException {
        return ExperimentListing.endedStatus(endedStatuses(), experimentId);
    }

    /** @return a stored experiment summed up from its database, or empty when it is no longer stored */
    private Optional<StoredSummaries.StoredSummary> storedSummary(String experimentId) throws IOException {
        if (!manager.stored().contains(experimentId)) {
            return Optional.empty();
        }
        return Optional.of(storedSummaries.of(experimentId, manager.root().resolve(experimentId)));
    }

    private Map<String, String> endedStatuses() throws IOException {
        NnictlRegistry registry = nnictl;
        if (registry == null) {
            return Map.of();
        }
        try {
            return registry.statuses();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while reading NNI's experiment registry", e);
        }
    }

    @Override
    public Outcome<ExperimentInfo> get(String experimentId) {
        return manager.find(experimentId).map(ExperimentViews::of);
    }

    @Override
    public Outcome<List<TrialInfo>> trials(String experimentId) {
        return manager.find(experimentId).map(experiment -> experiment.trials().stream()
                .map(trial -> ExperimentViews.of(experiment, trial)).toList());
    }

    @Override
    public Outcome<List<TrialSummary>> trialSummaries(String experimentId) {
        return manager.find(experimentId).map(experiment -> experiment.summaries().stream()
                .map(trial -> ExperimentViews.of(experiment, trial)).toList());
    }

    @Override
    public Outcome<List<MetricInfo>> metrics(String experimentId, String trialId) {
        return metrics(experimentId, trialId, null);
    }

    @Override
    public Outcome<List<MetricInfo>> metrics(String experimentId, String trialId, String type) {
        return manager.find(experimentId).then(experiment -> {
            if (trialId != null && experiment.trial(trialId).isEmpty()) {
                return noTrial(experiment, trialId);
            }
            return Outcome.done(experiment.store().metrics(trialId, type).stream().map(ExperimentViews::of).toList());
        });
    }

    @Override
    public Outcome<TrialInfo> trial(String experimentId, String trialId) {
        return manager.find(experimentId).then(experiment -> experiment.trial(trialId)
                .map(trial -> Outcome.done(ExperimentViews.of(experiment, trial)))
                .orElseGet(() -> noTrial(experiment, trialId)));
    }

    @Override
    public Outcome<List<TrialDetail>> trialDetails(String experimentId) {
        return manager.find(experimentId).map(ExperimentViews::details);
    }

    @Override
    public Outcome<TrialDetail> trialDetail(String experimentId, String trialId) {
        // this trial's rows only: the whole list costs milliseconds per thousand trials
        return manager.find(experimentId).then(experiment -> {
            ExperimentStore store = experiment.store();
            return store.trial(trialId).map(trial -> Outcome.done(ExperimentViews.detail(experiment, trial,
                    store.metrics(trialId, "FINAL"), store.addedHyperParameters(trialId).getOrDefault(trialId, List.of()))))
                    .orElseGet(() -> noTrial(experiment, trialId));
        });
    }

    @Override
    public Outcome<ExperimentProfile> profile(String experimentId) {
        return manager.find(experimentId).map(ExperimentViews::profile);
    }

    @Override
    public Outcome<List<String>> importedData(String experimentId) {
        return manager.find(experimentId).map(Experiment::importedData);
    }

    @Override
    public Outcome<Optional<InputStream>> openTrialFile(String experimentId, String trialId, String name) throws IOException {
        Outcome<Experiment> found = manager.find(experimentId);
        if (!found.isDone()) {
            return found.map(experiment -> Optional.empty());
        }
        Experiment experiment = found.value();
        if (experiment.trial(trialId).isEmpty()) {
            return noTrial(experiment, trialId);
        }
        if (!TRIAL_FILES.contains(name)) {
            return Outcome.refused(Refusal.invalid("name", "a trial's files here are " + String.join(", ", TRIAL_FILES)
                    + "; no " + name));
        }
        return Outcome.done(TrialFiles.open(experiment, trialId, name));
    }

    private static <T> Outcome<T> noTrial(Experiment experiment, String trialId) {
        return Outcome.refused(Refusal.notFound("experiment " + experiment.id() + " has no trial " + trialId));
    }

    /**
     * Runs an operation of the engine, which refuses by throwing: see {@link #refusal}.
     */
    private static <T> Outcome<T> engine(Supplier<T> operation, String field) {
        try {
            return Outcome.done(operation.get());
        } catch (IllegalArgumentException | IllegalStateException e) {
            return refusal(e, field);
        }
    }

    /**
     * The one place the engine's refusals become values: IllegalStateException (the experiment's
     * state: stopped, read-only, busy) is CONFLICT, IllegalArgumentException (the input) is INVALID
     * naming {@code field}.
     */
    private static <T> Outcome<T> refusal(RuntimeException e, String field) {
        if (e instanceof IllegalStateException) {
            return Outcome.refused(Refusal.conflict(e.getMessage()));
        }
        return Outcome.refused(Refusal.invalid(field, e.getMessage() == null ? field + ": refused" : e.getMessage()));
    }
}
