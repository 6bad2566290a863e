package nni.keeper.internal.reuse;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

import org.junit.rules.ExternalResource;

import nni.api.environment.EnvironmentLauncher;
import nni.api.environment.KeeperOptions;
import nni.api.environment.KeeperRuntime;
import nni.api.model.TrialJob;
import nni.api.platform.SessionContext;
import nni.keeper.internal.report.KeeperLinkFile;
import nni.keeper.internal.report.KeeperLinks;

/** A {@link KeeperSession} of one experiment with its threads, its links and a record of every trial change (a JUnit rule). */
final class SessionFixture extends ExternalResource {

    static final String EXPERIMENT = "Fixtr001";
    static final String URL = "http://127.0.0.1:1/";

    final KeeperLinks links = new KeeperLinks("9.9.9");
    final List<TrialJob> changes = new CopyOnWriteArrayList<>();
    /** Every metric line stored, as {@code <trial> <line>}. */
    final List<String> metrics = new CopyOnWriteArrayList<>();
    private ScheduledExecutorService clock;
    private ExecutorService workers;

    @Override
    protected void before() {
        clock = Executors.newSingleThreadScheduledExecutor();
        workers = Executors.newCachedThreadPool();
    }

    @Override
    protected void after() {
        clock.shutdownNow();
        workers.shutdownNow();
    }

    KeeperSession open(Path directory, KeeperOptions options, EnvironmentLauncher launcher) {
        return open(directory, options, launcher, links);
    }

    /** A session on {@code keeperLinks} instead of this fixture's own links (a test that watches what the session does with them). */
    KeeperSession open(Path directory, KeeperOptions options, EnvironmentLauncher launcher, KeeperLinks keeperLinks) {
        SessionContext context = new SessionContext() {
            @Override public String experimentId() { return EXPERIMENT; }
            @Override public Path experimentDirectory() { return directory; }
            @Override public String platform() { return options.platform(); }
            @Override public Map<String, Object> section() { return Map.of("trialCommand", "true"); }
            @Override public void trialChanged(TrialJob trial) { changes.add(trial); }
            @Override public void metricReported(String trialId, String line) { metrics.add(trialId + " " + line); }
            @Override public void capacityChanged() { }
        };
        return new KeeperSession(context, launcher, options, keeperLinks, null, Map.of(KeeperRuntime.JAVA, directory.resolve("keeper.jar")), directory.resolve("code.tgz"), URL,
                KeeperLinkFile.open(directory, URL), new SessionTimer(clock, workers, "test"), ended -> { });
    }
}
