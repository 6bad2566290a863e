package nni.ts.cloud;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import nni.api.environment.KeeperOptions;
import nni.api.environment.KeeperSessions;
import nni.api.model.HyperParameters;
import nni.api.model.TrialApplication;
import nni.api.model.TrialJob;
import nni.api.model.TrialStatus;
import nni.api.platform.Capacity;
import nni.api.platform.PlatformException;
import nni.api.platform.ReportChannel;
import nni.api.platform.SessionContext;
import nni.api.platform.SessionView;
import nni.api.platform.TrainingSession;

/**
 * A cluster platform's session: the manager's keeper session runs the trials on environments that
 * a {@link ClusterJobs} launcher submits as jobs; this adds what a job cluster needs around it.
 * <ul>
 * <li>With one job per trial ({@link KeeperOptions#reuse()} false), cancelling a trial (by the user
 *     or early stop) also stops its job ({@link ClusterJobs#stopJobOf}), and a job still alive
 *     {@code stopGrace} after its trial ended (other task roles keep it up) is stopped then.</li>
 * <li>A job removed by someone else ends the live trials it ran {@code SYS_CANCELED}, saying so
 *     (before the keeper session would call them failed: their keeper vanished).</li>
 * <li>Once the cluster refused the credentials, the session takes no more trials: capacity 0, and a
 *     submission fails with the refusal.</li>
 * <li>{@link #close()} closes the keeper session (trials cancelled, environments stopped), then the
 *     launcher (what is left stopped); {@link #detach()} detaches both and leaves every job running.
 *     A session that cannot open detaches the launcher: a resumed experiment's jobs are left alone.</li>
 * </ul>
 */
public final class JobSession implements TrainingSession {

    private final SessionContext context;
    private final ClusterJobs launcher;
    private final boolean jobPerTrial;
    private final Duration stopGrace;
    private final TrainingSession keepers;
    private volatile String transportChoice;

    private JobSession(SessionContext context, ClusterJobs launcher, KeeperOptions options, Duration stopGrace,
                       KeeperSessions keeperSessions) throws PlatformException {
        this.context = context;
        this.launcher = launcher;
        this.jobPerTrial = !options.reuse();
        this.stopGrace = stopGrace;
        this.keepers = keeperSessions.open(new TrialEnds(), launcher, options);
        launcher.whenRemovedFromOutside(this::removedFromOutside);
    }

    /**
     * Opens the keeper session over {@code launcher}; on failure the launcher is detached.
     *
     * @param stopGrace with a job per trial: how long a job may outlive its trial
     */
    public static JobSession open(SessionContext context, ClusterJobs launcher, KeeperOptions options, Duration stopGrace,
                                  KeeperSessions keeperSessions) throws PlatformException {
        try {
            return new JobSession(context, launcher, options, stopGrace, keeperSessions);
        } catch (PlatformException | RuntimeException e) {
            launcher.detach();
            throw e;
        }
    }

    /**
     * @param why how the platform chose its keepers' transport ("keeper.transport = auto: ..."), told
     *            with {@link #reportChannel()} before what the keeper session says
     * @return this session
     */
    public JobSession transportChosen(String why) {
        this.transportChoice = why;
        return this;
    }

    /**
     * The job of {@code environmentId} was removed by someone else: its live trials end
     * SYS_CANCELED. A trial's handle from the keeper session starts with its environment's id.
     */
    private void removedFromOutside(String environmentId, String why) {
        for (TrialJob trial : keepers.trials()) {
            boolean ranThere = jobPerTrial ? trial.id().equals(environmentId)
                    : trial.handle().equals(environmentId) || trial.handle().startsWith(environmentId + " ");
            if (ranThere && !trial.status().isTerminal()) {
                context.trialChanged(trial.ended(TrialStatus.SYS_CANCELED, Instant.now(), why));
            }
        }
    }

    @Override
    public TrialJob submit(TrialApplication application) throws PlatformException {
        Optional<String> refusal = launcher.refusal();
        if (refusal.isPresent()) {
            throw new PlatformException(refusal.get());
        }
        return keepers.submit(application);
    }

    @Override
    public void cancel(String trialId, boolean earlyStopped) {
        keepers.cancel(trialId, earlyStopped);
        if (jobPerTrial) {
            launcher.stopJobOf(trialId); // with a job per trial, the environment id is the trial id
        }
    }

    @Override
    public void sendParameters(String trialId, HyperParameters parameters) throws PlatformException {
        keepers.sendParameters(trialId, parameters);
    }

    @Override
    public Optional<TrialJob> reattach(TrialJob trial) {
        return keepers.reattach(trial);
    }

    @Override
    public Optional<TrialJob> trial(String trialId) {
        return keepers.trial(trialId);
    }

    @Override
    public List<TrialJob> trials() {
        return keepers.trials();
    }

    @Override
    public Optional<InputStream> openTrialFile(String trialId, String name) throws IOException {
        return keepers.openTrialFile(trialId, name);
    }

    @Override
    public Capacity capacity() {
        return launcher.refusal().isPresent() ? Capacity.freeTrialSlots(0) : keepers.capacity();
    }

    @Override
    public Optional<SessionView> view() {
        return keepers.view();
    }

    @Override
    public Optional<ReportChannel> reportChannel() {
        String why = transportChoice;
        return keepers.reportChannel().map(channel -> why == null ? channel
                : ReportChannel.of(channel.transport(), why + "; " + channel.why()));
    }

    @Override
    public void close() {
        try {
            keepers.close();
        } finally {
            launcher.close();
        }
    }

    @Override
    public void detach() {
        try {
            keepers.detach();
        } finally {
            launcher.detach();
        }
    }

    /** The context the keeper session reports to: passes everything on, and notices trials that ended. */
    private final class TrialEnds implements SessionContext {

        @Override
        public String experimentId() {
            return context.experimentId();
        }

        @Override
        public Path experimentDirectory() {
            return context.experimentDirectory();
        }

        @Override
        public String platform() {
            return context.platform();
        }

        @Override
        public Map<String, Object> section() {
            return context.section();
        }

        @Override
        public void trialChanged(TrialJob trial) {
            context.trialChanged(trial);
            if (jobPerTrial && trial.status().isTerminal()) {
                launcher.stopJobLater(trial.id(), stopGrace);
            }
        }

        @Override
        public void metricReported(String trialId, String line) {
            context.metricReported(trialId, line);
        }

        @Override
        public void metricsReported(String trialId, List<String> lines) {
            context.metricsReported(trialId, lines);
        }

        @Override
        public void capacityChanged() {
            context.capacityChanged();
        }
    }
}
