package nni.keeper.internal.reuse;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicInteger;

import org.osgi.framework.BundleContext;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.framework.ServiceReference;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import nni.api.environment.EnvironmentLauncher;
import nni.api.environment.KeeperChoice;
import nni.api.environment.KeeperOptions;
import nni.api.environment.KeeperRuntime;
import nni.api.environment.KeeperSessions;
import nni.api.platform.PlatformException;
import nni.api.platform.SessionContext;
import nni.api.platform.TrainingSession;
import nni.keeper.internal.pack.CodeArchiver;
import nni.keeper.internal.report.FileChannels;
import nni.keeper.internal.report.KeeperLinkFile;
import nni.keeper.internal.report.KeeperLinks;

/**
 * Provides {@link KeeperSessions}: the keepers embedded in this bundle under {@code keeper/} (the
 * jar built by the {@code nni.trialkeeper} module and its Python keeper,
 * {@code nni.trialkeeper/src/main/python/nni-trialkeeper.py}), written to the bundle's data area
 * when first asked for, and sessions that run trials through them.
 */
@Component(service = KeeperSessions.class)
public class KeeperSessionsProvider implements KeeperSessions {

    static final String KEEPER_FOLDER = "keeper/";
    private static final String HTTP_HOST = "org.apache.felix.http.host";
    /** The platform whose keepers run on this machine. */
    private static final String LOCAL = "local";
    private static final Logger LOG = LoggerFactory.getLogger(KeeperSessionsProvider.class);

    private final BundleContext bundleContext;
    private final KeeperLinks links;
    private final FileChannels channels;
    private final Map<KeeperRuntime, Path> keeperFiles = new EnumMap<>(KeeperRuntime.class);
    /** When the sessions' timed tasks are due; this component's, ended when it is deactivated. */
    private final ScheduledThreadPoolExecutor clock;
    /** What runs the sessions' timed tasks (each session's one at a time); ended with the component. */
    private final ExecutorService workers;
    private final Set<KeeperSession> sessions = ConcurrentHashMap.newKeySet();

    @Activate
    public KeeperSessionsProvider(BundleContext bundleContext, @Reference KeeperLinks links, @Reference FileChannels channels) {
        this.bundleContext = bundleContext;
        this.links = links;
        this.channels = channels;
        this.clock = new ScheduledThreadPoolExecutor(1, r -> daemon(r, "nni-keepers-clock"));
        clock.setRemoveOnCancelPolicy(true);
        AtomicInteger count = new AtomicInteger();
        this.workers = Executors.newCachedThreadPool(r -> daemon(r, "nni-keepers-" + count.incrementAndGet()));
    }

    private static Thread daemon(Runnable work, String name) {
        Thread thread = new Thread(work, name);
        thread.setDaemon(true);
        return thread;
    }

    /**
     * Detaches the sessions still open (their keepers and trials keep running; the platform sessions
     * around them are detached by the platform registry already when the runtime stops) and ends
     * the timers' threads.
     */
    @Deactivate
    void deactivate() {
        for (KeeperSession session : sessions) {
            session.detach();
        }
        sessions.clear();
        clock.shutdownNow();
        workers.shutdownNow();
    }

