package nni.shell.internal.launch;

import java.io.IOException;
import java.net.URI;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;

import org.apache.felix.service.command.CommandSession;
import org.apache.felix.service.command.CommandSessionListener;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.BundleEvent;
import org.osgi.framework.BundleListener;
import org.osgi.framework.Constants;
import org.osgi.framework.FrameworkEvent;
import org.osgi.framework.FrameworkListener;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.framework.ServiceEvent;
import org.osgi.framework.ServiceListener;
import org.osgi.framework.ServiceReference;
import org.osgi.framework.ServiceRegistration;
import org.osgi.framework.startlevel.BundleStartLevel;
import org.osgi.framework.startlevel.FrameworkStartLevel;
import org.osgi.framework.wiring.BundleRevision;
import org.osgi.framework.wiring.FrameworkWiring;
import org.osgi.service.cm.Configuration;
import org.osgi.service.cm.ConfigurationAdmin;
import org.osgi.service.cm.ConfigurationListener;
import org.osgi.service.component.runtime.ServiceComponentRuntime;
import org.osgi.service.component.runtime.dto.ComponentConfigurationDTO;
import org.osgi.service.component.runtime.dto.ComponentDescriptionDTO;
import org.osgi.service.component.runtime.dto.UnsatisfiedReferenceDTO;
import org.osgi.util.tracker.ServiceTracker;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import nni.api.platform.TrainingPlatform;
import nni.api.tuner.AssessorProvider;
import nni.api.tuner.DispatcherProvider;
import nni.api.tuner.TunerProvider;
import nni.api.experiment.ConfigurationRefusals;
import nni.api.experiment.ProviderIntake;

/**
 * When a launch command may start: every bundle of the runtime has registered what it provides.
 * Concretely, all of these hold at once:
 * <ol>
 * <li>the framework reached its beginning start level;</li>
 * <li>every {@code *.cfg} file in FileInstall's folders is a configuration in Config Admin, and the
 *     components it configures run with it;</li>
 * <li>every jar in FileInstall's folders ({@code deploy/}) is an installed bundle that has started;</li>
 * <li>no bundle is starting, and none that is to start at this start level is still waiting to;</li>
 * <li>SCR has processed every active bundle that declares components, and no component of ours
 *     ({@code nni.*} bundles) or providing a platform, tuner or assessor is still waiting for a
 *     reference;</li>
 * <li>every registered platform, tuner and assessor service is bound by the manager's registries;</li>
 * <li>when the Gogo shell is there, it has run its start command, so that it does not run it while
 *     the framework stops after a quick command.</li>
 * </ol>
 * The condition is evaluated on every bundle, service, framework and configuration event, and,
 * because SCR activates a component without services silently, at least every 100 ms. There is no
 * quiet window: a loaded machine only makes the condition hold later.
 *
 * <p>What can never hold ends the wait at once, with the reasons ({@link #failures()}): a jar in
 * {@code deploy/} whose bundle cannot resolve, and a configuration file with a value
 * the runtime refused ({@link ConfigurationRefusals}). (The runtime's own bundles are the launcher's to check: it
 * calls the command only once the framework tried them all.)
 */
