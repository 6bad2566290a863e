package nni.manager.internal.service;

import java.util.List;
import java.util.function.BiConsumer;
import java.util.function.Supplier;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import nni.api.experiment.ExperimentListener;
import nni.manager.internal.experiment.Experiment;
import nni.manager.internal.experiment.ExperimentManager;

/**
 * The {@link ExperimentListener} whiteboard: tells every listener service what the manager's
 * listener hears, on the thread that hears it; the manager already isolates a listener that throws,
 * and a listener that throws here is logged and the others are told all the same.
 *
 * <p>A component of its own, apart from {@link ExperimentServiceComponent}: listeners act through
 * {@link nni.api.experiment.ExperimentService}, so a service that bound its own listeners would
 * wait on itself while it activates (SCR reports that as a circular reference). Immediate:
 * listeners are told whether or not anyone uses the service.
 */
@Component(service = {}, immediate = true)
public class ExperimentListenerWhiteboard implements ExperimentManager.Listener {

    private static final Logger LOG = LoggerFactory.getLogger(ExperimentListenerWhiteboard.class);

    private final ExperimentManager manager;

    @Reference(policy = ReferencePolicy.DYNAMIC, cardinality = ReferenceCardinality.MULTIPLE)
    private volatile List<ExperimentListener> listeners = List.of();

    @Activate
    public ExperimentListenerWhiteboard(@Reference ExperimentManager manager) {
        this.manager = manager;
        manager.addListener(this);
    }

    @Deactivate
    void deactivate() {
        manager.removeListener(this);
    }

    @Override
    public void opened(Experiment experiment) {
        changed(experiment);
    }

    @Override
    public void changed(Experiment experiment) {
        tell(() -> ExperimentViews.of(experiment), ExperimentListener::experimentChanged);
    }

    @Override
    public void configChanged(Experiment experiment) {
        changed(experiment);
    }

    @Override
    public void closed(Experiment experiment, boolean stopped) {
        for (ExperimentListener listener : listeners) {
            safely(listener, () -> listener.experimentClosed(experiment.id(), stopped));
        }
    }

    @Override
    public void trialChanged(Experiment experiment, String trialId) {
        List<ExperimentListener> told = listeners;
        if (told.isEmpty()) {
            return;
        }
        experiment.trial(trialId).map(trial -> ExperimentViews.of(experiment, trial))
                .ifPresent(trial -> told.forEach(listener -> safely(listener, () -> listener.trialChanged(trial))));
    }

    @Override
    public void metricsStored(Experiment experiment, String trialId) {
        for (ExperimentListener listener : listeners) {
            safely(listener, () -> listener.metricsStored(experiment.id(), trialId));
        }
    }

    @Override
    public void deleted(String id) {
        for (ExperimentListener listener : listeners) {
            safely(listener, () -> listener.experimentDeleted(id));
        }
    }

    private <V> void tell(Supplier<V> view, BiConsumer<ExperimentListener, V> call) {
        List<ExperimentListener> told = listeners;
        if (told.isEmpty()) {
            return; // no view is made for no one
        }
        V made = view.get();
        told.forEach(listener -> safely(listener, () -> call.accept(listener, made)));
    }

    private void safely(ExperimentListener listener, Runnable call) {
        try {
            call.run();
        } catch (RuntimeException e) {
            LOG.warn("experiment listener {} failed", listener, e);
        }
    }
}