    @Override
    public synchronized Path keeperFile(KeeperRuntime runtime) {
        Path known = keeperFiles.get(runtime);
        if (known != null) {
            return known;
        }
        URL resource = bundleContext.getBundle().getEntry(KEEPER_FOLDER + runtime.fileName());
        if (resource == null) {
            throw new IllegalStateException(runtime == KeeperRuntime.PYTHON ? "this build has no Python keeper"
                    : "nni.manager was built without " + KEEPER_FOLDER + runtime.fileName());
        }
        Path target = bundleContext.getDataFile(runtime.fileName()).toPath();
        try (InputStream in = resource.openStream()) {
            Path temporary = target.resolveSibling(runtime.fileName() + ".tmp");
            Files.copy(in, temporary, StandardCopyOption.REPLACE_EXISTING);
            Files.move(temporary, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the keeper to " + target, e);
        }
        keeperFiles.put(runtime, target);
        return target;
    }

    /** @return the keepers this build ships that {@code choice} allows, in order of preference */
    private Map<KeeperRuntime, Path> offered(KeeperChoice choice) throws PlatformException {
        Map<KeeperRuntime, Path> offered = new EnumMap<>(KeeperRuntime.class);
        List<String> missing = new ArrayList<>();
        for (KeeperRuntime runtime : KeeperRuntime.values()) {
            if (choice.allows(runtime)) {
                try {
                    offered.put(runtime, keeperFile(runtime));
                } catch (IllegalStateException e) {
                    missing.add(e.getMessage());
                }
            }
        }
        if (offered.isEmpty()) {
            throw new PlatformException("keeper = " + choice + ": " + String.join("; ", missing));
        }
        return offered;
    }

    @Override
    public TrainingSession open(SessionContext context, EnvironmentLauncher launcher, KeeperOptions options)
            throws PlatformException {
        Map<KeeperRuntime, Path> keepers = offered(options.keeper()); // before packing: fails when the keeper asked for is missing
        String managerUrl = managerUrl(context, options);
        Object codeSetting = context.section().get("trialCodeDirectory");
        Path archive = context.experimentDirectory().resolve("environments").resolve("nni-code.tar.gz");
        // a section without trialCodeDirectory has its code where the trials run (AdaptDL: in the image)
        Path codeDirectory = codeSetting == null ? archive.resolveSibling("no-code")
                : Path.of(codeSetting.toString()).toAbsolutePath().normalize();
        try {
            if (codeSetting == null) {
                Files.createDirectories(codeDirectory);
            }
        } catch (IOException e) {
            throw new PlatformException("cannot create " + codeDirectory + ": " + e.getMessage(), e);
        }
        if (!Files.isDirectory(codeDirectory)) {
            throw new PlatformException("trialCodeDirectory " + codeDirectory + " is not a directory");
        }
        try {
            // the experiments' folder may lie inside the code directory (NNI's default when both are ~): never packed
            new CodeArchiver().pack(codeDirectory, archive, context.experimentDirectory().getParent());
        } catch (CodeArchiver.TooLargeException e) {
            throw new PlatformException(e.getMessage(), e);
        } catch (IOException e) {
            throw new PlatformException("cannot pack trialCodeDirectory " + codeDirectory + ": " + e.getMessage(), e);
        }
        KeeperSession session = new KeeperSession(context, launcher, options, links, channels, keepers, archive, managerUrl,
                KeeperLinkFile.open(context.experimentDirectory(), managerUrl), new SessionTimer(clock, workers, "experiment " + context.experimentId()), sessions::remove);
        sessions.add(session);
        return session;
    }

    /** @return the URL the session's keepers call the manager back at: decided by {@link ManagerAddress} */
    private String managerUrl(SessionContext context, KeeperOptions options) throws PlatformException {
        ServiceReference<?>[] refs;
        try {
            refs = bundleContext.getServiceReferences((String) null, "(osgi.http.endpoint=*)");
        } catch (InvalidSyntaxException e) {
            throw new IllegalStateException(e);
        }
        List<String> endpoints = new ArrayList<>();
        Object published = refs == null || refs.length == 0 ? null : refs[0].getProperty("osgi.http.endpoint");
        if (published instanceof String[] all) {
            endpoints.addAll(List.of(all));
        } else if (published instanceof java.util.Collection<?> all) {
            all.forEach(endpoint -> endpoints.add(String.valueOf(endpoint)));
        } else if (published != null) {
            endpoints.add(String.valueOf(published));
        }
        ManagerAddress.Decision decision = ManagerAddress.decide(options.managerHost(), endpoints,
                ManagerAddress.bindsAll(bundleContext.getProperty(HTTP_HOST)), LOCAL.equals(options.platform()),
                ManagerAddress::outwardAddress);
        LOG.info("experiment {}: {} keepers call the manager back at {} ({})", context.experimentId(), options.platform(),
                decision.url(), decision.why());
        if (!LOCAL.equals(options.platform()) && !options.transport().files() && ManagerAddress.loopback(decision.url())) {
            LOG.warn("experiment {}: {} keepers are told to call the manager back at {}, a loopback address: only keepers on this"
                    + " machine reach it (bind the port beyond loopback with --host and set nniManagerIp)", context.experimentId(),
                    options.platform(), decision.url());
        }
        return decision.url();
    }
}
