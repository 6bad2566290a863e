package nni.manager.internal.experiment;

import java.util.List;
import java.util.Map;

import nni.api.model.TrialStatus;

/**
 * No tuner, for an experiment resumed with a stored definition the config file's rules refuse: its
 * trials are taken back as on any resume, so that they are seen and can be stopped (never left
 * running unseen), then {@link #refuse} ends the experiment in ERROR saying what is wrong. It asks
 * for no trial.
 */
final class RefusedAlgorithm implements Algorithm {

    private final String problem;
    private volatile Host host;

    /** @param problem what is wrong with the definition, naming the field */
    RefusedAlgorithm(String problem) {
        this.problem = problem;
    }

    @Override
    public void start(Host given, boolean resuming, List<Trial> history, List<String> imported) {
        this.host = given;
    }

    /** Ends the experiment in ERROR with the problem; call once the trials are taken back. */
    void refuse() {
        host.fail(problem, null);
    }

    @Override
    public void request(int count) {
        // no trial is run from a definition that was refused
    }

    @Override
    public void metric(Trial trial, String type, Double value, String line) {
        // nothing learns from it: the trial's metric is stored all the same
    }

    @Override
    public void trialEnded(Trial trial, TrialStatus status) {
        // nothing learns from it
    }

    @Override
    public boolean importData(String json) {
        return false;
    }

    @Override
    public void updateSearchSpace(Map<String, Object> searchSpace) {
        throw new IllegalStateException(problem);
    }

    @Override
    public void close() {
        // holds nothing
    }
}
