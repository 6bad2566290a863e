package nni.manager.internal.registry;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;

import org.osgi.framework.ServiceReference;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import nni.api.model.HyperParameters;
import nni.api.model.TrialApplication;
import nni.api.model.TrialJob;
import nni.api.model.TrialStatus;
import nni.api.platform.PlatformException;
import nni.api.platform.SessionContext;
import nni.api.platform.TrainingPlatform;
import nni.api.platform.TrainingSession;

/**
 * Every {@link TrainingPlatform} in the service registry, by name, and the sessions opened on them.
 *
 * <p>When a platform service goes away while it serves sessions, the experiment's loss listener is
 * told first (so it submits nothing more), then each session is closed before the unbind returns
 * (the service object is still usable then). Trials the session ends while closing, and trials it
 * still holds afterwards, are reported to the experiment as {@code SYS_CANCELED} with the message
 * "platform 'x' went away", after any metric they had left. A platform that comes back is usable
 * by the next {@link #open} at once; arrival listeners ({@link #onArrival}) hear of it.
 */
@Component(service = PlatformRegistry.class, immediate = true)
public class PlatformRegistry {

    private static final Logger LOG = LoggerFactory.getLogger(PlatformRegistry.class);

    private final NamedServices<TrainingPlatform> platforms =
            new NamedServices<>(TrainingPlatform.PLATFORM, UnaryOperator.identity());
    private final List<TrackedSession> sessions = new CopyOnWriteArrayList<>();
    private final List<Consumer<String>> arrivalListeners = new CopyOnWriteArrayList<>();

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    void bindPlatform(ServiceReference<TrainingPlatform> reference, TrainingPlatform platform) {
        platforms.add(reference, platform).ifPresentOrElse(entry -> {
            LOG.info("platform '{}' bound from {} {}", entry.name(), entry.bundleName(), entry.bundleVersion());
            arrivalListeners.forEach(listener -> listener.accept(entry.name()));
        }, () -> LOG.warn("ignoring a TrainingPlatform service without the '{}' property (service {})",
                TrainingPlatform.PLATFORM, reference.getProperty("service.id")));
    }

    void unbindPlatform(ServiceReference<TrainingPlatform> reference) {
        platforms.remove(reference).ifPresent(entry -> {
            LOG.info("platform '{}' unbound ({} {})", entry.name(), entry.bundleName(), entry.bundleVersion());
            for (TrackedSession session : sessions) {
                if (session.reference.equals(reference)) {
                    session.lose("platform '" + entry.name() + "' went away (bundle " + entry.bundleName() + " "
                            + entry.bundleVersion() + " stopped)");
                }
            }
        });
    }

    /** @return the installed platforms, active ones first in name order, then shadowed ones */
    public List<PlatformInfo> platforms() {
        return Stream.concat(platforms.active().stream().map(e -> info(e, "active")),
                platforms.shadowed().stream().map(e -> info(e, "shadowed"))).toList();
    }

    /** @return whether this registry has bound the platform service behind {@code reference} */
    public boolean binds(ServiceReference<?> reference) {
        return platforms.contains(reference);
    }

    /** @return the names experiments can use now */
    public List<String> names() {
        return platforms.names();
    }

    /** @return the platform answering to {@code name} */
    public Optional<TrainingPlatform> find(String name) {
        return platforms.get(name).map(NamedServices.Entry::service);
    }

    /**
     * @return the platform answering to {@code name}
     * @throws PlatformException naming the installed platforms, when none answers
     */
    public TrainingPlatform require(String name) throws PlatformException {
        return find(name).orElseThrow(() -> notInstalled(name));
    }

    /** @return the exception for an experiment that names a platform that is not installed */
    public PlatformException notInstalled(String name) {
        List<String> installed = names();
        return new PlatformException("platform '" + name + "' is not installed; installed: "
                + (installed.isEmpty() ? "none" : String.join(", ", installed))
                + ". Drop its bundle into deploy/ to add it.");
    }

