package nni.manager.internal.experiment;

import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.Supplier;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import nni.store.StoreException;

/**
 * The experiment's single thread: every decision of one experiment runs here, one at a time, so
 * that its tuner and assessor are called from one thread and its state needs no locks. A store
 * that fails under work done here fails the experiment ({@code storeFailed}) before anything else
 * acts on what the store did not take.
 */
final class ExperimentThread {

    private static final Logger LOG = LoggerFactory.getLogger(ExperimentThread.class);
    private static final Duration CALL_PATIENCE = Duration.ofSeconds(60);

    private final String experimentId;
    private final String name;
    private final ScheduledThreadPoolExecutor executor;
    private final Consumer<StoreException> storeFailed;
    /** The experiment's status, named in the warning of work that came too late. */
    private final Supplier<ExperimentStatus> status;

    ExperimentThread(String experimentId, Consumer<StoreException> storeFailed, Supplier<ExperimentStatus> status) {
        this.experimentId = experimentId;
        this.name = "nni-experiment-" + experimentId;
        this.storeFailed = storeFailed;
        this.status = status;
        this.executor = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        });
        // a stopped experiment's limits and retries must not hold its thread (or the runtime's stop) back
        executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        executor.setRemoveOnCancelPolicy(true);
    }

    /** @return the thread as an executor, for the parts that schedule on it (limits, retries) */
    ScheduledExecutorService executor() {
        return executor;
    }

    /** @return whether the caller is on this thread (work is then done at once, not queued behind itself) */
    boolean isCurrent() {
        return Thread.currentThread().getName().equals(name);
    }

    /**
     * Runs work on the thread. Once the experiment is closed the work is not done, and that is
     * logged as a warning naming {@code what} (a status not stored is re-checked by {@code resume},
     * which asks the platform).
     */
    void execute(Runnable work, Supplier<String> what) {
        try {
            executor.execute(() -> {
                try {
                    storing(() -> {
                        work.run();
                        return null;
                    });
                } catch (StoreException e) {
                    // the experiment failed with the store's message
                } catch (RuntimeException e) {
                    LOG.error("experiment {}: internal error", experimentId, e);
                }
            });
        } catch (RejectedExecutionException e) {
            LOG.warn("experiment {} is closed ({}): {} arrived too late and is not stored; resume asks the platform again",
                    experimentId, status.get(), what.get());
        }
    }

    /** Runs work on the thread and waits for it; its exception is rethrown. */
    <T> T call(Supplier<T> work) {
        return call(CALL_PATIENCE, work);
    }

    <T> T call(Duration patience, Supplier<T> work) {
        if (isCurrent()) {
            return work.get();
        }
        try {
            return executor.submit(() -> storing(work)).get(patience.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for experiment " + experimentId, e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException runtime) {
                throw runtime;
            }
            throw new IllegalStateException(e.getCause().getMessage(), e.getCause());
        } catch (TimeoutException e) {
            throw new IllegalStateException("experiment " + experimentId + " did not answer within " + patience.toSeconds() + " s", e);
        }
    }

    /** The store's failure fails the experiment and is rethrown, for a caller waiting on {@link #call}. */
    private <T> T storing(Supplier<T> work) {
        try {
            return work.get();
        } catch (StoreException e) {
            storeFailed.accept(e);
            throw e;
        }
    }

    /** Takes no more work; what is queued still runs, what is scheduled for later does not. */
    void shutdown() {
        executor.shutdown();
    }

    /** Takes no more work and drops what is queued. */
    void shutdownNow() {
        executor.shutdownNow();
    }

    /**
     * Takes no more work and lets what is queued run for up to {@code seconds}, then drops the rest.
     *
     * @return false when work was still queued and was dropped
     */
    boolean drain(long seconds) {
        executor.shutdown();
        try {
            if (!executor.awaitTermination(seconds, TimeUnit.SECONDS)) {
                executor.shutdownNow();
                return false;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            executor.shutdownNow();
        }
        return true;
    }
}
