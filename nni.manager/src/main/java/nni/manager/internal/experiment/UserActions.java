package nni.manager.internal.experiment;

import java.util.List;
import java.util.Map;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import nni.config.ConfigCodec;
import nni.api.experiment.ExperimentUpdate;
import nni.config.ExperimentConfig;
import nni.store.TrialEvent;

/**
 * What the user changes in a running experiment, each on the experiment's thread: a trial
 * cancelled, results of trials run elsewhere imported for the tuner, a limit or the search space
 * updated. The experiment checks first that it may be changed at all.
 */
final class UserActions {

    private static final Logger LOG = LoggerFactory.getLogger(UserActions.class);

    private final RunningParts parts;
    private final TrialDrawing drawing;
    private final ExperimentClock clock;

    UserActions(RunningParts parts, TrialDrawing drawing, ExperimentClock clock) {
        this.parts = parts;
        this.drawing = drawing;
        this.clock = clock;
    }

    /** See {@link Experiment#cancelTrial}. */
    void cancelTrial(String trialId) {
        parts.thread().call(() -> {
            Trial trial = parts.trials().get(trialId);
            if (trial == null) {
                throw new IllegalArgumentException("experiment " + parts.experiment().id() + " has no trial "
                        + trialId);
            }
            if (trial.live()) {
                parts.scheduler().cancelForUser(trial);
            }
            return null;
        });
    }

    /** See {@link Experiment#importData}. */
    int importData(String json) {
        int results = ImportedResults.count(json);
        return parts.thread().call(() -> {
            Algorithm algorithm = parts.experiment().algorithm();
            if (algorithm == null || !algorithm.importData(json)) {
                ExperimentConfig config = parts.experiment().config();
                throw new IllegalArgumentException("the tuner " + (config.tuner() == null ? "" : config.tuner().name() + " ")
                        + "does not learn from imported results; nothing was imported");
            }
            parts.store().addEvent(
                    new TrialEvent(System.currentTimeMillis(), "", "IMPORT_DATA", json, null, null, null));
            LOG.info("experiment {}: {} imported results given to the tuner", parts.experiment().id(), results);
            drawing.fill();
            return results;
        });
    }

    /** @return the imported data, each as it was sent */
    List<String> importedData() {
        return parts.store().events().stream().filter(event -> "IMPORT_DATA".equals(event.event()))
                .map(TrialEvent::data).toList();
    }

    /** See {@link Experiment#update}. */
    void update(ExperimentUpdate update) {
        String id = parts.experiment().id();
        parts.thread().call(() -> {
            ExperimentConfig config = parts.experiment().changeConfig(updated(parts.experiment().config(), update));
            drawing.askAgain();
            parts.store().saveDefinition(ConfigCodec.write(config));
            parts.experiment().configChanged();
            LOG.info("experiment {}: {} updated to {}", id, update.field(), update.written());
            if (update instanceof ExperimentUpdate.MaxTrialNumber) {
                TrialCounts.of(parts.trials().counts(), config.maxTrialNumber()).belowStarted()
                        .ifPresent(note -> LOG.warn("experiment {}: {}", id, note));
            }
            if (update instanceof ExperimentUpdate.MaxExperimentDuration) {
                drawing.durationReached(false);
                parts.experiment().armDurationLimit();
            }
            ExperimentStatus status = parts.run().get();
            if (status == ExperimentStatus.DONE && !drawing.limitsReached() && !drawing.tunerExhausted()) {
                clock.reopened();
                parts.run().becomeCounting(ExperimentStatus.RUNNING);
            } else if (status == ExperimentStatus.NO_MORE_TRIAL && !drawing.limitsReached()) {
                parts.run().becomeCounting(ExperimentStatus.RUNNING);
            }
            parts.experiment().saveProfile();
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
        parts.experiment().algorithm().updateSearchSpace(space);
        return c.withSearchSpace(space);
    }
}
