package nni.manager.internal.experiment;

/**
 * Hears what changes in the open experiments ({@link ExperimentManager#addListener}): the web UI's
 * live updates, a console view.
 *
 * <p>Called on the thread that made the change (an experiment's own thread, a platform's thread
 * delivering metrics, a request thread), in that thread's order and concurrently across threads. A
 * listener must return at once and never call back into the experiment while being told (the
 * experiment's thread may be the caller): record what changed and do the work on a thread of its
 * own. An exception it throws is logged and changes nothing for the experiment or the other
 * listeners.
 */
@FunctionalInterface
public interface ExperimentListener {

    void changed(ExperimentEvent event);
}
