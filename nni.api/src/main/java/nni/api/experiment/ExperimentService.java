package nni.api.experiment;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.function.BiConsumer;

import org.osgi.annotation.versioning.ProviderType;

import nni.api.platform.PlatformException;

/**
 * The experiments of this runtime: what NNI's REST routes, the console and outside bundles use to
 * create, run, change and read them. One service, registered by the manager.
 *
 * <h2>Naming an experiment</h2>
 * An {@code experimentId} names an open experiment (created, resumed or viewed, and not stopped).
 * Where a method allows {@code null}, it means the only open experiment still running, as
 * {@code nnictl} without an id does; when none runs or several do, the refusal says which are open.
 *
 * <h2>Refusals and faults</h2>
 * Every operation answers an {@link Outcome}. What a user can put right is a {@link Refusal}:
 * {@link Refusal.Kind#NOT_FOUND} (no such open experiment or trial), {@link Refusal.Kind#CONFLICT}
 * (the experiment's state refuses it now: stopped, stopping, opened read-only, or its engine busy
 * past the patience of a call), {@link Refusal.Kind#INVALID} (the input, its field named). A thrown
 * exception is a fault: the disk ({@link IOException}), a platform that could not start
 * ({@link PlatformException}), or a bug ({@link RuntimeException}).
 *
 * <h2>Threading</h2>
 * Every method may be called from any thread, at once from several. Each experiment runs on a
 * thread of its own; an operation that changes it waits for that thread (at most a minute, then
 * CONFLICT) and returns when the change is stored, so that a read after it sees it. Reads answer
 * copies taken at one moment, never live objects. Do not call a changing operation from an
 * {@link ExperimentListener} while being told: tell a thread of your own.
 */
@ProviderType
public interface ExperimentService {

    /** The output files a trial has, by name, for {@link #openTrialFile} (since 1.3). */
    List<String> TRIAL_FILES = List.of("stdout", "stderr", "trial.log");

    /**
     * Creates an experiment from an NNI config file (v2 or v1 YAML) and starts it.
     *
     * @return the experiment as started; INVALID naming the file, line or field when the config is bad
     * @throws PlatformException when its platform could not open a session (the experiment stays stored)
     */
    Outcome<ExperimentInfo> create(Path configFile) throws IOException, PlatformException;

    /**
     * Creates an experiment as {@link #create(Path)} does, telling {@code announce} its id and folder
     * first, before anything of it is written: a face that shows them at once lets its user resume
     * (or have cleaned up) an experiment whose creation the runtime did not live through. The file is
     * kept as written, secrets masked, as the experiment's {@link ExperimentReading#givenConfig()}.
     *
     * @param announce told the id and the folder on the calling thread, once; not at all when the
     *                 creation is refused before (the config invalid, its platform not installed, its
     *                 tuner refusing the search space); it returns at once and does not throw
     * @return as {@link #create(Path)} (since 1.5)
     * @throws PlatformException as {@link #create(Path)}; one thrown after the announcement leaves the
     *         experiment announced stored
     */
    Outcome<ExperimentInfo> create(Path configFile, BiConsumer<String, Path> announce) throws IOException, PlatformException;

    /**
     * When an open experiment settles ({@link ExperimentInfo#settled()}): it ends by itself, fails, or
     * is stopped, from any face. One that settled DONE may still turn ERROR while it is open, and as
     * it is {@linkplain #stop stopped}, when its algorithm fails over the last results (NNI's
     * dispatcher hears of its algorithm's error only at the next command): read
     * {@link ExperimentInfo#status()} after the stop for its outcome, as {@code run} does.
     *
     * @param experimentId the experiment, or null for the only running one
     * @return a stage completed with the status it settled with, spelled as {@link ExperimentInfo#status()}
     *         (DONE, ERROR, STOPPED; VIEWED for one opened read-only), already complete when it has settled;
     *         NOT_FOUND when it is not open. The stage is completed on the experiment's thread or on the
     *         one stopping it: wait on it, or run what depends on it asynchronously, never a changing
     *         operation on the completing thread (since 1.5)
     */
    Outcome<CompletionStage<String>> settled(String experimentId);

