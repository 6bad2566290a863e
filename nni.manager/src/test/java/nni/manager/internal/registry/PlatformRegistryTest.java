package nni.manager.internal.registry;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.io.InputStream;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.Test;
import org.osgi.framework.Bundle;
import org.osgi.framework.ServiceReference;

import nni.api.config.SectionCheck;
import nni.api.experiment.PlatformView;
import nni.api.model.HyperParameters;
import nni.api.model.Placement;
import nni.api.model.TrialApplication;
import nni.api.model.TrialJob;
import nni.api.model.TrialStatus;
import nni.api.platform.PlatformException;
import nni.api.platform.ReportChannel;
import nni.api.platform.SessionContext;
import nni.api.platform.TrainingPlatform;
import nni.api.platform.TrainingSession;
import nni.api.platform.TransientPlatformException;

public class PlatformRegistryTest {

    private final PlatformRegistry registry = new PlatformRegistry();

    @Test
    public void anExperimentNamingAMissingPlatformIsToldWhichAreInstalled() {
        registry.addPlatform(reference("local", 1, 0), new FakePlatform());
        registry.addPlatform(reference("remote", 2, 0), new FakePlatform());
        PlatformException e = assertThrows(PlatformException.class, () -> registry.require("kubeflow"));
        assertEquals("platform 'kubeflow' is not installed; installed: local, remote. Drop its bundle into deploy/ to add it.",
                e.getMessage());
    }

    @Test
    public void theHigherRankedServiceAnswersAndTheOtherIsShadowedUntilItLeaves() {
        FakePlatform low = new FakePlatform();
        FakePlatform high = new FakePlatform();
        ServiceReference<TrainingPlatform> lowRef = reference("local", 1, 0);
        ServiceReference<TrainingPlatform> highRef = reference("local", 2, 10);
        registry.addPlatform(lowRef, low);
        registry.addPlatform(highRef, high);
        assertEquals(high, registry.find("local").orElseThrow());
        assertEquals(List.of("active", "shadowed"), registry.platforms().stream().map(PlatformView::state).toList());
        registry.unbindPlatform(highRef);
        assertEquals(low, registry.find("local").orElseThrow());
        assertEquals(1, registry.platforms().size());
    }

    /** Issue 28: binding, listing and naming platforms activates none; the first use activates the one used, once. */
    @Test
    public void aPlatformIsGotFromTheFrameworkOnlyWhenFirstUsed() throws Exception {
        ServiceReference<TrainingPlatform> localRef = reference("local", 1, 0);
        ServiceReference<TrainingPlatform> kubeflowRef = reference("kubeflow", 2, 0);
        ServiceReference<TrainingPlatform> brokenRef = reference("broken", 3, 0);
        FakePlatform local = new FakePlatform();
        List<String> got = new CopyOnWriteArrayList<>();
        registry.bindPlatform(localRef, objects(localRef, "local", local, got));
        registry.bindPlatform(kubeflowRef, objects(kubeflowRef, "kubeflow", new FakePlatform(), got));
        registry.bindPlatform(brokenRef, objects(brokenRef, "broken", null, got));

        assertEquals(List.of("broken", "kubeflow", "local"), registry.names());
        assertEquals(3, registry.platforms().size());
        assertEquals("nothing activated by binding and listing", List.of(), got);

        assertEquals(local, registry.require("local"));
        assertEquals(local, registry.find("local").orElseThrow());
        registry.open("local", new RecordingContext()).close();
        assertEquals("local, once", List.of("local"), got);

        PlatformException broken = assertThrows(PlatformException.class, () -> registry.require("broken"));
        assertTrue(broken.getMessage(), broken.getMessage().contains("platform 'broken'") && broken.getMessage().contains("could not be activated"));
        assertEquals(Optional.empty(), registry.find("broken"));
        assertEquals(List.of("local", "broken", "broken"), got);
    }

    /** @return the framework's side of a service as SCR hands it to a bind method; {@code null} service: its activation fails */
    private static org.osgi.service.component.ComponentServiceObjects<TrainingPlatform> objects(ServiceReference<TrainingPlatform> reference,
            String name, TrainingPlatform service, List<String> got) {
        return new org.osgi.service.component.ComponentServiceObjects<>() {
            @Override
            public TrainingPlatform getService() {
                got.add(name);
                return service;
            }

            @Override
            public void ungetService(TrainingPlatform platform) {
            }

            @Override
            public ServiceReference<TrainingPlatform> getServiceReference() {
                return reference;
            }
        };
    }