    /**
     * Opens a session on the named platform and tracks it until it is closed or the platform leaves.
     *
     * @param onLost told (once, with the reason) when the platform goes away under the session
     * @return the session; closing it closes the platform's session
     */
    public TrainingSession open(String name, SessionContext context, Consumer<String> onLost) throws PlatformException {
        NamedServices.Entry<TrainingPlatform> entry = platforms.get(name).orElseThrow(() -> notInstalled(name));
        TrackedSession tracked = new TrackedSession(entry.reference(), context, onLost);
        tracked.session = entry.service().open(tracked);
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

    private PlatformInfo info(NamedServices.Entry<TrainingPlatform> entry, String state) {
        int count = (int) sessions.stream().filter(s -> s.reference.equals(entry.reference())).count();
        return new PlatformInfo(entry.name(), entry.bundleName(), entry.bundleVersion(), state, count);
    }

    /**
     * A platform session as the experiment sees it, and the context as the platform sees it: the
     * one place where a lost platform turns into SYS_CANCELED trials.
     */
    private final class TrackedSession implements TrainingSession, SessionContext {
        final ServiceReference<?> reference;
        private final SessionContext context;
        private final Consumer<String> onLost;
        volatile TrainingSession session;
        private volatile String lostReason;

        TrackedSession(ServiceReference<?> reference, SessionContext context, Consumer<String> onLost) {
            this.reference = reference;
            this.context = context;
            this.onLost = onLost;
        }

        void lose(String reason) {
            lostReason = reason;
            sessions.remove(this);
            LOG.warn("{}: closing the session of experiment {}", reason, context.experimentId());
            // first, so that the experiment stops submitting before the trials below free its slots
            onLost.accept(reason);
            List<TrialJob> left = new ArrayList<>();
            try {
                session.close();
                left.addAll(session.trials());
            } catch (RuntimeException e) {
                LOG.warn("closing the session of experiment {} failed", context.experimentId(), e);
            }
            for (TrialJob trial : left) {
                if (!trial.status().isTerminal()) {
                    context.trialChanged(trial.ended(TrialStatus.SYS_CANCELED, Instant.now(), reason));
                }
            }
        }

        // --- SessionContext, as the platform sees it
        @Override
        public String experimentId() {
            return context.experimentId();
        }

        @Override
        public Path experimentDirectory() {
            return context.experimentDirectory();
        }

        @Override
        public Map<String, Object> section() {
            return context.section();
        }

        @Override
        public void trialChanged(TrialJob trial) {
            String reason = lostReason;
            if (reason != null && trial.status().isTerminal() && trial.status() != TrialStatus.SUCCEEDED
                    && trial.status() != TrialStatus.FAILED) {
                trial = trial.ended(TrialStatus.SYS_CANCELED, trial.endTime() == null ? Instant.now() : trial.endTime(), reason);
            }
            context.trialChanged(trial);
        }

        @Override
        public void metricReported(String trialId, String line) {
            context.metricReported(trialId, line);
        }

        @Override
        public void metricsReported(String trialId, java.util.List<String> lines) {
            context.metricsReported(trialId, lines);
        }

        // --- TrainingSession, as the experiment sees it
        @Override
        public TrialJob submit(TrialApplication application) throws PlatformException {
            return live().submit(application);
        }

        @Override
        public void cancel(String trialId, boolean earlyStopped) {
            if (lostReason == null) {
                session.cancel(trialId, earlyStopped);
            }
        }

        @Override
        public void sendParameters(String trialId, HyperParameters parameters) throws PlatformException {
            live().sendParameters(trialId, parameters);
        }

        @Override
        public Optional<TrialJob> reattach(TrialJob trial) {
            return lostReason == null ? session.reattach(trial) : Optional.empty();
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
        public void close() {
            if (lostReason == null) {
                sessions.remove(this);
                session.close();
            }
        }

        private TrainingSession live() throws PlatformException {
            String reason = lostReason;
            if (reason != null) {
                throw new PlatformException(reason);
            }
            return session;
        }
    }
}
