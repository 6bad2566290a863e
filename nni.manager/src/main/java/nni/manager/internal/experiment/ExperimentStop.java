package nni.manager.internal.experiment;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import nni.api.platform.TrainingSession;

/**
 * How an experiment lets go of its trials: the user's stop ({@link #stop}: every live trial
 * cancelled, then the sessions {@linkplain TrainingSession#close() closed}) and the runtime's
 * ({@link #detach}: the sessions {@linkplain TrainingSession#detach() detached}, the trials left
 * running for a resume). The experiment keeps its status; this keeps the order of the steps and
 * what a stop waits for.
 */
final class ExperimentStop {

    private static final Logger LOG = LoggerFactory.getLogger(ExperimentStop.class);
    /**
     * How long a stop waits for the experiment's thread before it stops without it (a platform call
     * holds it). Generous: a thread merely busy with a queue of events (150 trials' starts at load 6
     * took more than 10 s) must take the stop, or the ends the close then reports arrive too late
     * to be stored and the trials stay RUNNING until a resume.
     */
    private static final Duration STOP_TURN_WAIT = Duration.ofSeconds(60);
    private static final long DETACH_DRAIN_SECONDS = 10;
    /**
     * How long the stop of an experiment that ended by itself waits for its algorithm to end: its
     * failure over the last results still counts (NNI's dispatcher is given 10 s, then ended).
     */
    private static final Duration ALGORITHM_END_WAIT = Duration.ofSeconds(30);

    private final RunningParts parts;
    private final AtomicBoolean stopping = new AtomicBoolean();
    /** Whether this stop closes an experiment that had ended by itself (DONE). */
    private volatile boolean afterItsEnd;
    /** Completes once no trial is live after a stop; on the experiment's thread. */
    private CompletableFuture<Void> allEnded;

    ExperimentStop(RunningParts parts) {
        this.parts = parts;
    }

    /** @return whether a stop was asked (the experiment submits nothing more) */
    boolean stopping() {
        return stopping.get();
    }

    /**
     * @return whether the experiment is being stopped after it ended by itself: a failure of its
     *         algorithm over the last results still makes it end in ERROR
     */
    boolean closingAfterItsEnd() {
        return afterItsEnd;
    }

    /** See {@link Experiment#stop}. */
    void stop(Duration patience) {
        if (!stopping.compareAndSet(false, true)) {
            return;
        }
        String id = parts.experiment().id();
        if (parts.experiment().readOnly()) {
            closeStore();
            return;
        }
        CompletableFuture<Void> ended;
        boolean threadAnswered = true;
        try {
            ended = parts.thread().call(STOP_TURN_WAIT, () -> {
                ExperimentStatus status = parts.run().get();
                if (status == ExperimentStatus.STOPPED || status == ExperimentStatus.STOPPING) {
                    return allEnded == null ? CompletableFuture.<Void>completedFuture(null) : allEnded;
                }
                afterItsEnd = status == ExperimentStatus.DONE;
                parts.run().becomeStatic(ExperimentStatus.STOPPING);
                allEnded = new CompletableFuture<>();
                parts.trials().live().forEach(parts.scheduler()::cancelForStop);
                trialEnded();
                return allEnded;
            });
        } catch (RuntimeException e) {
            // the thread is held by a platform call: the sessions' close below cancels the trials without it
            LOG.warn("experiment {}: its thread did not take the stop within {} s ({}); stopping without it", id,
                    STOP_TURN_WAIT.toSeconds(), e.getMessage());
            threadAnswered = false;
            ended = CompletableFuture.completedFuture(null);
        }
        try {
            ended.get(patience.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            LOG.warn("experiment {}: trials still running {} after the stop; closing the sessions anyway", id, patience);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException e) {
            LOG.warn("experiment {}: stopping failed", id, e.getCause());
        }
        parts.scheduler().closeAll();
        CompletionStage<Void> algorithmEnded = parts.experiment().closeAlgorithm();
        if (afterItsEnd) {
            awaitAlgorithm(id, algorithmEnded);
        }
        Supplier<Void> stopped = () -> {
            // its algorithm's failure, told while it ended, came first on the thread
            if (parts.run().get() != ExperimentStatus.ERROR) {
                parts.run().ended(ExperimentStatus.STOPPED);
            }
            return null;
        };
        try {
            if (threadAnswered) {
                parts.thread().call(stopped);
            } else {
                parts.thread().shutdownNow();
                stopped.get();
            }
        } catch (RuntimeException e) {
            LOG.warn("experiment {}: storing the stop failed", id, e);
        }
        parts.thread().shutdown();
        closeStore();
        parts.run().settled().complete(ExperimentStatus.STOPPED);
    }

    private static void awaitAlgorithm(String id, CompletionStage<Void> ended) {
        try {
            ended.toCompletableFuture().get(ALGORITHM_END_WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            LOG.warn("experiment {}: its algorithm had not ended {} s after it was closed", id, ALGORITHM_END_WAIT.toSeconds());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException e) {
            LOG.warn("experiment {}: ending its algorithm failed", id, e.getCause());
        }
    }

    /** A trial of a stopping experiment ended (or the stop began): the stop stops waiting once none is live. */
    void trialEnded() {
        if (allEnded != null && parts.trials().live().isEmpty()) {
            allEnded.complete(null);
        }
    }

    /** See {@link Experiment#detach}. */
    void detach() {
        if (!parts.experiment().readOnly()) {
            parts.scheduler().detachAll();
            parts.experiment().closeAlgorithm();
            if (!parts.thread().drain(DETACH_DRAIN_SECONDS)) {
                LOG.warn("experiment {}: events still queued {} s after detaching; resume re-checks those trials",
                        parts.experiment().id(), DETACH_DRAIN_SECONDS);
            }
            parts.run().settled().complete(parts.run().get());
        }
        closeStore();
    }

    private void closeStore() {
        try {
            parts.store().close();
        } catch (RuntimeException e) {
            LOG.warn("experiment {}: closing the store failed", parts.experiment().id(), e);
        }
    }
}
