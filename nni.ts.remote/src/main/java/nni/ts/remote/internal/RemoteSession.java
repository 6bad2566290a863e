package nni.ts.remote.internal;

import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.Optional;

import nni.api.model.HyperParameters;
import nni.api.model.TrialApplication;
import nni.api.model.TrialJob;
import nni.api.platform.Capacity;
import nni.api.platform.PlatformException;
import nni.api.platform.SessionView;
import nni.api.platform.TrainingSession;

/**
 * The remote platform's session: the manager's keeper session does the trial work (why a trial
 * waits reaches it through the environments' states); this adds the machines' connections, closed
 * after the trials ({@link #close()}: keepers killed) or let go ({@link #detach()}: keepers left
 * running).
 */
final class RemoteSession implements TrainingSession {

    private final TrainingSession delegate;
    private final RemoteLauncher launcher;

    RemoteSession(TrainingSession delegate, RemoteLauncher launcher) {
        this.delegate = delegate;
        this.launcher = launcher;
    }

    @Override
    public TrialJob submit(TrialApplication application) throws PlatformException {
        return delegate.submit(application);
    }

    @Override
    public void cancel(String trialId, boolean earlyStopped) {
        delegate.cancel(trialId, earlyStopped);
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
    public Optional<SessionView> view() {
        return delegate.view();
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
