package nni.manager.internal.experiment;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import nni.api.model.TrialStatus;
import nni.api.platform.PlatformException;

/**
 * An experiment's tuner and assessor: run by a dispatcher provider ({@link DispatcherAlgorithm};
 * Java tuners and assessors too, through the provider of bundle nni.tuners), or none because the
 * stored definition was refused ({@link RefusedAlgorithm}). The experiment speaks NNI's dispatcher
 * protocol to it: it asks for trials and hears of metrics and ends; the algorithm answers through
 * its {@link Host}, at once or later.
 *
 * <p>Called from the experiment's thread only (start: before that thread runs anything of it).
 */
interface Algorithm {

    /** How the algorithm answers (NNI's TR, NO, KI, SP, ER); callable from any thread. */
    interface Host {
        /** A new trial's packed parameters, verbatim. */
        void offer(String packedParameters);

        /** Nothing more for now ({@code forGood}: never again, the experiment ends when its trials have). */
        void noMoreTrials(boolean forGood);

        /** Stop a trial early. */
        void kill(String trialId);

        /** More parameters for a running trial (multi-phase), packed with {@code trial_job_id} and {@code parameter_index}. */
        void sendParameters(String packedParameters);

        /** The algorithm failed; the experiment ends in ERROR with {@code message}. */
        void fail(String message, Throwable cause);
    }

    /**
     * Starts the algorithm; a resumed experiment's history is given to it first.
     *
     * @param resuming whether the experiment is resumed (NNI's {@code NNI_MODE=resume})
     * @param history  the trials of a resumed experiment in sequence order; empty for a new one
     * @param imported results imported before (NNI's {@code IMPORT_DATA} payloads), to be given again
     * @throws PlatformException when it cannot start; the message is shown to the user
     */
    void start(Host host, boolean resuming, List<Trial> history, List<String> imported) throws PlatformException;

    /** Trial slots were freed: {@code count} more trials are wanted. */
    void request(int count);

    /**
     * A trial's metric, stored already ({@code REQUEST_PARAMETER} is not stored).
     *
     * @param value the metric's number, or null when it has none
     * @param line  the metric's JSON line as the trial reported it
     */
    void metric(Trial trial, String type, Double value, String line);

    void trialEnded(Trial trial, TrialStatus status);

    /**
     * @param json results checked as {@link ImportedResults} reads them
     * @return whether the algorithm uses imported results (if not, it took nothing of them)
     */
    boolean importData(String json);

    /** @throws IllegalArgumentException naming the problem when the algorithm cannot take the space */
    void updateSearchSpace(Map<String, Object> searchSpace);

    /** Ends the algorithm; idempotent. */
    void close();

    /**
     * @return completes once the closed algorithm has ended; until then it may still {@linkplain Host#fail fail}
     *         over what it was given before the close ({@link nni.api.tuner.Dispatcher#ended()})
     */
    default CompletionStage<Void> ended() {
        return CompletableFuture.completedFuture(null);
    }
}
