package nni.manager.internal.experiment;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The experiment manager's listeners, told as one: a failing listener disturbs no one. */
final class ExperimentListeners implements ExperimentManager.Listener {

    /** Hears nothing: an experiment's listener until the manager sets one. */
    static final ExperimentManager.Listener NONE = new ExperimentListeners();

    private static final Logger LOG = LoggerFactory.getLogger(ExperimentListeners.class);

    private final List<ExperimentManager.Listener> listeners = new CopyOnWriteArrayList<>();

    void add(ExperimentManager.Listener listener) {
        listeners.add(listener);
    }

    void remove(ExperimentManager.Listener listener) {
        listeners.remove(listener);
    }

    @Override
    public void opened(Experiment experiment) {
        tell(experiment, "opened", listener -> listener.opened(experiment));
    }

    @Override
    public void changed(Experiment experiment) {
        tell(experiment, "changed", listener -> listener.changed(experiment));
    }

    @Override
    public void closed(Experiment experiment, boolean stopped) {
        tell(experiment, "closed", listener -> listener.closed(experiment, stopped));
    }

    @Override
    public void trialChanged(Experiment experiment, String trialId) {
        tell(experiment, "trial changed", listener -> listener.trialChanged(experiment, trialId));
    }

    @Override
    public void metricsStored(Experiment experiment, String trialId) {
        tell(experiment, "metrics stored", listener -> listener.metricsStored(experiment, trialId));
    }

    @Override
    public void configChanged(Experiment experiment) {
        tell(experiment, "configuration changed", listener -> listener.configChanged(experiment));
    }

    @Override
    public void deleted(String id) {
        tell(id, "deleted", listener -> listener.deleted(id));
    }

    private void tell(Experiment experiment, String what, Consumer<ExperimentManager.Listener> call) {
        tell(experiment.id(), what, call);
    }

    private void tell(String id, String what, Consumer<ExperimentManager.Listener> call) {
        for (ExperimentManager.Listener listener : listeners) {
            try {
                call.accept(listener);
            } catch (RuntimeException e) {
                LOG.warn("a listener of experiment {} failed on '{}'", id, what, e);
            }
        }
    }
}
