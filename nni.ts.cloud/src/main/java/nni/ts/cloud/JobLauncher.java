package nni.ts.cloud;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import nni.api.environment.EnvironmentListener;
import nni.api.environment.EnvironmentSpec;
import nni.api.environment.EnvironmentState;
import nni.api.environment.LaunchedEnvironment;
import nni.api.platform.PlatformException;
import nni.api.platform.TransientPlatformException;

/**
 * Keeper environments as jobs of a cluster's REST API: {@link #start} submits one job (the
 * platform's {@link Api} builds it), a periodic refresh asks the cluster how each job is and
 * reports it (waiting, running, ended with the cluster's outcome), {@link LaunchedEnvironment#stop}
 * stops the job (retried while the cluster does not answer). An environment's handle is the job's
 * handle on the cluster (its name or id), so that {@link #reattach} finds it after a restart.
 *
 * <p>Failures: a submission the cluster cannot take now (no answer, a timeout, 429, 5xx) is a
 * {@link TransientPlatformException}, so the manager tries again with backoff and the waiting trials
 * show why; a refresh that fails is shown to the trials still waiting and tried again at the next
 * refresh. A 401 or 403 anywhere means the credentials are refused: the launcher remembers it
 * ({@link #refusal()}), starts nothing more, and tells the session, which stops submitting.
 *
 * <p>Threads: one scheduled executor of its own, created here and ended by {@link #close()} or
 * {@link #detach()}. The cluster is called outside {@link #lock}.
 */
public final class JobLauncher implements ClusterJobs {

    private static final Logger LOG = LoggerFactory.getLogger(JobLauncher.class);
    private static final Duration CLOSE_WAIT = Duration.ofSeconds(20);
    private static final Duration STOP_RETRY_CAP = Duration.ofSeconds(30);

    /** What a platform tells about its cluster's jobs; called from the launcher's threads. */
    public interface Api {

        /**
         * Submits the job that runs this environment's keeper.
         *
         * @return the job's handle: what {@link #status} and {@link #stop} take, kept with the trials
         */
        String submit(EnvironmentSpec spec) throws CloudException;

        /** @return the job's status; {@link JobStatus#missing()} when the cluster does not know it */
        JobStatus status(String handle) throws CloudException;

        /**
         * @return the status of each job, from one call (a list), when {@link #lists()}; jobs the
         *         cluster does not list are absent
         */
        default Map<String, JobStatus> statuses(List<String> handles) throws CloudException {
            throw new UnsupportedOperationException("this cluster's jobs are asked one by one");
        }

        /** @return whether a refresh is one {@link #statuses} call rather than a {@link #status} per job */
        default boolean lists() {
            return false;
        }

        /** Asks the cluster to stop the job; returns once it accepted. */
        void stop(String handle) throws CloudException;

        /** @return the job's page on the cluster, or empty */
        default String url(String handle) {
            return "";
        }

        /** @return display facts of the environments ({@code keeper=python}) */
        default Map<String, String> attributes() {
            return Map.of();
        }

        /** Releases what the API holds (its HTTP client); called once the launcher's own threads ended. */
        default void close() {
        }
    }

    private final Api api;
    private final String title;
    private final Duration missingAfter;
    private final ScheduledThreadPoolExecutor executor;
    private final Object lock = new Object();
    private final Map<String, Job> jobs = new LinkedHashMap<>();
    private final Refusal refusal;
    private boolean closed;
    private String outage;

