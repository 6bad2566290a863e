package nni.ts.remote.internal;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import nni.api.model.HyperParameters;
import nni.api.model.TrialApplication;
import nni.api.model.TrialJob;
import nni.api.model.TrialStatus;
import nni.api.platform.PlatformException;
import nni.api.platform.SessionContext;
import nni.api.platform.TrainingSession;

/**
 * The remote platform's session: the manager's keeper session does the trial work; this adds what
 * only the remote platform knows, why a waiting trial waits ("waiting: needs 2 GPUs; 127.0.0.2: 1
 * free; 127.0.0.3: unreachable (connection refused)"), and closes the machines after the trials.
 */
final class RemoteSession implements TrainingSession {

    private final TrainingSession delegate;
    private final RemoteLauncher launcher;
    private final Context context;
    private final boolean reuse;

    private RemoteSession(TrainingSession delegate, RemoteLauncher launcher, Context context, boolean reuse) {
        this.delegate = delegate;
        this.launcher = launcher;
        this.context = context;
        this.reuse = reuse;
    }

    /** The context the keeper session reports through: remembers each trial's last state. */
    static final class Context implements SessionContext {
        private final SessionContext manager;
        private final Map<String, TrialJob> last = new HashMap<>();

        Context(SessionContext manager) {
            this.manager = manager;
        }

        @Override
        public String experimentId() {
            return manager.experimentId();
        }

        @Override
        public Path experimentDirectory() {
            return manager.experimentDirectory();
        }

        @Override
        public Map<String, Object> section() {
            return manager.section();
        }

        @Override
        public synchronized void trialChanged(TrialJob trial) {
            last.put(trial.id(), trial);
            manager.trialChanged(trial);
        }

        @Override
        public void metricReported(String trialId, String line) {
            manager.metricReported(trialId, line);
        }

        synchronized void submitted(TrialJob trial) {
            last.putIfAbsent(trial.id(), trial);
        }

        /** Reports a new waiting reason for trials still waiting (and only for them). */
        synchronized void waiting(String trialId, String why) {
            List<String> ids = trialId == null ? List.copyOf(last.keySet()) : List.of(trialId);
            for (String id : ids) {
                TrialJob job = last.get(id);
                if (job != null && job.status() == TrialStatus.WAITING && !why.equals(job.message())) {
                    TrialJob updated = job.withMessage(why);
                    last.put(id, updated);
                    manager.trialChanged(updated);
                }
            }
        }

        synchronized TrialJob decorate(TrialJob job) {
            TrialJob mine = last.get(job.id());
            return job.status() == TrialStatus.WAITING && mine != null && mine.status() == TrialStatus.WAITING ? mine : job;
        }
    }

    /** Opens the keeper session with a launcher whose waiting reasons reach the trials. */
    static RemoteSession open(SessionContext manager, boolean reuse, KeeperSessionOpener opener) throws PlatformException {
        Context context = new Context(manager);
        RemoteSession[] self = new RemoteSession[1];
        RemoteLauncher launcher = opener.launcher((environmentId, why) -> {
            // per trial, the environment is the trial; with reuse, any waiting trial waits for environments
            context.waiting(reuse ? null : environmentId, why);
        });
        TrainingSession delegate;
        try {
            delegate = opener.open(context, launcher);
        } catch (PlatformException | RuntimeException e) {
            launcher.close();
            throw e;
        }
        self[0] = new RemoteSession(delegate, launcher, context, reuse);
        return self[0];
    }

    /** How {@link RemotePlatform} builds the two halves. */
    interface KeeperSessionOpener {
        RemoteLauncher launcher(java.util.function.BiConsumer<String, String> waitingListener) throws PlatformException;

        TrainingSession open(SessionContext context, RemoteLauncher launcher) throws PlatformException;
    }

    @Override
    public TrialJob submit(TrialApplication application) throws PlatformException {
        TrialJob job = delegate.submit(application);
        context.submitted(job);
        String why = reuse ? launcher.anyWaiting() : launcher.whyWaiting(job.id());
        return why == null ? job : job.withMessage(why);
    }

    @Override
    public void cancel(String trialId, boolean earlyStopped) {
        delegate.cancel(trialId, earlyStopped);
        if (!reuse) {
            launcher.stopWaiting(trialId); // its keeper never started: the trial ends now, not when a machine is free
        }
    }

    @Override
    public void sendParameters(String trialId, HyperParameters parameters) throws PlatformException {
        delegate.sendParameters(trialId, parameters);
    }

    @Override
    public Optional<TrialJob> trial(String trialId) {
        return delegate.trial(trialId).map(context::decorate);
    }

    @Override
    public List<TrialJob> trials() {
        return delegate.trials().stream().map(context::decorate).toList();
    }

    @Override
    public Optional<InputStream> openTrialFile(String trialId, String name) throws IOException {
        return delegate.openTrialFile(trialId, name);
    }

    @Override
    public void close() {
        try {
            delegate.close();
        } finally {
            launcher.close();
        }
    }
}
