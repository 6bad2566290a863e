package nni.manager.internal.experiment;

import nni.store.ExperimentStore;

/**
 * The parts of a running experiment that its stop and the user's changes both work with: made
 * once by the {@link Experiment} and handed to {@link ExperimentStop} and {@link UserActions}.
 *
 * @param experiment the experiment itself (its identity, definition and algorithm)
 * @param run        its status
 * @param store      its store
 * @param thread     its single thread; null in view mode
 * @param trials     its trials
 * @param scheduler  what places its trials and talks to their platforms
 */
record RunningParts(Experiment experiment, RunStatus run, ExperimentStore store, ExperimentThread thread, Trials trials,
                    TrialScheduler scheduler) {
}