    @Test
    public void aServiceWithoutANameIsIgnored() {
        registry.addPlatform(reference(null, 1, 0), new FakePlatform());
        assertTrue(registry.platforms().isEmpty());
    }

    @Test
    public void sessionsOfAPlatformThatGoesAwayAreDetachedTheirTrialsLeftRunningAndTheExperimentTold() throws Exception {
        FakePlatform platform = new FakePlatform();
        ServiceReference<TrainingPlatform> ref = reference("fake", 1, 0);
        registry.addPlatform(ref, platform);
        RecordingContext context = new RecordingContext();
        TrainingSession session = registry.open("fake", context);
        session.submit(application("run01"));
        session.submit(application("done1"));
        platform.session.finish("done1");
        assertEquals(1, registry.platforms().get(0).sessions());

        registry.unbindPlatform(ref);

        assertTrue("the platform's session was detached", platform.session.detached);
        assertFalse("and not closed", platform.session.closed);
        // the platform reports to the experiment's context itself, which is told of the loss, then of
        // the detach, before the platform lets go (it forwards nothing after: MemberContextTest)
        assertEquals(List.of("lost: platform 'fake' is away: bundle ? ? stopped", "detached", "platform session detached"),
                context.told);
        assertEquals("a running trial is left running", TrialStatus.RUNNING, context.lastOf("run01").status());
        assertEquals(TrialStatus.SUCCEEDED, context.lastOf("done1").status());
        // a submit that raced the loss waits for the platform's return instead of failing
        assertThrows(TransientPlatformException.class, () -> session.submit(application("later")));
        session.close();
        assertFalse("closing after the loss does not reach the platform", platform.session.closed);
        assertTrue(registry.platforms().isEmpty());
    }

    @Test
    public void deactivatingTheRegistryDetachesEverySessionAndClosesNone() throws Exception {
        FakePlatform platform = new FakePlatform();
        registry.addPlatform(reference("fake", 1, 0), platform);
        RecordingContext context = new RecordingContext();
        registry.open("fake", context).submit(application("run01"));

        registry.deactivate();

        assertTrue(platform.session.detached);
        assertFalse(platform.session.closed);
        assertEquals(TrialStatus.RUNNING, context.lastOf("run01").status());
        assertEquals("the runtime stops: no experiment is told its platform is away", List.of("detached", "platform session detached"),
                context.told);
        assertEquals(0, registry.platforms().get(0).sessions());
    }

    @Test
    public void aPlatformThatComesBackIsUsableAtOnceAndArrivalIsAnnounced() throws Exception {
        List<String> arrived = new ArrayList<>();
        registry.onArrival(arrived::add);
        ServiceReference<TrainingPlatform> first = reference("fake", 1, 0);
        registry.addPlatform(first, new FakePlatform());
        registry.unbindPlatform(first);
        assertFalse(registry.find("fake").isPresent());
        FakePlatform again = new FakePlatform();
        registry.addPlatform(reference("fake", 2, 0), again);
        registry.open("fake", new RecordingContext()).submit(application("t0001"));
        assertEquals(List.of("fake", "fake"), arrived);
        assertTrue(again.session.trial("t0001").isPresent());
    }

    @Test
    public void closingASessionUntracksIt() throws Exception {
        FakePlatform platform = new FakePlatform();
        registry.addPlatform(reference("fake", 1, 0), platform);
        TrainingSession session = registry.open("fake", new RecordingContext());
        session.close();
        assertTrue(platform.session.closed);
        assertEquals(0, registry.platforms().get(0).sessions());
    }

    private static TrialApplication application(String id) {
        return TrialApplication.builder(id).hyperParameters(HyperParameters.of("{}", 0)).placement(Placement.none()).build();
    }

    @SuppressWarnings("unchecked")
    private static ServiceReference<TrainingPlatform> reference(String name, long id, int ranking) {
        return reference(name, id, ranking, null);
    }

    @SuppressWarnings("unchecked")
    private static ServiceReference<TrainingPlatform> reference(String name, long id, int ranking, Bundle bundle) {
        Hashtable<String, Object> properties = new Hashtable<>();
        if (name != null) {
            properties.put(TrainingPlatform.PLATFORM, name);
        }
        properties.put("service.id", id);
        properties.put("service.ranking", ranking);
        return new FakeReference(properties, bundle);
    }

    /** @return a bundle that is still active, as a platform's bundle is while SCR restarts its component */
    private static Bundle activeBundle(String symbolicName) {
        return activeBundle(symbolicName, Bundle.ACTIVE);
    }