    /**
     * Checks an NNI config file (v2 or v1 YAML, or JSON) as {@link #create} would load it, creating
     * nothing: every problem located, the training-service sections whose platform is not installed,
     * how algorithms not in Java run. Reads only the file and the installed platforms and algorithms;
     * safe from any thread.
     *
     * @return the check; a file that is missing or unreadable is a problem in it, never a throw (since 1.5)
     */
    ConfigCheck check(Path configFile);

    /**
     * Resumes a stored experiment that is not open: running trials are re-attached, the sequence continues.
     * One open only for viewing ({@link #view}) is resumed in place of the view (since 1.5).
     *
     * @return the experiment as resumed; NOT_FOUND when none is stored under that id, CONFLICT when it
     *         is open other than for viewing, INVALID naming {@code id} when it is no experiment id
     * @throws IOException also when its creation was interrupted before its definition was stored: its
     *         folder is removed then, and the message says so
     */
    Outcome<ExperimentInfo> resume(String experimentId) throws IOException, PlatformException;

    /** @return a stored experiment opened read-only (it runs nothing); NOT_FOUND, CONFLICT as {@link #resume} */
    Outcome<ExperimentInfo> view(String experimentId) throws IOException;

    /**
     * Stops an experiment (NNI's {@code Experiment.stop()}): cancels its trials, closes its
     * sessions, keeps its data; it is no longer open.
     *
     * @return the experiment as stopped; NOT_FOUND when it is not open
     */
    Outcome<ExperimentInfo> stop(String experimentId);

    /**
     * Changes a limit or the search space while the experiment runs; raising a limit of an
     * experiment that ended because of it makes it run again, as in NNI. Lowering a limit below
     * what already ran starts nothing more and cancels nothing.
     *
     * @param experimentId the experiment, or null for the only running one
     * @return the experiment as changed; CONFLICT when stopped or read-only, INVALID when its tuner
     *         refuses the search space (the field named)
     */
    Outcome<ExperimentInfo> update(String experimentId, ExperimentUpdate update);

    /**
     * Cancels a trial on the user's behalf; one that ended already is left as it is.
     *
     * @return NOT_FOUND when the experiment has no such trial, CONFLICT when its platform is away
     */
    Outcome<Void> cancelTrial(String experimentId, String trialId);

    /**
     * Gives results of trials run elsewhere to the tuner ({@code nnictl experiment import}) and keeps them for a resume.
     *
     * @param json NNI's import format: a JSON array of {@code {"parameter": {...}, "value": ...}}
     * @return how many results the tuner took; INVALID when the data are no results or the tuner learns nothing from them
     */
    Outcome<Integer> importData(String experimentId, String json);

    /** @return the results of its trials as {@code nnictl experiment export} writes them, one map per trial */
    Outcome<List<Map<String, Object>>> exportData(String experimentId);

    /**
     * The results of an open or a stored experiment's trials as {@code nnictl experiment export}
     * writes them: one map per succeeded trial with a final result, in trial order, holding
     * {@code parameter} (the trial's parameters), {@code value} (its final result as the trial
     * reported it, JSON text) and {@code trialJobId}; with {@code intermediate} also
     * {@code intermediate}, the trial's intermediate results as reported (JSON texts), in order.
     *
     * @return the rows; NOT_FOUND when no experiment is open or stored under that id (since 1.5)
     * @throws IOException when a stored experiment's database cannot be read
     */
    Outcome<List<Map<String, Object>>> exportData(String experimentId, boolean intermediate) throws IOException;

    /**
     * Deletes a stored experiment as {@code nnictl experiment delete} does: its whole folder (database,
     * logs, trial outputs); {@link ExperimentListener#experimentDeleted} is told before this returns.
     * Cannot be undone.
     *
     * @return the folder deleted; CONFLICT when the experiment is open (stop it first), NOT_FOUND when
     *         none is stored under that id (since 1.1)
     * @throws IOException when the folder cannot be deleted whole
     */
    Outcome<Path> delete(String experimentId) throws IOException;

    /**
     * @return the folder holding the experiments' folders (NNI's {@code ~/nni-experiments}), where NNI's
     *         own tools find their registry of experiments (since 1.1)
     */
    Path root();

