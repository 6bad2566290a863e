package nni.ts.k8s;

import java.io.IOException;
import java.io.InputStream;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

import nni.api.model.HyperParameters;
import nni.api.model.TrialApplication;
import nni.api.model.TrialJob;
import nni.api.model.TrialStatus;
import nni.api.platform.Capacity;
import nni.api.platform.PlatformException;
import nni.api.platform.SessionContext;
import nni.api.platform.TrainingSession;

/**
 * A Kubernetes platform's session: the manager's keeper session does the trial work; this adds
 * what is Kubernetes' own. A job deleted by someone else ends its trial {@code SYS_CANCELED}, saying
 * so (reported before the keeper session would call it failed); with one keeper per trial a
 * cancelled trial's job is deleted once its keeper has reported the end (its metrics first);
 * {@link #close()} deletes what the experiment created, {@link #detach()} leaves it running.
 */
public final class KubernetesSession implements TrainingSession {

    private final SessionContext context;
    private final KubernetesLauncher launcher;
    private final boolean perTrial;
    private final TrainingSession delegate;

    /**
     * @param delegate the keeper session opened with {@code launcher}
     */
    public KubernetesSession(SessionContext context, KubernetesLauncher launcher, boolean perTrial, TrainingSession delegate) {
        this.context = context;
        this.launcher = launcher;
        this.perTrial = perTrial;
        this.delegate = delegate;
        launcher.onDeletedFromOutside(this::deletedFromOutside);
    }

    /** The job of environment {@code environmentId} is gone, not by nni-osgi: its live trial ends SYS_CANCELED. */
    private void deletedFromOutside(String environmentId, String why) {
        for (TrialJob trial : delegate.trials()) {
            if (trial.status().isTerminal()) {
                continue;
            }
            boolean runsThere = perTrial ? trial.id().equals(environmentId)
                    : trial.handle().equals(environmentId) || trial.handle().startsWith(environmentId + " ");
            if (runsThere) {
                context.trialChanged(trial.ended(TrialStatus.SYS_CANCELED, Instant.now(), why));
            }
        }
    }

    @Override
    public TrialJob submit(TrialApplication application) throws PlatformException {
        return delegate.submit(application);
    }

    /** The keeper kills the trial and reports its end; with one keeper per trial its job is deleted then. */
    @Override
    public void cancel(String trialId, boolean earlyStopped) {
        delegate.cancel(trialId, earlyStopped);
        if (perTrial) {
            launcher.deleteWhenEnded(trialId);
        }
    }

    @Override
    public void sendParameters(String trialId, HyperParameters parameters) throws PlatformException {
        delegate.sendParameters(trialId, parameters);
    }

    @Override
    public Optional<TrialJob> reattach(TrialJob trial) {
        return delegate.reattach(trial);
    }

    @Override
    public Optional<TrialJob> trial(String trialId) {
        return delegate.trial(trialId);
    }

    @Override
    public List<TrialJob> trials() {
        return delegate.trials();
    }

    @Override
    public Optional<InputStream> openTrialFile(String trialId, String name) throws IOException {
        return delegate.openTrialFile(trialId, name);
    }

    @Override
    public Capacity capacity() {
        return delegate.capacity();
    }

    @Override
    public void close() {
        try {
            delegate.close();
        } finally {
            launcher.close();
        }
    }

    @Override
    public void detach() {
        try {
            delegate.detach();
        } finally {
            launcher.detach();
        }
    }
}