    /** @return an active bundle in a framework whose system bundle is in {@code frameworkState} */
    private static Bundle activeBundle(String symbolicName, int frameworkState) {
        Bundle system = (Bundle) java.lang.reflect.Proxy.newProxyInstance(Bundle.class.getClassLoader(), new Class<?>[] {Bundle.class},
                (proxy, method, args) -> method.getName().equals("getState") ? frameworkState : null);
        org.osgi.framework.BundleContext context = (org.osgi.framework.BundleContext) java.lang.reflect.Proxy.newProxyInstance(
                Bundle.class.getClassLoader(), new Class<?>[] {org.osgi.framework.BundleContext.class},
                (proxy, method, args) -> method.getName().equals("getBundle") && args != null && args[0].equals(0L) ? system : null);
        return (Bundle) java.lang.reflect.Proxy.newProxyInstance(Bundle.class.getClassLoader(), new Class<?>[] {Bundle.class},
                (proxy, method, args) -> switch (method.getName()) {
                    case "getState" -> Bundle.ACTIVE;
                    case "getBundleContext" -> context;
                    case "getSymbolicName" -> symbolicName;
                    case "getVersion" -> org.osgi.framework.Version.parseVersion("1.0.0");
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "equals" -> proxy == args[0];
                    default -> null;
                });
    }

    /** Issue 17: SCR restarting a platform's component with a new configuration is not its bundle stopping. */
    @Test
    public void aReconfiguredPlatformIsNotSaidToHaveItsBundleStoppedAndAChecksOnlyOneRunsNoTrials() throws Exception {
        ServiceReference<TrainingPlatform> ref = reference("fake", 1, 0, activeBundle("nni.ts.fake"));
        FakePlatform platform = new FakePlatform();
        registry.addPlatform(ref, platform);
        assertTrue(registry.platforms().get(0).runsTrials());
        RecordingContext context = new RecordingContext();
        registry.open("fake", context);
        registry.unbindPlatform(ref);
        assertEquals(List.of("lost: platform 'fake' is away: its component (bundle nni.ts.fake) is restarting with a new configuration",
                "detached", "platform session detached"), context.told);

        ServiceReference<TrainingPlatform> checksOnly = reference("kubeflow", 2, 0);
        ((FakeReference) checksOnly).properties().put(PlatformRegistry.CHECKS_ONLY, "true");
        registry.addPlatform(checksOnly, new FakePlatform());
        assertFalse(registry.platforms().get(0).runsTrials());
    }

    /** A stopping runtime takes platform components down before their bundles: that is said, not a reconfiguration. */
    @Test
    public void aPlatformLeavingWithTheRuntimeIsSaidToLeaveForThat() throws Exception {
        ServiceReference<TrainingPlatform> ref = reference("fake", 1, 0, activeBundle("nni.ts.fake", Bundle.STOPPING));
        registry.addPlatform(ref, new FakePlatform());
        RecordingContext context = new RecordingContext();
        registry.open("fake", context);
        registry.unbindPlatform(ref);
        assertEquals("lost: platform 'fake' is away: the runtime is stopping", context.told.get(0));
    }

    /** Issue 30: how each open session's trials report comes from the session itself, not from the platform's name. */
    @Test
    public void eachOpenSessionSaysHowItsTrialsReportAndADetachedOneSaysNothing() throws Exception {
        FakePlatform platform = new FakePlatform();
        registry.addPlatform(reference("fake", 1, 0), platform);
        TrainingSession session = registry.open("fake", new RecordingContext());
        assertEquals(List.of(), registry.platforms().get(0).reports());

        platform.session.channel = ReportChannel.of(ReportChannel.FILES, "keeper.transport = auto: no address the workers reach");
        PlatformView info = registry.platforms().get(0);
        assertEquals(List.of(PlatformView.SessionReports.of("exp00001", ReportChannel.of("files",
                "keeper.transport = auto: no address the workers reach"))), info.reports());

        session.detach();
        assertEquals(0, registry.platforms().get(0).sessions());
        assertEquals(List.of(), registry.platforms().get(0).reports());
    }