    /**
     * Reads an experiment for looking at, open or only stored: what a face showing old experiments
     * uses, so that looking at one opens nothing.
     *
     * @return the open experiment, else a read-only copy of the stored one that is not open (see
     *         {@link ExperimentReading}); NOT_FOUND when none is stored under that id (since 1.5)
     * @throws IOException when its files cannot be read
     */
    Outcome<ExperimentReading> read(String experimentId) throws IOException;

    /** @return the open experiments, oldest first */
    List<ExperimentInfo> list();

    /**
     * @return the ids of the experiments stored under {@link #root()}, open or not, sorted: what
     *         {@link #resume}, {@link #view} and {@link #delete} can name (since 1.5)
     */
    List<String> stored();

    /**
     * Every experiment under {@link #root()}, open or stored, for a list of experiments: each open one
     * with its own status, each stored one not open summed up from its database alone (cheaper than
     * {@link #read}; kept until the database changes, so listing again reads only what changed), with
     * the status it ended with ({@link #endedStatus}). A stored experiment whose database cannot be read
     * is left out, as is one deleted while listing.
     *
     * @return the entries, newest start first (one without a start last) (since 1.5)
     * @throws IOException when NNI's experiment registry cannot be read
     */
    List<ExperimentEntry> listing() throws IOException;

    /**
     * The status an experiment that is not open ended with, as NNI's experiment registry
     * ({@link NnictlRegistry#statuses()}) keeps it: DONE or ERROR as it ended, else STOPPED; STOPPED
     * when the registry has no entry for it, or is not there. Of an open experiment, the registry's
     * status too, which may lag behind {@link ExperimentInfo#status()}.
     *
     * @return the status (since 1.5)
     * @throws IOException when NNI's experiment registry cannot be read
     */
    String endedStatus(String experimentId) throws IOException;

    /** @return the open experiment; NOT_FOUND when it is not open */
    Outcome<ExperimentInfo> get(String experimentId);

    /** @return its trials in sequence order */
    Outcome<List<TrialInfo>> trials(String experimentId);

    /**
     * @return its trials in sequence order, their intermediate results counted rather than copied:
     *         for views over many trials (since 1.5)
     */
    Outcome<List<TrialSummary>> trialSummaries(String experimentId);

    /**
     * @param trialId one trial's, or null for every trial's
     * @return the metrics stored, in the order they were stored
     */
    Outcome<List<MetricInfo>> metrics(String experimentId, String trialId);

    /**
     * @param type FINAL, PERIODICAL or CUSTOM for those only, or null for every type
     * @return the metrics stored of that type, in the order they were stored; NOT_FOUND when the
     *         experiment is not open or has no such trial (since 1.3)
     */
    Outcome<List<MetricInfo>> metrics(String experimentId, String trialId, String type);

    /** @return the trial as the experiment tracks it; NOT_FOUND when it has no such trial (since 1.3) */
    Outcome<TrialInfo> trial(String experimentId, String trialId);

    /** @return every stored trial in full, in the order first stored (since 1.3) */
    Outcome<List<TrialDetail>> trialDetails(String experimentId);

    /** @return the stored trial in full; NOT_FOUND when none is stored under that id (since 1.3) */
    Outcome<TrialDetail> trialDetail(String experimentId, String trialId);

    /** @return its profile as NNI's {@code GET /experiment} answers it, secrets masked (since 1.3) */
    Outcome<ExperimentProfile> profile(String experimentId);

    /**
     * @return the data imported into it ({@link #importData}), each import's JSON text as it was
     *         sent, in the order imported (since 1.3)
     */
    Outcome<List<String>> importedData(String experimentId);

    /**
     * Opens one of a trial's output files: from its platform while the experiment has a session
     * (the file may be on another machine), else from the trial's folder.
     *
     * @param name one of {@link #TRIAL_FILES}
     * @return the file open for reading (the caller closes it), empty when the trial has no such file
     *         yet; NOT_FOUND when the experiment has no such trial, INVALID naming {@code name} when it
     *         is none of {@link #TRIAL_FILES} (since 1.3)
     * @throws IOException when the file exists but cannot be read
     */
    Outcome<Optional<InputStream>> openTrialFile(String experimentId, String trialId, String name) throws IOException;
}
