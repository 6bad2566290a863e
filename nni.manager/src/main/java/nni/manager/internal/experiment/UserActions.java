package nni.manager.internal.experiment;

import java.util.List;
import java.util.Map;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import nni.api.experiment.ExperimentUpdate;
import nni.manager.internal.config.ExperimentConfig;
import nni.manager.internal.store.ExperimentStore;
import nni.manager.internal.store.TrialEvent;

/**
 * What the user changes in a running experiment, each on the experiment's thread: a trial
 * cancelled, results of trials run elsewhere imported for the tuner, a limit or the search space
 * updated. The experiment checks first that it may be changed at all.
 */
final class UserActions {

    private static final Logger LOG = LoggerFactory.getLogger(UserActions.class);

    private final Experiment experiment;
    private final RunStatus run;
    private final ExperimentStore store;
    private final ExperimentThread thread;
    private final Trials trials;
    private final TrialScheduler scheduler;
    private final TrialDrawing drawing;
    private final ExperimentClock clock;

    UserActions(Experiment experiment, RunStatus run, ExperimentStore store, ExperimentThread thread, Trials trials,
                TrialScheduler scheduler, TrialDrawing drawing, ExperimentClock clock) {
        this.experiment = experiment;
        this.run = run;
        this.store = store;
        this.thread = thread;
        this.trials = trials;
        this.scheduler = scheduler;
        this.drawing = drawing;
        this.clock = clock;
    }

    /** See {@link Experiment#cancelTrial}. */
    void cancelTrial(String trialId) {
        thread.call(() -> {
            Trial trial = trials.get(trialId);
            if (trial == null) {
                throw new IllegalArgumentException("experiment " + experiment.id() + " has no trial " + trialId);
            }
            if (trial.live()) {
                scheduler.cancelForUser(trial);
            }
            return null;
        });
    }

    /** See {@link Experiment#importData}. */
    int importData(String json) {
        List<ImportedResults.Result> results = ImportedResults.parse(json);
        return thread.call(() -> {
            Algorithm algorithm = experiment.algorithm();
            if (algorithm == null || !algorithm.importData(results, json)) {
                ExperimentConfig config = experiment.config();
                throw new IllegalArgumentException("the tuner " + (config.tuner() == null ? "" : config.tuner().name() + " ")
                        + "does not learn from imported results; nothing was imported");
            }
            store.addEvent(new TrialEvent(System.currentTimeMillis(), "", "IMPORT_DATA", json, null, null, null));
            LOG.info("experiment {}: {} imported results given to the tuner", experiment.id(), results.size());
            drawing.fill();
            return results.size();
        });
    }

    /** @return the imported data, each as it was sent */
    List<String> importedData() {
        return store.events().stream().filter(event -> "IMPORT_DATA".equals(event.event())).map(TrialEvent::data).toList();
    }

    /** See {@link Experiment#update}. */
    void update(ExperimentUpdate update) {
        String id = experiment.id();
        thread.call(() -> {
            ExperimentConfig config = experiment.changeConfig(updated(experiment.config(), update));
            drawing.askAgain();
            store.saveDefinition(ConfigCodec.write(config));
            experiment.configChanged();
            LOG.info("experiment {}: {} updated to {}", id, update.field(), update.written());
            if (update instanceof ExperimentUpdate.MaxTrialNumber) {
                TrialCounts.of(trials.counts(), config.maxTrialNumber()).belowStarted()
                        .ifPresent(note -> LOG.warn("experiment {}: {}", id, note));
            }
            if (update instanceof ExperimentUpdate.MaxExperimentDuration) {
                drawing.durationReached(false);
                experiment.armDurationLimit();
            }
            ExperimentStatus status = run.get();
            if (status == ExperimentStatus.DONE && !drawing.limitsReached() && !drawing.tunerExhausted()) {
                clock.reopened();
                run.becomeCounting(ExperimentStatus.RUNNING);
            } else if (status == ExperimentStatus.NO_MORE_TRIAL && !drawing.limitsReached()) {
                run.becomeCounting(ExperimentStatus.RUNNING);
            }
            experiment.saveProfile();
            drawing.fill();
            return null;
        });
    }

    /** @return the config with the update applied; a new search space is given to the tuner first, which may refuse it */
    private ExperimentConfig updated(ExperimentConfig c, ExperimentUpdate update) {
        if (update instanceof ExperimentUpdate.TrialConcurrency concurrency) {
            return c.withTrialConcurrency(concurrency.value());
        }
        if (update instanceof ExperimentUpdate.MaxTrialNumber max) {
            return c.withMaxTrialNumber(max.value());
        }
        if (update instanceof ExperimentUpdate.MaxExperimentDuration duration) {
            // the profile shows the value as it was written ("1h", 3600), as NNI's does
            return c.withMaxExperimentDuration(duration.value(), duration.written());
        }
        Map<String, Object> space = ((ExperimentUpdate.SearchSpace) update).value();
        experiment.algorithm().updateSearchSpace(space);
        return c.withSearchSpace(space);
    }
}
