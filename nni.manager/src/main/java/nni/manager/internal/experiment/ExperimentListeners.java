package nni.manager.internal.experiment;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The listeners of the experiment manager, told as one: a failing listener disturbs no one. */
final class ExperimentListeners implements ExperimentListener {

    private static final Logger LOG = LoggerFactory.getLogger(ExperimentListeners.class);

    private final List<ExperimentListener> listeners = new CopyOnWriteArrayList<>();

    void add(ExperimentListener listener) {
        listeners.add(listener);
    }

    void remove(ExperimentListener listener) {
        listeners.remove(listener);
    }

    @Override
    public void changed(ExperimentEvent event) {
        for (ExperimentListener listener : listeners) {
            try {
                listener.changed(event);
            } catch (RuntimeException e) {
                LOG.warn("an experiment listener failed on {}", event, e);
            }
        }
    }
}