    @Test
    public void aReportChannelIsHttpOrFiles() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ReportChannel.of("smoke", "why"));
        assertEquals("transport: expected http or files, got \"smoke\"", e.getMessage());
    }

    /** Orders as the framework does: higher ranking first, then lower service id. */
    @SuppressWarnings("rawtypes")
    private record FakeReference(Hashtable<String, Object> properties, Bundle bundle) implements ServiceReference {
        @Override
        public Object getProperty(String key) {
            return properties.get(key);
        }

        @Override
        public String[] getPropertyKeys() {
            return properties.keySet().toArray(String[]::new);
        }

        @Override
        public Bundle getBundle() {
            return bundle;
        }

        @Override
        public Bundle[] getUsingBundles() {
            return new Bundle[0];
        }

        @Override
        public boolean isAssignableTo(Bundle bundle, String className) {
            return true;
        }

        @Override
        public int compareTo(Object other) {
            FakeReference that = (FakeReference) other;
            int byRanking = Integer.compare((Integer) properties.get("service.ranking"), (Integer) that.properties.get("service.ranking"));
            return byRanking != 0 ? byRanking : Long.compare((Long) that.properties.get("service.id"), (Long) properties.get("service.id"));
        }

        @Override
        public Dictionary<String, Object> getProperties() {
            return properties;
        }

        @Override
        public Object adapt(Class type) {
            return null;
        }
    }

    private static final class FakePlatform implements TrainingPlatform {
        FakeSession session;

        @Override
        public SectionCheck checkSection(Map<String, Object> section, Path baseDirectory) {
            return new SectionCheck(section, List.of());
        }

        @Override
        public TrainingSession open(SessionContext context) {
            session = new FakeSession(context);
            return session;
        }
    }

    /** Keeps trials RUNNING until finished; close() cancels what runs, as the SPI asks. */
    private static final class FakeSession implements TrainingSession {
        final SessionContext context;
        private final Map<String, TrialJob> trials = new java.util.LinkedHashMap<>();
        boolean closed;
        boolean detached;
        volatile ReportChannel channel;

        FakeSession(SessionContext context) {
            this.context = context;
        }

        @Override
        public synchronized TrialJob submit(TrialApplication application) {
            TrialJob running = TrialJob.waiting(application, "", "").running(Instant.now());
            trials.put(running.id(), running);
            context.trialChanged(running);
            return running;
        }

        @Override
        public Optional<ReportChannel> reportChannel() {
            return Optional.ofNullable(channel);
        }

        synchronized void finish(String id) {
            TrialJob done = trials.get(id).ended(TrialStatus.SUCCEEDED, Instant.now(), "");
            trials.put(id, done);
            context.trialChanged(done);
        }

        @Override
        public synchronized void cancel(String trialId, boolean earlyStopped) {
            TrialJob trial = trials.get(trialId);
            if (trial != null && !trial.status().isTerminal()) {
                TrialJob cancelled = trial.ended(TrialStatus.cancelled(earlyStopped), Instant.now(), "");
                trials.put(trialId, cancelled);
                context.trialChanged(cancelled);
            }
        }

        @Override
        public synchronized Optional<TrialJob> trial(String trialId) {
            return Optional.ofNullable(trials.get(trialId));
        }

        @Override
        public synchronized List<TrialJob> trials() {
            return List.copyOf(trials.values());
        }

        @Override
        public Optional<InputStream> openTrialFile(String trialId, String name) {
            return Optional.empty();
        }

        @Override
        public synchronized void close() {
            closed = true;
            List.copyOf(trials.keySet()).forEach(id -> cancel(id, false));
        }

        @Override
        public synchronized void detach() {
            detached = true;
            if (context instanceof RecordingContext recording) {
                recording.told.add("platform session detached");
            }
        }
    }

    private static final class RecordingContext implements TrackedContext {
        final List<TrialJob> changes = new CopyOnWriteArrayList<>();
        /** What the registry told the context, and when the platform's session was detached, in order. */
        final List<String> told = new CopyOnWriteArrayList<>();

        @Override
        public void platformLost(String reason) {
            told.add("lost: " + reason);
        }

        @Override
        public void detached() {
            told.add("detached");
        }

        TrialJob lastOf(String id) {
            TrialJob last = null;
            for (TrialJob change : changes) {
                if (change.id().equals(id)) {
                    last = change;
                }
            }
            return last;
        }

        @Override
        public String experimentId() {
            return "exp00001";
        }

        @Override
        public Path experimentDirectory() {
            return Path.of("/nonexistent");
        }

        @Override
        public String platform() {
            return "fake";
        }

        @Override
        public Map<String, Object> section() {
            return Map.of();
        }

        @Override
        public void capacityChanged() {
        }

        @Override
        public void trialChanged(TrialJob trial) {
            changes.add(trial);
        }

        @Override
        public void metricReported(String trialId, String line) {
        }
    }
}
