package nni.manager.internal.registry;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;

import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.Constants;
import org.osgi.framework.FrameworkUtil;
import org.osgi.framework.ServiceReference;
import org.osgi.service.component.ComponentServiceObjects;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import nni.api.experiment.InstalledPlatforms;
import nni.api.experiment.PlatformView;
import nni.api.model.HyperParameters;
import nni.api.model.TrialApplication;
import nni.api.model.TrialJob;
import nni.api.platform.Capacity;
import nni.api.platform.PlatformException;
import nni.api.platform.ReportChannel;
import nni.api.platform.SessionView;
import nni.api.platform.TrainingPlatform;
import nni.api.platform.TrainingSession;
import nni.api.platform.TransientPlatformException;

/**
 * Every {@link TrainingPlatform} in the service registry, by name, and the sessions opened on them.
 *
 * <p>When a platform service goes away while it serves sessions (its bundle is stopped, updated or
 * uninstalled, or its component re-created), each session's context is told first (so the
 * experiment submits nothing more and keeps its live trials as they are), then the session is
 * {@linkplain TrainingSession#detach() detached} before the unbind returns, while the service
 * object is still usable: its trials keep running. A platform that comes back is usable by the next
 * {@link #open} at once; arrival listeners ({@link #onArrival}) hear of it and re-attach. When the
 * registry itself is deactivated (the runtime stops) it detaches whatever is still open.
 */
@Component(service = {PlatformRegistry.class, InstalledPlatforms.class}, immediate = true)
public class PlatformRegistry implements InstalledPlatforms {

    /** The service property of a platform that validates its section but cannot run trials yet. */
    public static final String CHECKS_ONLY = "nni.platform.checks.only";

    private static final Logger LOG = LoggerFactory.getLogger(PlatformRegistry.class);

    private final NamedServices<OnFirstUse> platforms =
            new NamedServices<>(TrainingPlatform.PLATFORM, UnaryOperator.identity());
    private final List<TrackedSession> sessions = new CopyOnWriteArrayList<>();
    private final List<Consumer<String>> arrivalListeners = new CopyOnWriteArrayList<>();

    /**
     * Binds a platform without getting its service object: the platform's component is activated
     * when an experiment first uses it ({@link #find}, {@link #open}), so a runtime starts without
     * activating the platforms (and loading the client libraries) no experiment uses.
     */
    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    void bindPlatform(ServiceReference<TrainingPlatform> reference, ComponentServiceObjects<TrainingPlatform> objects) {
        add(reference, new OnFirstUse(reference, () -> {
            try {
                return objects.getService();
            } catch (IllegalStateException unbound) {
                return null;
            }
        }));
    }

    /** Binds a platform object at hand (tests without a framework). */
    void addPlatform(ServiceReference<TrainingPlatform> reference, TrainingPlatform platform) {
        add(reference, new OnFirstUse(reference, () -> platform));
    }

    private void add(ServiceReference<TrainingPlatform> reference, OnFirstUse platform) {
        platforms.add(reference, platform).ifPresentOrElse(entry -> {
            LOG.info("platform '{}' bound from {} {}", entry.name(), entry.bundleName(), entry.bundleVersion());
            if (runtimeStopping()) {
                // re-registered while the framework stops (a service its component needs left first, as
                // nni.keeper's does for the local platform): experiments are being detached, and taking
                // their trials back now would be undone a moment later
                LOG.debug("platform '{}' not offered to experiments: the runtime is stopping", entry.name());
                return;
            }
            arrivalListeners.forEach(listener -> listener.accept(entry.name()));
        }, () -> LOG.warn("ignoring a TrainingPlatform service without the '{}' property (service {})",
                TrainingPlatform.PLATFORM, reference.getProperty("service.id")));
    }

    /** @return whether the OSGi framework is stopping (false without a framework: unit tests) */
    private static boolean runtimeStopping() {
        Bundle own = FrameworkUtil.getBundle(PlatformRegistry.class);
        BundleContext context = own == null ? null : own.getBundleContext();
        Bundle framework = context == null ? null : context.getBundle(0);
        return framework != null && framework.getState() == Bundle.STOPPING;
    }

    /** A bound platform's service object, got from the framework once, when first needed. */
    private static final class OnFirstUse {
        private final ServiceReference<?> reference;
        private final Supplier<TrainingPlatform> getter;
        private TrainingPlatform platform;

        OnFirstUse(ServiceReference<?> reference, Supplier<TrainingPlatform> getter) {
            this.reference = reference;
            this.getter = getter;
        }