    /**
     * @param title        how messages name the cluster's jobs ("OpenPAI")
     * @param refresh      how often the jobs' statuses are asked for
     * @param missingAfter how long a job may be unknown to the cluster before it counts as gone
     *                     (a cluster may not list a job just submitted)
     * @param onRefusal    told once when the credentials are refused
     */
    public JobLauncher(Api api, String title, String threads, Duration refresh, Duration missingAfter, Runnable onRefusal) {
        this.api = api;
        this.title = title;
        this.missingAfter = missingAfter;
        this.refusal = new Refusal(title, onRefusal);
        AtomicInteger count = new AtomicInteger();
        this.executor = new ScheduledThreadPoolExecutor(2, r -> {
            Thread thread = new Thread(r, threads + "-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
        executor.setRemoveOnCancelPolicy(true);
        executor.scheduleWithFixedDelay(this::refresh, refresh.toMillis(), refresh.toMillis(), TimeUnit.MILLISECONDS);
    }

    @Override
    public Optional<String> refusal() {
        return refusal.get();
    }

    @Override
    public LaunchedEnvironment start(EnvironmentSpec spec, EnvironmentListener listener) throws PlatformException {
        refusal.check();
        synchronized (lock) {
            if (closed) {
                throw new PlatformException("the experiment's " + title + " session is closed");
            }
        }
        String handle;
        try {
            handle = api.submit(spec);
        } catch (CloudException e) {
            switch (e.kind()) {
                case TRANSIENT -> throw new TransientPlatformException(e.getMessage(), e.retryAfter().orElse(null), e);
                case AUTH -> {
                    refusal.refuse(e.getMessage());
                    throw new PlatformException(e.getMessage(), e);
                }
                default -> throw new PlatformException(e.getMessage(), e);
            }
        }
        Job job = new Job(spec.environmentId(), handle, listener);
        boolean stopNow;
        synchronized (lock) {
            stopNow = closed;
            jobs.put(job.id, job);
        }
        LOG.info("environment {}: {} job {} submitted", job.id, title, handle);
        listener.stateChanged(EnvironmentState.PENDING, "waiting: " + title + " job " + handle + " submitted");
        if (stopNow) {
            job.stop();
        }
        return job;
    }

    /** Finds a job an earlier session submitted, from its handle: tracked again if the cluster still runs it. */
    @Override
    public Optional<LaunchedEnvironment> reattach(String environmentId, String handle) {
        if (handle == null || handle.isEmpty()) {
            return Optional.empty();
        }
        JobStatus status;
        try {
            status = api.status(handle);
        } catch (CloudException e) {
            if (e.kind() == CloudException.Kind.AUTH) {
                refusal.refuse(e.getMessage());
                return Optional.empty();
            }
            if (e.kind() != CloudException.Kind.TRANSIENT) {
                LOG.warn("environment {}: {} job {} cannot be found again: {}", environmentId, title, handle, e.getMessage());
                return Optional.empty();
            }
            // the cluster does not answer now: track the job, the refresh tells soon whether it lives
            status = JobStatus.of(JobStatus.Phase.RUNNING, "", "");
        }
        if (!status.alive()) {
            LOG.info("environment {}: {} job {} is {}; not taken back", environmentId, title, handle, status);
            return Optional.empty();
        }
        Job job = new Job(environmentId, handle, (state, message) -> { });
        job.running = status.phase() != JobStatus.Phase.WAITING;
        synchronized (lock) {
            if (closed) {
                return Optional.empty();
            }
            jobs.put(environmentId, job);
        }
        LOG.info("environment {}: {} job {} found again ({})", environmentId, title, handle, status.phase());
        return Optional.of(job);
    }

    /** Stops the job of {@code environmentId} now, if it is tracked (a cancelled trial's job). */
    @Override
    public void stopJobOf(String environmentId) {
        Job job;
        synchronized (lock) {
            job = jobs.get(environmentId);
        }
        if (job != null) {
            job.stop();
        }
    }

    /**
     * The job of {@code environmentId} should end by itself (its trial is over): it is left
     * {@code grace} to do so, and stopped then if the cluster still runs it (other task roles keep
     * it up). A {@link LaunchedEnvironment#stop()} meanwhile waits for the same check.
     */
    @Override
    public void stopJobLater(String environmentId, Duration grace) {
        Job job;
        synchronized (lock) {
            job = jobs.get(environmentId);
            if (job == null || job.finishing) {
                return;
            }
            job.finishing = true;
        }
        schedule(job::stopIfAlive, grace);
    }

    // ------------------------------------------------------------------ refresh

    private void refresh() {
        List<Job> live;
        synchronized (lock) {
            if (closed || refusal.get().isPresent()) {
                return;
            }
            live = jobs.values().stream().filter(j -> !j.ended.isDone()).toList();
        }
        if (live.isEmpty()) {
            return;
        }
        try {
            if (api.lists()) {
                Map<String, JobStatus> statuses = api.statuses(live.stream().map(j -> j.handle).toList());
                recovered();
                live.forEach(job -> job.seen(statuses.getOrDefault(job.handle, JobStatus.missing())));
            } else {
                for (Job job : live) {
                    JobStatus status = api.status(job.handle);
                    recovered();
                    job.seen(status);
                }
            }
        } catch (CloudException e) {
            if (e.kind() == CloudException.Kind.AUTH) {
                refusal.refuse(e.getMessage());
            } else {
                unavailable(live, e.getMessage());
            }
        } catch (RuntimeException | LinkageError | AssertionError e) {
            // logged, and the next refresh runs: an exception out of a periodic task would end every later one
            LOG.error("refreshing the {} jobs failed", title, e);
        }
    }

    /** The cluster does not answer: tell the trials that wait, log it once per outage. */
    private void unavailable(List<Job> live, String why) {
        boolean first;
        synchronized (lock) {
            first = outage == null;
            outage = why;
        }
        if (first) {
            LOG.warn("{}; the job statuses are asked again every refresh", why);
        }
        for (Job job : live) {
            if (!job.running) {
                job.tell(EnvironmentState.PENDING, "waiting: the job's status is unknown, " + why + "; asking again");
            }
        }
    }

    private void recovered() {
        String was;
        synchronized (lock) {
            was = outage;
            outage = null;
        }
        if (was != null) {
            LOG.info("{} answers again", title);
        }
    }


    /** @return false when the launcher's threads are ending and the task was not taken */
    private boolean schedule(Runnable task, Duration delay) {
        try {
            executor.schedule(() -> {
                try {
                    task.run();
                } catch (RuntimeException e) {
                    LOG.error("{} task failed", title, e);
                }
            }, delay.toMillis(), TimeUnit.MILLISECONDS);
            return true;
        } catch (RejectedExecutionException closing) {
            return false; // the session is closing or detached
        }
    }

    // ------------------------------------------------------------------ ends

    /**
     * Lets go of every job without stopping it: no more refreshes, no ends reported. The jobs keep
     * running; a later session's {@link #reattach} takes them back.
     */
    @Override
    public void detach() {
        List<Job> all;
        synchronized (lock) {
            closed = true;
            all = new ArrayList<>(jobs.values());
            jobs.clear();
        }
        all.forEach(Job::detach);
        executor.shutdownNow();
        api.close();
    }

    /** Stops every job still tracked, waits a while for the stops to be accepted, ends the threads. */
    @Override
    public void close() {
        List<Job> all;
        synchronized (lock) {
            closed = true;
            all = new ArrayList<>(jobs.values());
        }
        all.stream().filter(j -> !j.ended.isDone()).forEach(Job::stop);
        executor.shutdown(); // stops already scheduled (retries included) still run
        try {
            if (!executor.awaitTermination(CLOSE_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
                LOG.warn("some {} jobs may not have been stopped within {} s", title, CLOSE_WAIT.toSeconds());
                executor.shutdownNow();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            executor.shutdownNow();
        } finally {
            api.close();
        }
    }

    /** One submitted job, as the manager's keeper session sees its environment. */
    private final class Job implements LaunchedEnvironment {
        final String id;
        final String handle;
        final EnvironmentListener listener;
        final CompletableFuture<String> ended = new CompletableFuture<>();
        final Instant submitted = Instant.now();
        volatile boolean running;
        volatile String url;
        Instant missingSince;
        String lastMessage;
        boolean stopRequested;
        boolean finishing;
        volatile boolean detached;

        Job(String id, String handle, EnvironmentListener listener) {
            this.id = id;
            this.handle = handle;
            this.listener = listener;
            this.url = api.url(handle);
        }

        /** Applies one status the cluster gave. */
        void seen(JobStatus status) {
            if (!status.url().isEmpty()) {
                url = status.url();
            }
            if (status.phase() != JobStatus.Phase.MISSING) {
                synchronized (lock) {
                    missingSince = null;
                }
            }
            switch (status.phase()) {
                case WAITING -> tell(EnvironmentState.PENDING, "waiting: " + (status.detail().isEmpty()
                        ? title + " job " + handle + " waits for resources" : status.detail()));
                case RUNNING -> {
                    if (!running) {
                        running = true;
                        LOG.info("environment {}: {} job {} runs", id, title, handle);
                        tell(EnvironmentState.RUNNING, "waiting: " + title + " job " + handle
                                + " runs; its keeper connects to the manager");
                    }
                }
                case STOPPING, UNKNOWN -> {
                    // still alive; its end comes with a later refresh
                }
                case ENDED -> end(status.detail().isEmpty() ? title + " job " + handle + " ended" : status.detail());
                case MISSING -> {
                    Instant since;
                    synchronized (lock) {
                        if (missingSince == null) {
                            // just submitted, a cluster may not know the job yet
                            missingSince = running ? Instant.now() : submitted;
                        }
                        since = missingSince;
                    }
                    if (Duration.between(since, Instant.now()).compareTo(missingAfter) >= 0) {
                        end(title + " job " + handle + " no longer exists (unknown to " + title + " for "
                                + missingAfter.toSeconds() + " s)");
                    }
                }
                default -> throw new IllegalStateException(status.phase().name());
            }
        }

        void tell(EnvironmentState state, String message) {
            synchronized (lock) {
                if (ended.isDone() || detached || message.equals(lastMessage)) {
                    return;
                }
                lastMessage = message;
            }
            listener.stateChanged(state, message);
        }

        void end(String why) {
            synchronized (lock) {
                if (detached || ended.isDone()) {
                    return;
                }
                jobs.remove(id, this);
            }
            LOG.info("environment {}: {}", id, why);
            ended.complete(why);
        }

        @Override
        public CompletionStage<String> ended() {
            return ended;
        }

        @Override
        public void stop() {
            synchronized (lock) {
                if (finishing) {
                    return; // ending by itself: stopped after the grace if it did not
                }
            }
            requestStop();
        }

        private void requestStop() {
            synchronized (lock) {
                if (stopRequested || detached || ended.isDone()) {
                    return;
                }
                stopRequested = true;
            }
            if (!schedule(() -> sendStop(1, Instant.now()), Duration.ZERO)) {
                sendStop(1, Instant.now()); // closing: on this thread, the last chance
            }
        }

        /** Asks the cluster whether the job still runs, and stops it if it does (or cannot tell). */
        void stopIfAlive() {
            if (ended.isDone() || detached) {
                return;
            }
            try {
                JobStatus status = api.status(handle);
                if (!status.alive()) {
                    seen(status.phase() == JobStatus.Phase.MISSING ? JobStatus.of(JobStatus.Phase.ENDED, title + " job " + handle
                            + " is gone", "") : status);
                    return;
                }
            } catch (CloudException e) {
                // cannot tell: stop it
            }
            LOG.info("environment {}: {} job {} still runs after its trial ended; stopping it", id, title, handle);
            requestStop();
        }

        /** One try to stop the job; a cluster that does not answer is asked again with backoff, for a while. */
        private void sendStop(int attempt, Instant since) {
            try {
                api.stop(handle);
                LOG.info("environment {}: {} job {} asked to stop", id, title, handle);
            } catch (CloudException e) {
                switch (e.kind()) {
                    case NOT_FOUND -> end(title + " job " + handle + " is gone");
                    case AUTH -> refusal.refuse(e.getMessage());
                    case TRANSIENT -> {
                        Duration wait = e.retryAfter().orElse(Duration.ofSeconds(Math.min(STOP_RETRY_CAP.toSeconds(), 1L << Math.min(attempt, 5))));
                        if (Duration.between(since, Instant.now()).compareTo(Duration.ofMinutes(10)) > 0) {
                            LOG.error("environment {}: {} job {} could not be stopped for 10 minutes: {}; stop it by hand",
                                    id, title, handle, e.getMessage());
                        } else {
                            LOG.warn("environment {}: stopping {} job {}: {}; trying again in {} s", id, title, handle,
                                    e.getMessage(), wait.toSeconds());
                            schedule(() -> sendStop(attempt + 1, since), wait);
                        }
                    }
                    default -> LOG.warn("environment {}: {} refused to stop job {}: {}", id, title, handle, e.getMessage());
                }
            }
        }

        @Override
        public void detach() {
            detached = true;
        }

        @Override
        public String url() {
            return url;
        }

        @Override
        public String handle() {
            return handle;
        }

        @Override
        public String host() {
            return title + " job " + handle;
        }

        @Override
        public Map<String, String> attributes() {
            return api.attributes();
        }
    }
}