final class RuntimeReadiness implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(RuntimeReadiness.class);
    /** The property FileInstall puts on each configuration it made from a file: that file's URL. */
    private static final String FILEINSTALL_FILENAME = "felix.fileinstall.filename";
    private static final String GOGO_SHELL = "org.apache.felix.gogo.shell";
    private static final Set<String> PROVIDED = Set.of(TrainingPlatform.class.getName(), TunerProvider.class.getName(),
            AssessorProvider.class.getName(), DispatcherProvider.class.getName());
    private static final long RECHECK_MILLIS = 100;

    private final BundleContext context;
    private final ProviderIntake providers;
    private final ConfigurationRefusals configurationCheck;
    private final Object changed = new Object();
    private final AtomicBoolean shellStarted = new AtomicBoolean();
    private final ServiceTracker<ServiceComponentRuntime, ServiceComponentRuntime> scr;
    private final ServiceTracker<ConfigurationAdmin, ConfigurationAdmin> configurations;
    private final List<ServiceRegistration<?>> registrations = new ArrayList<>();
    private final ServiceListener serviceListener = this::changed;
    private final BundleListener bundleListener = this::changed;
    private final FrameworkListener frameworkListener = this::changed;

    /** Starts listening at once: the shell's start command may run before {@link #await} is called. */
    RuntimeReadiness(BundleContext context, ProviderIntake providers, ConfigurationRefusals configurationCheck) {
        this.context = context;
        this.providers = providers;
        this.configurationCheck = configurationCheck;
        context.addServiceListener(serviceListener);
        context.addBundleListener(bundleListener);
        context.addFrameworkListener(frameworkListener);
        registrations.add(context.registerService(ConfigurationListener.class, event -> changed(event), null));
        registrations.add(context.registerService(CommandSessionListener.class, new ShellStart(), null));
        if (active(GOGO_SHELL)) {
            // started before us (it starts at a later start level than nni.shell): its start command cannot be heard
            shellStarted.set(true);
        }
        scr = new ServiceTracker<>(context, ServiceComponentRuntime.class, null);
        scr.open();
        configurations = new ServiceTracker<>(context, ConfigurationAdmin.class, null);
        configurations.open();
    }

    /**
     * Waits until the runtime is ready, cannot become ready, or {@code seconds} passed (then logs
     * what it still waited for).
     *
     * @return why the runtime cannot become ready, one line each; empty when it is ready or the time is up
     */
    List<String> await(long seconds) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        synchronized (changed) {
            String pending;
            String logged = null;
            while (true) {
                List<String> failures = failures();
                if (!failures.isEmpty()) {
                    LOG.debug("cannot become ready: {}", failures);
                    return failures;
                }
                pending = pending();
                if (pending == null) {
                    // a refusal can come while pending() runs, and the component then takes the file's other
                    // values: ready only if nothing was refused by the time every file was taken
                    failures = failures();
                    if (!failures.isEmpty()) {
                        LOG.debug("cannot become ready: {}", failures);
                        return failures;
                    }
                    break;
                }
                if (!pending.equals(logged)) {
                    LOG.debug("not ready: {}", pending);
                    logged = pending;
                }
                long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                if (left <= 0) {
                    LOG.warn("the runtime is not ready after {} s ({}); running the command anyway", seconds, pending);
                    return List.of();
                }
                changed.wait(Math.min(left, RECHECK_MILLIS));
            }
        }
        LOG.debug("ready");
        return List.of();
    }

    /**
     * @return what keeps the runtime from ever being ready as its files say: each refused
     *         configuration file with its keys and what they accept, each {@code deploy/} jar whose
     *         bundle cannot resolve with what it lacks
     */
    List<String> failures() {
        String watched = context.getProperty("felix.fileinstall.dir");
        List<String> failures = new ArrayList<>();
        Set<Path> configurationFiles = files(watched, "*.{cfg,config}");
        configurationCheck.refusals().forEach((file, problems) -> {
            if (configurationFiles.contains(file.toAbsolutePath().normalize())) {
                failures.add(file + ": " + problems);
            }
        });
        Set<Path> jars = files(watched, "*.jar");
        List<Bundle> unresolved = new ArrayList<>();
        for (Path jar : jars) {
            Bundle bundle = bundleAt(jar);
            if (bundle == null) {
                return failures; // FileInstall has not installed them all: one may need another
            }
            if (bundle.getState() == Bundle.INSTALLED && !fragment(bundle)) {
                unresolved.add(bundle);
            }
            String refused = startRefusal(bundle);
            if (refused != null) {
                failures.add(jar + ": bundle " + bundle.getSymbolicName() + " " + bundle.getVersion() + " cannot start: " + refused);
            }
        }
        FrameworkWiring wiring = context.getBundle(Constants.SYSTEM_BUNDLE_LOCATION).adapt(FrameworkWiring.class);
        for (Bundle bundle : unresolved) {
            // what FileInstall does before it starts a bundle; a bundle that resolves now is simply started sooner
            if (bundle.getState() == Bundle.INSTALLED && !wiring.resolveBundles(List.of(bundle))) {
                failures.add(Path.of(URI.create(bundle.getLocation())) + ": bundle " + bundle.getSymbolicName() + " "
                        + bundle.getVersion() + " cannot resolve: " + UnresolvedBundle.lacks(wiring, bundle));
            }
        }
        return failures;
    }

    /**
     * @return why a resolved bundle that was to start (FileInstall asked for it: it is marked to
     *         start at this level) is not active, found by starting it once more, as FileInstall
     *         retries it: its activator's exception; null when it starts now or was not to start
     */
    private String startRefusal(Bundle bundle) {
        int activeLevel = context.getBundle(0).adapt(FrameworkStartLevel.class).getStartLevel();
        if (!due(bundle, activeLevel)) {
            return null;
        }
        try {
            bundle.start();
            return null;
        } catch (org.osgi.framework.BundleException | IllegalStateException | SecurityException e) {
            StringBuilder why = new StringBuilder(String.valueOf(e.getMessage()));
            for (Throwable cause = e.getCause(); cause != null && cause != cause.getCause(); cause = cause.getCause()) {
                why.append(": ").append(cause);
            }
            return why.toString();
        }
    }

    /** @return what the runtime still waits for, or null when it is ready */
    String pending() {
        FrameworkStartLevel levels = context.getBundle(0).adapt(FrameworkStartLevel.class);
        String beginning = context.getProperty(Constants.FRAMEWORK_BEGINNING_STARTLEVEL);
        int target = beginning == null ? 1 : Integer.parseInt(beginning.trim());
        if (levels.getStartLevel() < target) {
            return "start level " + levels.getStartLevel() + " of " + target;
        }
        String watched = context.getProperty("felix.fileinstall.dir");
        Set<Path> missing = missingConfigurations(watched);
        if (!missing.isEmpty()) {
            return "configuration files not applied: " + missing;
        }
        for (Path jar : files(watched, "*.jar")) {
            Bundle bundle = bundleAt(jar);
            if (bundle == null || !started(bundle)) {
                return jar + " is not started";
            }
        }
        for (Bundle bundle : context.getBundles()) {
            if (starting(bundle) || (!started(bundle) && due(bundle, levels.getStartLevel()))) {
                return "bundle " + bundle.getSymbolicName() + " is not started";
            }
        }
        String components = pendingComponent();
        if (components != null) {
            return components;
        }
        String configured = unconfiguredComponent();
        if (configured != null) {
            return configured;
        }
        String unbound = unboundProvider();
        if (unbound != null) {
            return unbound;
        }
        if (!shellStarted.get() && active(GOGO_SHELL)) {
            return "the Gogo shell has not run its start command";
        }
        return null;
    }

    /** @return whether the bundle's activator is running (a lazily activated bundle waiting for its first use is not) */
    private static boolean starting(Bundle bundle) {
        Object policy = bundle.getHeaders().get(Constants.BUNDLE_ACTIVATIONPOLICY);
        return bundle.getState() == Bundle.STARTING
                && !(policy != null && policy.toString().startsWith(Constants.ACTIVATION_LAZY));
    }

    private static boolean started(Bundle bundle) {
        return bundle.getState() == Bundle.ACTIVE || (fragment(bundle) && bundle.getState() == Bundle.RESOLVED);
    }

    private static boolean fragment(Bundle bundle) {
        BundleRevision revision = bundle.adapt(BundleRevision.class);
        return revision != null && (revision.getTypes() & BundleRevision.TYPE_FRAGMENT) != 0;
    }

    /** @return whether the framework is about to start {@code bundle}: resolved, marked to start, at this level */
    private static boolean due(Bundle bundle, int activeLevel) {
        if (bundle.getBundleId() == 0 || bundle.getState() != Bundle.RESOLVED) {
            return false;
        }
        BundleStartLevel level = bundle.adapt(BundleStartLevel.class);
        boolean fragment = (bundle.adapt(BundleRevision.class).getTypes() & BundleRevision.TYPE_FRAGMENT) != 0;
        return !fragment && level.isPersistentlyStarted() && level.getStartLevel() <= activeLevel;
    }

    private boolean active(String symbolicName) {
        for (Bundle bundle : context.getBundles()) {
            if (symbolicName.equals(bundle.getSymbolicName()) && bundle.getState() == Bundle.ACTIVE) {
                return true;
            }
        }
        return false;
    }

    private Bundle bundleAt(Path jar) {
        for (Bundle bundle : context.getBundles()) {
            try {
                if (Path.of(URI.create(bundle.getLocation())).toAbsolutePath().normalize().equals(jar)) {
                    return bundle;
                }
            } catch (IllegalArgumentException | java.nio.file.FileSystemNotFoundException e) {
                // not a file location
            }
        }
        return null;
    }

    private String pendingComponent() {
        ServiceComponentRuntime runtime = scr.getService();
        if (runtime == null) {
            return "Declarative Services is not running";
        }
        for (Bundle bundle : context.getBundles()) {
            if (bundle.getState() != Bundle.ACTIVE || bundle.getHeaders().get("Service-Component") == null) {
                continue;
            }
            Collection<ComponentDescriptionDTO> descriptions = runtime.getComponentDescriptionDTOs(bundle);
            if (descriptions.isEmpty()) {
                return "the components of " + bundle.getSymbolicName() + " are not processed";
            }
            boolean ours = bundle.getSymbolicName() != null && bundle.getSymbolicName().startsWith("nni.");
            for (ComponentDescriptionDTO description : descriptions) {
                boolean provider = description.serviceInterfaces != null
                        && List.of(description.serviceInterfaces).stream().anyMatch(PROVIDED::contains);
                if (!(ours || provider) || !runtime.isComponentEnabled(description)) {
                    continue;
                }
                for (ComponentConfigurationDTO configuration : runtime.getComponentConfigurationDTOs(description)) {
                    if (configuration.state == ComponentConfigurationDTO.UNSATISFIED_REFERENCE) {
                        List<String> wanted = new ArrayList<>();
                        for (UnsatisfiedReferenceDTO reference : configuration.unsatisfiedReferences) {
                            wanted.add(reference.name);
                        }
                        return "component " + description.name + " waits for " + String.join(", ", wanted);
                    }
                    // a component re-created for a new configuration file shows its new properties before its
                    // service is back: until then a platform it provides is "not installed", a command unknown
                    if (registersService(description) && configuration.service == null
                            && (configuration.state == ComponentConfigurationDTO.SATISFIED
                            || configuration.state == ComponentConfigurationDTO.ACTIVE)) {
                        return "component " + description.name + " has not registered its service yet";
                    }
                }
            }
        }
        return null;
    }

    /** @return whether the component registers its own service (a component factory registers the factory's) */
    private static boolean registersService(ComponentDescriptionDTO description) {
        return description.serviceInterfaces != null && description.serviceInterfaces.length > 0 && description.factory == null;
    }

    /**
     * A configuration file is applied once the components it configures run with it: SCR puts a
     * component's configuration properties (FileInstall's file name among them) into its
     * properties when it re-creates the component, which it does on its own thread after Config
     * Admin took the file.
     */
    private String unconfiguredComponent() {
        ServiceComponentRuntime runtime = scr.getService();
        ConfigurationAdmin admin = configurations.getService();
        if (runtime == null || admin == null) {
            return null;
        }
        Configuration[] files;
        try {
            files = admin.listConfigurations("(" + FILEINSTALL_FILENAME + "=*)");
        } catch (IOException | InvalidSyntaxException e) {
            LOG.warn("cannot list configurations", e);
            return null;
        }
        for (Configuration configuration : files == null ? new Configuration[0] : files) {
            String pid = configuration.getFactoryPid() != null ? configuration.getFactoryPid() : configuration.getPid();
            Object file = configuration.getProperties().get(FILEINSTALL_FILENAME);
            for (ComponentDescriptionDTO description : runtime.getComponentDescriptionDTOs()) {
                if (description.configurationPid == null || !List.of(description.configurationPid).contains(pid)
                        || "ignore".equals(description.configurationPolicy) || !runtime.isComponentEnabled(description)) {
                    continue;
                }
                Path path = Path.of(URI.create(String.valueOf(file))).toAbsolutePath().normalize();
                boolean taken = runtime.getComponentConfigurationDTOs(description).stream()
                        .anyMatch(c -> file.equals(c.properties.get(FILEINSTALL_FILENAME))
                                && hasKeysOf(path, key -> c.properties.get(key) != null));
                if (!taken) {
                    return "component " + description.name + " has not taken " + file + " yet";
                }
            }
        }
        return null;
    }

    private String unboundProvider() {
        for (String type : PROVIDED) {
            ServiceReference<?>[] references;
            try {
                references = context.getAllServiceReferences(type, null);
            } catch (InvalidSyntaxException e) {
                throw new IllegalStateException(e);
            }
            for (ServiceReference<?> reference : references == null ? new ServiceReference<?>[0] : references) {
                long serviceId = (Long) reference.getProperty(Constants.SERVICE_ID);
                boolean bound = type.equals(TrainingPlatform.class.getName()) ? providers.platformTakenIn(serviceId)
                        || reference.getProperty(TrainingPlatform.PLATFORM) == null
                        : providers.algorithmTakenIn(serviceId) || !chosenByTheEngine(reference::getProperty);
                if (!bound) {
                    Object name = reference.getProperty(
                            type.equals(TrainingPlatform.class.getName()) ? TrainingPlatform.PLATFORM : TunerProvider.ALGORITHM);
                    return type.substring(type.lastIndexOf('.') + 1) + " " + (name instanceof String[] names
                            ? String.join(", ", names) : name) + " is not bound yet";
                }
            }
        }
        return null;
    }

    /**
     * @return whether the engine binds this algorithm service to choose it: one with algorithm names,
     *         or the runner of the Java providers ({@link DispatcherProvider#RUNS_PROVIDERS}), without
     *         which a Java tuner's experiment is refused as having none
     */
    static boolean chosenByTheEngine(Function<String, Object> serviceProperty) {
        return serviceProperty.apply(TunerProvider.ALGORITHM) != null
                || Boolean.parseBoolean(String.valueOf(serviceProperty.apply(DispatcherProvider.RUNS_PROVIDERS)));
    }

    private Set<Path> missingConfigurations(String watched) {
        Set<Path> missing = files(watched, "*.{cfg,config}");
        if (missing.isEmpty()) {
            return missing;
        }
        ConfigurationAdmin admin = configurations.getService();
        if (admin == null) {
            return missing;
        }
        try {
            Configuration[] applied = admin.listConfigurations("(" + FILEINSTALL_FILENAME + "=*)");
            for (Configuration configuration : applied == null ? new Configuration[0] : applied) {
                Object name = configuration.getProperties().get(FILEINSTALL_FILENAME);
                try {
                    Path file = Path.of(URI.create(String.valueOf(name))).toAbsolutePath().normalize();
                    // FileInstall may first create the configuration with its file name only, then fill it in
                    if (hasKeysOf(file, key -> configuration.getProperties().get(key) != null)) {
                        missing.remove(file);
                    }
                } catch (IllegalArgumentException e) {
                    LOG.debug("configuration {} names no file: {}", configuration.getPid(), name);
                }
            }
        } catch (IOException | InvalidSyntaxException e) {
            LOG.warn("cannot list configurations", e);
            missing.clear();
        }
        return missing;
    }

    /** @return whether every key a {@code .cfg} file sets passes {@code present} (a {@code .config} file is not parsed here) */
    private static boolean hasKeysOf(Path file, java.util.function.Predicate<String> present) {
        if (!file.getFileName().toString().endsWith(".cfg")) {
            return true;
        }
        java.util.Properties properties = new java.util.Properties();
        try (java.io.Reader reader = Files.newBufferedReader(file, java.nio.charset.StandardCharsets.ISO_8859_1)) {
            properties.load(reader);
        } catch (IOException | IllegalArgumentException e) {
            return true; // unreadable: FileInstall and Config Admin report it
        }
        return properties.stringPropertyNames().stream().allMatch(present);
    }

    /** @return the files matching {@code glob} in FileInstall's comma-separated folders */
    static Set<Path> files(String watchedFolders, String glob) {
        Set<Path> files = new TreeSet<>();
        if (watchedFolders == null) {
            return files;
        }
        for (String folder : watchedFolders.split(",")) {
            try (DirectoryStream<Path> entries = Files.newDirectoryStream(Path.of(folder.trim()), glob)) {
                entries.forEach(file -> files.add(file.toAbsolutePath().normalize()));
            } catch (IOException | InvalidPathException e) {
                LOG.debug("cannot list {}", folder, e);
            }
        }
        return files;
    }

    private void changed(Object event) {
        synchronized (changed) {
            changed.notifyAll();
        }
    }

    @Override
    public void close() {
        context.removeServiceListener(serviceListener);
        context.removeBundleListener(bundleListener);
        context.removeFrameworkListener(frameworkListener);
        for (ServiceRegistration<?> registration : registrations) {
            try {
                registration.unregister();
            } catch (IllegalStateException alreadyGone) {
                // the bundle is stopping
            }
        }
        scr.close();
        configurations.close();
    }

    /** Hears the Gogo shell's start command ({@code gosh --login ...}) end. */
    private final class ShellStart implements CommandSessionListener {
        @Override
        public void beforeExecute(CommandSession session, CharSequence line) {
        }

        @Override
        public void afterExecute(CommandSession session, CharSequence line, Exception exception) {
            ended(line);
        }

        @Override
        public void afterExecute(CommandSession session, CharSequence line, Object result) {
            ended(line);
        }

        private void ended(CharSequence line) {
            if (line != null && line.toString().startsWith("gosh")) {
                shellStarted.set(true);
                changed(line);
            }
        }
    }
}