        /** @return the platform, or null when its component cannot be activated (SCR has logged why) */
        synchronized TrainingPlatform get() {
            if (platform == null) {
                platform = getter.get();
                if (platform == null) {
                    LOG.warn("platform '{}' (service {}) could not be activated; its component's error is in the log above",
                            reference.getProperty(TrainingPlatform.PLATFORM), reference.getProperty("service.id"));
                }
            }
            return platform;
        }
    }

    void unbindPlatform(ServiceReference<TrainingPlatform> reference) {
        platforms.remove(reference).ifPresent(entry -> {
            LOG.info("platform '{}' unbound ({} {})", entry.name(), entry.bundleName(), entry.bundleVersion());
            for (TrackedSession session : sessions) {
                if (session.reference.equals(reference)) {
                    session.lose("platform '" + entry.name() + "' is away: " + why(entry));
                }
            }
        });
    }

    /**
     * @return why a platform service left: the runtime stops, its bundle stopped, or (bundle still
     *         active) its component is reconfigured. A stopping framework takes components down
     *         while their bundles are still active (SCR goes first), which is no reconfiguration.
     */
    private static String why(NamedServices.Entry<OnFirstUse> entry) {
        Bundle bundle = entry.reference().getBundle();
        boolean active = bundle != null && bundle.getState() == Bundle.ACTIVE;
        if (active && runtimeStopping(bundle)) {
            return "the runtime is stopping";
        }
        return active ? "its component (bundle " + entry.bundleName() + ") is restarting with a new configuration"
                : "bundle " + entry.bundleName() + " " + entry.bundleVersion() + " stopped";
    }

    private static boolean runtimeStopping(Bundle bundle) {
        BundleContext context = bundle.getBundleContext();
        Bundle system = context == null ? null : context.getBundle(Constants.SYSTEM_BUNDLE_ID);
        return system != null && system.getState() == Bundle.STOPPING;
    }

    /** The runtime stops (or the manager is updated): every session still open is detached, none closed. */
    @Deactivate
    void deactivate() {
        for (TrackedSession session : sessions) {
            LOG.info("detaching the {} session of experiment {}; its trials keep running", session.context.platform(),
                    session.context.experimentId());
            session.detach();
        }
        sessions.clear();
        arrivalListeners.clear();
    }

    /** Read from the platforms' service references: listing activates none. */
    @Override
    public List<PlatformView> platforms() {
        return Stream.concat(platforms.active().stream().map(e -> view(e, PlatformView.ACTIVE)),
                platforms.shadowed().stream().map(e -> view(e, PlatformView.SHADOWED))).toList();
    }

    /** @return whether this registry has bound the platform service registered with this {@code service.id} */
    public boolean binds(long serviceId) {
        return platforms.contains(serviceId);
    }

    /** @return the names experiments can use now */
    public List<String> names() {
        return platforms.names();
    }

    /** @return the platform answering to {@code name}, activated now if it was not; empty when none can answer */
    public Optional<TrainingPlatform> find(String name) {
        return platforms.get(name).map(entry -> entry.service().get());
    }

    /**
     * @return the platform answering to {@code name}, activated now if it was not
     * @throws PlatformException naming the installed platforms, when none answers, or saying that the
     *                           platform's component could not be activated
     */
    public TrainingPlatform require(String name) throws PlatformException {
        return active(platforms.get(name).orElseThrow(() -> notInstalled(name)));
    }

    private static TrainingPlatform active(NamedServices.Entry<OnFirstUse> entry) throws PlatformException {
        TrainingPlatform platform = entry.service().get();
        if (platform == null) {
            throw new PlatformException("platform '" + entry.name() + "' (bundle " + entry.bundleName() + " " + entry.bundleVersion()
                    + ") is installed but its component could not be activated: see the runtime's log for its error");
        }
        return platform;
    }

    /** @return the exception for an experiment that names a platform that is not installed */
    public PlatformException notInstalled(String name) {
        List<String> installed = names();
        return new PlatformException("platform '" + name + "' is not installed; installed: "
                + (installed.isEmpty() ? "none" : String.join(", ", installed))
                + ". Drop its bundle into deploy/ to add it.");
    }

    /**
     * Opens a session on the named platform and tracks it until it is closed or the platform leaves;
     * the platform reports to {@code context} itself, which hears of the loss and of the detach.
     *
     * @return the session; closing it closes the platform's session
     */
    public TrainingSession open(String name, TrackedContext context) throws PlatformException {
        NamedServices.Entry<OnFirstUse> entry = platforms.get(name).orElseThrow(() -> notInstalled(name));
        TrainingPlatform platform = active(entry);
        TrackedSession tracked = new TrackedSession(entry.reference(), context);
        tracked.session = platform.open(context);
        sessions.add(tracked);
        return tracked;
    }

