package nni.api.experiment;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * Told of changes of the runtime's experiments: register an implementation as an OSGi service
 * (a whiteboard); the engine finds it, and stops telling it when it is unregistered. Every method
 * has an empty default, so a listener implements what it needs.
 *
 * <p><b>Threading.</b> A listener is told on the experiment's own thread, in the order the changes
 * happened for one experiment. It returns at once and does not call a changing operation of
 * {@link ExperimentService} while being told (that operation would wait for the thread telling
 * it): it records what changed and does the work on a thread of its own. A listener that throws is
 * logged and changes nothing for the experiment or the other listeners.
 */
@ConsumerType
public interface ExperimentListener {

    /** Opened (created, resumed or viewed), its status changed, or a limit or its search space changed. */
    default void experimentChanged(ExperimentInfo experiment) {
    }

    /** No longer open: stopped ({@code stopped}), or detached because the runtime stops. */
    default void experimentClosed(String experimentId, boolean stopped) {
    }

    /** A trial was submitted, or changed its status or message. */
    default void trialChanged(TrialInfo trial) {
    }

    /** Metrics of a trial were stored (and handed to the tuner or assessor). */
    default void metricsStored(String experimentId, String trialId) {
    }

    /**
     * A stored experiment (not open) was deleted with its folder. Told on the thread that deleted it,
     * before the deletion is answered, so that what a listener keeps of the experiment elsewhere can
     * go with it first; the listener may wait a few seconds for work of its own here, not longer.
     *
     * @since 1.1
     */
    default void experimentDeleted(String experimentId) {
    }
}
