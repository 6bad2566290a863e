package nni.keeper.internal.reuse;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Delayed;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One session's timer on threads its component owns: the component creates a clock (which only
 * says when a task is due) and a pool of workers when it is activated and ends both when it is
 * deactivated. A session's tasks run one at a time, in the order they became due, as on a thread
 * of its own; a slow task of one session holds no other session back. When the session ends it
 * cancels what it scheduled ({@link #shutdown}, {@link #shutdownNow}), leaving the component's
 * threads and the other sessions alone. Thread-safe.
 */
final class SessionTimer {

    private static final Logger LOG = LoggerFactory.getLogger(SessionTimer.class);

    private final ScheduledExecutorService clock;
    private final Executor workers;
    private final String owner;
    private final Deque<Runnable> due = new ArrayDeque<>();
    private final Set<Task> periodic = ConcurrentHashMap.newKeySet();
    private final Set<Task> delayed = ConcurrentHashMap.newKeySet();
    private boolean draining;
    private volatile boolean ended;
    private volatile boolean dropQueued;

    /**
     * @param clock   hands due tasks over; its tasks must be short (they only queue)
     * @param workers runs the tasks
     * @param owner   names the session in logs
     */
    SessionTimer(ScheduledExecutorService clock, Executor workers, String owner) {
        this.clock = clock;
        this.workers = workers;
        this.owner = owner;
    }

    /** Runs a task soon. @throws RejectedExecutionException once this timer (or its component) ended */
    void execute(Runnable task) {
        requireOpen();
        queue(task);
    }

    /**
     * Runs a slow task (a platform's start of an environment) on its own worker thread, beside
     * this session's queue and the other slow tasks: starts are in flight at once, and nothing
     * queued waits behind them. @throws RejectedExecutionException once this timer (or its component) ended
     */
    void executeAside(Runnable task) {
        requireOpen();
        workers.execute(() -> {
            try {
                task.run();
            } catch (RuntimeException e) {
                LOG.error("{}: a task failed", owner, e);
            }
        });
    }

    /** Runs a task once after a delay. @throws RejectedExecutionException once this timer (or its component) ended */
    ScheduledFuture<?> schedule(Runnable work, long delay, TimeUnit unit) {
        requireOpen();
        Task task = new Task(work, delayed);
        delayed.add(task);
        task.clock = clock.schedule(() -> queue(task), delay, unit);
        return task;
    }

    /** Runs a task repeatedly, {@code delay} after each hand-over. @throws RejectedExecutionException once ended */
    ScheduledFuture<?> scheduleWithFixedDelay(Runnable work, long initialDelay, long delay, TimeUnit unit) {
        requireOpen();
        Task task = new Task(work, null);
        periodic.add(task);
        task.clock = clock.scheduleWithFixedDelay(() -> queue(task), initialDelay, delay, unit);
        return task;
    }

    /** Takes no more tasks and cancels the periodic ones; delayed one-shot tasks still run when due. */
    void shutdown() {
        ended = true;
        periodic.forEach(task -> task.cancel(false));
        periodic.clear();
    }

    /** Takes no more tasks and drops every task not yet started. */
    void shutdownNow() {
        shutdown();
        dropQueued = true;
        delayed.forEach(task -> task.cancel(false));
        delayed.clear();
        synchronized (due) {
            due.clear();
        }
    }

    private void requireOpen() {
        if (ended) {
            throw new RejectedExecutionException("the session ended");
        }
    }

    private void queue(Runnable task) {
        synchronized (due) {
            if (dropQueued) {
                return;
            }
            due.add(task);
            if (draining) {
                return;
            }
            draining = true;
        }
        try {
            workers.execute(this::drain);
        } catch (RejectedExecutionException componentEnded) {
            synchronized (due) {
                due.clear();
                draining = false;
            }
        }
    }

    private void drain() {
        while (true) {
            Runnable next;
            synchronized (due) {
                next = due.poll();
                if (next == null) {
                    draining = false;
                    return;
                }
            }
            try {
                next.run();
            } catch (RuntimeException e) {
                LOG.error("{}: a timed task failed", owner, e);
            }
        }
    }

    /** A scheduled task: cancelling it also stops it if it is due but not started yet. */
    private static final class Task implements ScheduledFuture<Object>, Runnable {
        private final Runnable work;
        private final Set<Task> registry;
        volatile ScheduledFuture<?> clock;
        private volatile boolean cancelled;
        private volatile boolean done;

        Task(Runnable work, Set<Task> registry) {
            this.work = work;
            this.registry = registry;
        }

        @Override
        public void run() {
            if (cancelled) {
                return;
            }
            try {
                work.run();
            } finally {
                if (registry != null) {
                    done = true;
                    registry.remove(this);
                }
            }
        }

        @Override
        public boolean cancel(boolean mayInterruptIfRunning) {
            if (done) {
                return false;
            }
            cancelled = true;
            ScheduledFuture<?> timing = clock;
            if (timing != null) {
                timing.cancel(false);
            }
            if (registry != null) {
                registry.remove(this);
            }
            return true;
        }

        @Override
        public boolean isCancelled() {
            return cancelled;
        }

        @Override
        public boolean isDone() {
            return done || cancelled;
        }

        @Override
        public long getDelay(TimeUnit unit) {
            ScheduledFuture<?> timing = clock;
            return timing == null ? 0 : timing.getDelay(unit);
        }

        @Override
        public int compareTo(Delayed other) {
            return Long.compare(getDelay(TimeUnit.NANOSECONDS), other.getDelay(TimeUnit.NANOSECONDS));
        }

        @Override
        public Object get() throws InterruptedException, ExecutionException {
            throw new UnsupportedOperationException("a session timer's tasks have no result");
        }

        @Override
        public Object get(long timeout, TimeUnit unit) throws InterruptedException, ExecutionException, TimeoutException {
            throw new UnsupportedOperationException("a session timer's tasks have no result");
        }
    }
}
