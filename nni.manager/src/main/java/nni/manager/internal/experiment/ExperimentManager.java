package nni.manager.internal.experiment;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.osgi.framework.BundleContext;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import nni.config.GivenConfig;
import nni.config.AlgorithmChoice;
import nni.api.experiment.Outcome;
import nni.api.experiment.Refusal;
import nni.api.experiment.ExperimentsRoot;
import nni.api.platform.PlatformException;
import nni.api.platform.TrainingSession;
import nni.manager.internal.ids.Ids;
import nni.config.AlgorithmConfig;
import nni.config.ExperimentConfig;
import nni.config.StoredDefinition;
import nni.manager.internal.registry.AlgorithmRegistry;
import nni.manager.internal.registry.PlatformRegistry;

/**
 * Every experiment this runtime runs or shows: create, resume, view, stop. Several experiments
 * run at once, each on its own thread.
 *
 * <p>Experiments live under a root directory, NNI's {@code ~/nni-experiments} unless the framework
 * property {@value ExperimentsRoot#PROPERTY} names another; an experiment's own {@code experimentWorkingDirectory}
 * decides where a new one is created.
 */
@Component(service = ExperimentManager.class, immediate = true)
public class ExperimentManager {

    private static final Logger LOG = LoggerFactory.getLogger(ExperimentManager.class);
    /** What an experiment id may be: NNI's are eight of {@code a-z0-9}, one given by hand (nnictl --id) may be longer. */
    private static final Pattern ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_-]*");

    private final PlatformRegistry platforms;
    private final AlgorithmRegistry algorithms;
    private final Path root;
    private final Map<String, Experiment> experiments = new ConcurrentHashMap<>();
    private final ExperimentListeners listeners = new ExperimentListeners();
    /** Experiments whose platform went away take it back as soon as it is registered again. */
    private final Consumer<String> platformArrival = name -> experiments.values().forEach(e -> e.platformArrived(name));

    @Activate
    public ExperimentManager(@Reference PlatformRegistry platforms, @Reference AlgorithmRegistry algorithms,
                             BundleContext context) {
        this.platforms = platforms;
        this.algorithms = algorithms;
        this.root = ExperimentsRoot.of(context.getProperty(ExperimentsRoot.PROPERTY));
        platforms.onArrival(platformArrival);
    }

    /**
     * Hears what happens to the open experiments: NNI's experiment registry (open, status, close),
     * the web UI's live stream (everything), a console view.
     *
     * <p>Called on the thread that made the change (the manager's callers, an experiment's own
     * thread, a platform's thread delivering metrics), in that thread's order and concurrently
     * across threads. A listener returns at once and never calls back into the experiment while
     * being told (the experiment's thread may be the caller): it records what changed and does the
     * work on a thread of its own. An exception it throws is logged and changes nothing for the
     * experiment or the other listeners.
     */
    public interface Listener {
        /** Created, resumed or opened for viewing, and started. */
        void opened(Experiment experiment);

        /** Its status changed. */
        void changed(Experiment experiment);

        /** No longer open: stopped ({@code stopped}), or detached because the runtime stops. */
        void closed(Experiment experiment, boolean stopped);

        /** A trial was submitted, or changed status, message or why it waits. */
        default void trialChanged(Experiment experiment, String trialId) {
        }

        /** Metrics of a trial were stored and handed to the tuner or assessor. */
        default void metricsStored(Experiment experiment, String trialId) {
        }

        /** A limit or the search space changed ({@code nnictl update}). */
        default void configChanged(Experiment experiment) {
        }

        /** A stored experiment's folder was deleted ({@link ExperimentManager#delete}). */
        default void deleted(String id) {
        }
    }

    public void addListener(Listener listener) {
        listeners.add(listener);
    }

    public void removeListener(Listener listener) {
        listeners.remove(listener);
    }

    private void watch(Experiment experiment) {
        experiment.listen(listeners);
    }

    /**
     * Experiments still running when the runtime stops (or this component is deactivated or
     * updated) are detached, not stopped: their sessions are detached, their trials keep running and
     * {@code resume} takes them back (NNI's stop cancels trials; {@code nni:halt} does).
     */
    @Deactivate
    void deactivate() {
        platforms.removeArrivalListener(platformArrival);
        for (Experiment experiment : experiments.values()) {
            experiment.detach();
            listeners.closed(experiment, false);
        }
        experiments.clear();
    }

    /** @return the root directory of experiments */
    public Path root() {
        return root;
    }

    /**
     * Creates and starts an experiment.
     *
     * @throws PlatformException when the platform, tuner or assessor is missing or refuses
     */
    public Experiment create(ExperimentConfig given) throws PlatformException, IOException {
        return create(given, (id, directory) -> { });
    }

    /**
     * Creates and starts an experiment, telling {@code announce} its id and folder before anything
     * of it exists, so that a caller can show the id even if the runtime dies while creating it.
     *
     * @throws PlatformException when the platform, tuner or assessor is missing or refuses
     */
    public Experiment create(ExperimentConfig given, BiConsumer<String, Path> announce) throws PlatformException, IOException {
        return create(given, null, announce);
    }

    /**
     * Creates and starts an experiment as {@link #create(ExperimentConfig, BiConsumer)} does, keeping
     * the config file as the user wrote it (null: none) in the experiment's folder, its secrets masked.
     */
    public Experiment create(ExperimentConfig given, GivenConfig file, BiConsumer<String, Path> announce)
            throws PlatformException, IOException {
        ExperimentConfig config = underRoot(given);
        AlgorithmChoice choice = choose(config);
        if (config.trainingServices().size() == 1) {
            platforms.require(config.platform());
        } // a hybrid experiment runs on the members that open; opening says which cannot

        Path workingDirectory = config.experimentWorkingDirectory();
        String id = Ids.experimentId(candidate -> experiments.containsKey(candidate)
                || Files.exists(workingDirectory.resolve(candidate)));
        Algorithm algorithm = algorithm(choice, id, config.experimentWorkingDirectory().resolve(id), config);
        announce.accept(id, config.experimentWorkingDirectory().resolve(id));
        Experiment experiment = Experiment.create(id, config, file);
        watch(experiment);
        experiments.put(id, experiment);
        try {
            experiment.start(algorithm, this::open);
        } catch (PlatformException | RuntimeException e) {
            experiments.remove(id);
            experiment.detach();
            throw e;
        }
        listeners.opened(experiment);
        LOG.info("experiment {} created in {}", id, experiment.directory());
        return experiment;
    }

    /** Resumes a stopped or crashed experiment under the root. */
    public Experiment resume(String id) throws PlatformException, IOException {
        Experiment running = experiments.get(id);
        if (running != null && !running.readOnly()) {
            throw new IllegalStateException("experiment " + id + " is already open (" + running.status() + ")");
        }
        Path directory = existing(id);
        if (running != null) {
            Experiment viewed = experiments.remove(id);
            viewed.stop(Duration.ZERO);
            listeners.closed(viewed, true);
        }
        Experiment experiment = Experiment.reopen(id, directory);
        watch(experiment);
        try {
            AlgorithmChoice choice = choose(experiment.config());
            // a value of the wrong type was replaced to open the experiment: the rules would judge the replacement
            List<String> refused = experiment.definitionProblems().isEmpty() ? StoredDefinition.problems(experiment.config(), choice)
                    : experiment.definitionProblems();
            Algorithm algorithm = refused.isEmpty() ? algorithm(choice, id, directory, experiment.config())
                    : new RefusedAlgorithm(refusal(id, refused));
            experiments.put(id, experiment);
            experiment.resume(algorithm, this::open);
            if (algorithm instanceof RefusedAlgorithm refusing) {
                refusing.refuse(); // its trials are taken back first: seen, and stopped with it
            }
        } catch (PlatformException | RuntimeException e) {
            experiments.remove(id);
            experiment.detach();
            throw e;
        }
        listeners.opened(experiment);
        LOG.info("experiment {} resumed", id);
        return experiment;
    }

    private static String refusal(String id, List<String> problems) {
        return "experiment " + id + "'s stored definition has a value the config file's rules refuse, so no new trial is started: "
                + String.join("; ", problems) + ". Its running trials were taken back; stop it (nni:halt " + id
                + ", or DELETE /api/v1/nni/experiment) to end them";
    }

    /** Opens an experiment read-only. */
    public Experiment view(String id) throws IOException {
        Experiment open = experiments.get(id);
        if (open != null) {
            return open;
        }
        Experiment experiment = Experiment.view(id, existing(id));
        experiments.put(id, experiment);
        listeners.opened(experiment);
        return experiment;
    }

    /**
     * Reads a stored experiment that is not open, without opening it: a read-only copy that no one
     * else sees (not listed as open, not found by {@link #get}). The caller releases it with
     * {@link Experiment#stop}.
     */
    public Experiment readStored(String id) throws IOException {
        return Experiment.view(id, existing(id));
    }

    /**
     * Stops an experiment: cancels its trials, closes its session, keeps its data. Keepers it still
     * has (left by a session detached while its platform was away) are refused from then on.
     */
    public void stop(String id, Duration patience) {
        if (!stopIfOpen(id, patience)) {
            throw new IllegalArgumentException("no open experiment " + id + "; open: " + experiments.keySet());
        }
    }

    /**
     * Stops an experiment unless it was stopped already (from the REST API, say).
     *
     * @return whether this call stopped it
     */
    public boolean stopIfOpen(String id, Duration patience) {
        Experiment experiment = experiments.remove(id);
        if (experiment == null) {
            return false;
        }
        experiment.stop(patience);
        listeners.closed(experiment, true);
        return true;
    }

    public Optional<Experiment> get(String id) {
        return Optional.ofNullable(experiments.get(id));
    }

    /** @return the open experiments, oldest first */
    public List<Experiment> open() {
        return experiments.values().stream().sorted(Comparator.comparingLong(Experiment::startTime)).toList();
    }

    /**
     * The experiment a console command means: the one named, else the only one still running. An
     * experiment that has ended (DONE, ERROR, ...) stays open for reading but is no longer the one
     * a command without an id defaults to.
     *
     * @return the open experiment named, or the only running one
     * @throws IllegalArgumentException when the one named is not open, or none is named and not
     *                                  exactly one runs (the message names the candidates)
     */
    public Experiment require(String id) {
        return find(id).orElseThrow(refusal -> new IllegalArgumentException(refusal.message()));
    }

    /**
     * The experiment a request means, as {@link #require} chooses it.
     *
     * @return the experiment; NOT_FOUND when the one named is not open or none runs, INVALID
     *         naming {@code id} when none is named and several run (the message names the candidates)
     */
    public Outcome<Experiment> find(String id) {
        if (id != null) {
            Experiment named = experiments.get(id);
            return named != null ? Outcome.done(named)
                    : Outcome.refused(Refusal.notFound("no open experiment " + id + "; open: " + experiments.keySet()));
        }
        List<Experiment> all = open();
        List<Experiment> running = all.stream().filter(e -> !e.status().settled()).toList();
        if (running.size() == 1) {
            return Outcome.done(running.get(0));
        }
        if (running.size() > 1) {
            return Outcome.refused(Refusal.invalid("id", "several experiments are running, name one: "
                    + running.stream().map(Experiment::id).toList()));
        }
        return Outcome.refused(Refusal.notFound(all.isEmpty() ? "no experiment is open" : "no experiment is running; ended: "
                + all.stream().map(e -> e.id() + " (" + e.status() + ")").toList() + ", name one"));
    }

    /** @return ids of every experiment directory under the root, with a database */
    public List<String> stored() {
        return storedIn(root);
    }

    /**
     * @return ids of every experiment folder in {@code root}: a real folder (not a link, such as NNI's
     * {@code _latest} to the newest experiment) named as an experiment id, with a database
     */
    static List<String> storedIn(Path root) {
        if (!Files.isDirectory(root)) {
            return List.of();
        }
        try (Stream<Path> children = Files.list(root)) {
            List<String> ids = new ArrayList<>();
            // one being created (or whose creation was interrupted: resume settles it) is not listed
            children.filter(dir -> ID.matcher(dir.getFileName().toString()).matches()
                            && Files.isDirectory(dir, LinkOption.NOFOLLOW_LINKS)
                            && Files.isRegularFile(dir.resolve("db").resolve("nni.sqlite")) && !CreationMarker.present(dir))
                    .forEach(dir -> ids.add(dir.getFileName().toString()));
            ids.sort(null);
            return ids;
        } catch (IOException e) {
            LOG.warn("cannot list experiments in {}", root, e);
            return List.of();
        }
    }

    /**
     * @return the directory of a stored experiment under the root
     * @throws IOException naming the root when there is none
     */
    public Path directoryOf(String id) throws IOException {
        return existing(id);
    }

    /**
     * Deletes a stored experiment as {@code nnictl experiment delete} does: its whole folder (database,
     * logs, trial outputs); listeners drop what they keep of it (NNI's registry entry). Cannot be undone.
     *
     * @return the folder deleted
     * @throws IllegalStateException when the experiment is open (running or viewed): stop it first
     */
    public Path delete(String id) throws IOException {
        Experiment open = experiments.get(id);
        if (open != null) {
            throw new IllegalStateException("experiment " + id + " is open (" + open.status() + "); stop it first");
        }
        Path directory = existing(id);
        try (Stream<Path> walk = Files.walk(directory)) {
            for (Path path : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(path);
            }
        }
        listeners.deleted(id);
        return directory;
    }

    private Path existing(String id) throws IOException {
        if (id == null || !ID.matcher(id).matches()) {
            throw new IllegalArgumentException("not an experiment id: " + id);
        }
        Path directory = root.resolve(id);
        if (CreationMarker.settle(directory)) {
            throw new IOException("experiment " + id + " was interrupted while it was being created, before its definition"
                    + " was stored; nothing of it ran, and its folder " + directory + " was removed: run its file again");
        }
        if (!Files.isRegularFile(directory.resolve("db").resolve("nni.sqlite"))) {
            throw new UnknownExperimentException("no experiment " + id + " in " + root);
        }
        return directory;
    }

    /**
     * NNI's default working directory ({@code ~/nni-experiments}) gives way to this runtime's root,
     * so that what {@code run} creates, {@code resume} finds; a directory the file names is kept.
     */
    private ExperimentConfig underRoot(ExperimentConfig c) {
        if (c.experimentWorkingDirectory() != null && !c.experimentWorkingDirectory().equals(ExperimentsRoot.nniDefault())) {
            return c;
        }
        // the profile shows the directory the experiment really is in
        return c.withExperimentWorkingDirectory(root);
    }

    private TrainingSession open(MemberContext member) throws PlatformException {
        return platforms.open(member.platform(), member.forNextSession());
    }

    /** @return what runs the experiment's tuner and assessor, found through the service registry */
    private AlgorithmChoice choose(ExperimentConfig config) throws PlatformException {
        AlgorithmConfig tuner = config.tuner();
        if (tuner == null) {
            throw new PlatformException("tuner: a tuner is required");
        }
        AlgorithmChoice choice = algorithms.choose(tuner, config.assessor());
        if (choice instanceof AlgorithmChoice.Unavailable missing) {
            throw new PlatformException(missing.path() + ": " + missing.message());
        }
        return choice;
    }

    /** @return the chosen provider's run of the experiment's tuner and assessor (it starts with the experiment) */
    private static Algorithm algorithm(AlgorithmChoice choice, String id, Path directory, ExperimentConfig config) {
        return new DispatcherAlgorithm(AlgorithmChoice.provider(choice), id, directory, config);
    }

}