    /** Registers a listener told the name of every platform that arrives. */
    public void onArrival(Consumer<String> listener) {
        arrivalListeners.add(listener);
    }

    public void removeArrivalListener(Consumer<String> listener) {
        arrivalListeners.remove(listener);
    }

    private PlatformView view(NamedServices.Entry<OnFirstUse> entry, String state) {
        List<TrackedSession> open = sessions.stream().filter(s -> s.reference.equals(entry.reference())).toList();
        boolean checksOnly = Boolean.parseBoolean(String.valueOf(entry.reference().getProperty(CHECKS_ONLY)));
        List<PlatformView.SessionReports> reports = new ArrayList<>();
        for (TrackedSession session : open) {
            session.reportChannel().ifPresent(channel -> reports.add(PlatformView.SessionReports.of(
                    session.context.experimentId(), channel)));
        }
        return PlatformView.builder(entry.name()).bundle(entry.bundleName()).version(entry.bundleVersion()).state(state)
                .sessions(open.size()).runsTrials(!checksOnly).reports(reports).build();
    }

    /**
     * A platform session as the experiment sees it: the one place that knows whether the session is
     * still live. Once detached (or lost) it hands the platform no more work, and its context, told
     * first, forwards none of the platform's reports.
     */
    private final class TrackedSession implements TrainingSession {
        final ServiceReference<?> reference;
        final TrackedContext context;
        volatile TrainingSession session;
        private volatile String lostReason;
        private volatile boolean detached;

        TrackedSession(ServiceReference<?> reference, TrackedContext context) {
            this.reference = reference;
            this.context = context;
        }

        void lose(String reason) {
            lostReason = reason;
            LOG.warn("{}: detaching the session of experiment {}; its trials keep running", reason, context.experimentId());
            // first, so that the experiment stops submitting before the session lets go
            context.platformLost(reason);
            detach();
        }

        @Override
        public TrialJob submit(TrialApplication application) throws PlatformException {
            return live().submit(application);
        }

        @Override
        public void cancel(String trialId, boolean earlyStopped) {
            if (!detached) {
                session.cancel(trialId, earlyStopped);
            }
        }

        @Override
        public void sendParameters(String trialId, HyperParameters parameters) throws PlatformException {
            live().sendParameters(trialId, parameters);
        }

        @Override
        public Optional<TrialJob> reattach(TrialJob trial) {
            return detached ? Optional.empty() : session.reattach(trial);
        }

        @Override
        public Optional<TrialJob> trial(String trialId) {
            return session.trial(trialId);
        }

        @Override
        public List<TrialJob> trials() {
            return session.trials();
        }

        @Override
        public Optional<InputStream> openTrialFile(String trialId, String name) throws IOException {
            return session.openTrialFile(trialId, name);
        }

        @Override
        public Optional<ReportChannel> reportChannel() {
            TrainingSession platformSession = session;
            if (detached || platformSession == null) {
                return Optional.empty();
            }
            try {
                return platformSession.reportChannel();
            } catch (RuntimeException e) {
                LOG.warn("the {} session of experiment {} could not say how its trials report", context.platform(),
                        context.experimentId(), e);
                return Optional.empty();
            }
        }

        @Override
        public Capacity capacity() {
            return detached ? Capacity.freeTrialSlots(0) : session.capacity();
        }

        @Override
        public Optional<SessionView> view() {
            return detached ? Optional.empty() : session.view();
        }

        @Override
        public void close() {
            if (!detached) {
                sessions.remove(this);
                try {
                    session.close();
                } catch (RuntimeException e) {
                    LOG.warn("closing the {} session of experiment {} failed", context.platform(), context.experimentId(), e);
                }
            }
        }

        @Override
        public synchronized void detach() {
            if (detached) {
                return;
            }
            detached = true;
            context.detached();
            sessions.remove(this);
            try {
                session.detach();
            } catch (RuntimeException e) {
                LOG.warn("detaching the {} session of experiment {} failed", context.platform(), context.experimentId(), e);
            }
        }

        private TrainingSession live() throws PlatformException {
            if (detached) {
                // the experiment has not heard of the loss yet: the trial waits for the platform's return
                throw new TransientPlatformException(lostReason != null ? lostReason
                        : "the " + context.platform() + " session of experiment " + context.experimentId() + " is detached");
            }
            return session;
        }
    }
}
