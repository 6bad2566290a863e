package nni.launcher;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.Reader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.ServiceLoader;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.BundleException;
import org.osgi.framework.Constants;
import org.osgi.framework.FrameworkEvent;
import org.osgi.framework.ServiceEvent;
import org.osgi.framework.ServiceReference;
import org.osgi.framework.launch.Framework;
import org.osgi.framework.launch.FrameworkFactory;
import org.osgi.framework.startlevel.BundleStartLevel;
import org.osgi.framework.wiring.FrameworkWiring;

/**
 * Starts the OSGi framework (Felix, whose classes sit at the top of the runnable jar) with the
 * bundles of {@code run.bndrun}, which the build embedded under {@code jar/} and listed in
 * {@code launcher.properties}, and keeps its cache ({@code felix-cache/} in the home) between
 * starts: a start on a home that ran before installs nothing and the framework reopens its bundles
 * from the cache, which is what makes a warm start fast. bnd's own launcher emptied the cache at
 * every start (and with {@code launch.keep} failed on its second start); this replaces it.
 *
 * <p>Which embedded bundles the cache holds is recorded in {@value #RECORD}: each one's location
 * and the CRC and size of its jar as the runnable jar stores them (read from the jar's directory,
 * without unpacking anything). A runnable jar of another build installs, updates or uninstalls
 * only the bundles that differ. A cache without the record (made by another launcher, or broken)
 * is emptied first. Bundles installed by others (FileInstall's {@code deploy/}) are left to them,
 * except one whose file was deleted while the runtime was down: it is uninstalled.
 *
 * <p>As with bnd's launcher: the framework properties are {@code launcher.properties}' own (a
 * {@code -D} of the same name wins), a service {@code Callable<Integer>} registered with
 * {@code main.thread=true} is run on the main thread and its result is the exit code after the
 * framework stopped, a shutdown hook stops the framework (SIGTERM), and the framework stopping by
 * itself ends the process with {@value #STOPPED}.
 *
 * <p>The command service is called once the framework reached its start level. A bundle of the
 * runtime that the framework could not resolve or start by then ({@link StartFailures}) is told on
 * standard error, and a one-shot command ends at once with {@link Main#EXIT_UNUSABLE}: the
 * runtime it would run in lacks part of itself.
 */
final class RuntimeFramework {

    static final String RECORD = "nni-bundles.properties";
    private static final String LAUNCHER_PROPERTIES = "launcher.properties";
    /** Location prefix of the bundles this launcher installs; FileInstall's are {@code file:} URLs. */
    private static final String LOCATION = "nni-osgi:";
    private static final Pattern START_LEVEL = Pattern.compile("startlevel\\\\?=(\\d+)");
    /**
     * Run property (run.bndrun's {@code -runproperties}): the bundles installed but not started, by
     * symbolic name ({@code *} ends a prefix). They resolve with the bundles that import them and are
     * started by the code that needs them, when it first does (fabric8's client and models, started by
     * nni.ts.k8s when a Kubernetes platform first connects): started, SPI Fly would load and register
     * every Kubernetes resource class they list as a service provider at each start.
     */
    static final String STARTED_ON_USE = "nni.launcher.started.on.use";
    private static final long STOP_MILLIS = 30_000;
    /**
     * The exit code when the framework stopped by itself (a bundle stopped it, as the login gate does
     * when it cannot serve safely, or {@code stop 0}): bnd's launcher's code for it, kept.
     */
    static final int STOPPED = 117;
    /** On the main thread's queue: the framework reached its start level, having tried to start every bundle. */
    private static final Object START_LEVEL_REACHED = new Object();
    /** The process's standard error: a one-shot command's {@code System.err} goes to the log ({@link ConsoleCapture}). */
    private static final PrintStream ERR = new PrintStream(new FileOutputStream(FileDescriptor.err), true);

    private RuntimeFramework() {
    }

    /** Starts the framework and waits for its end. @return the process's exit code */
    static int run(Path storage) throws Exception {
        Properties launch = new Properties();
        try (InputStream in = RuntimeFramework.class.getClassLoader().getResourceAsStream(LAUNCHER_PROPERTIES)) {
            if (in == null) {
                throw new IOException("the runnable jar has no " + LAUNCHER_PROPERTIES);
            }
            launch.load(in);
        }
        Path jar = Path.of(RuntimeFramework.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        Map<String, String> config = new HashMap<>();
        for (String key : launch.stringPropertyNames()) {
            if (!key.startsWith("launch.")) {
                config.put(key, System.getProperty(key, launch.getProperty(key)));
            }
        }
        String systemPackages = launch.getProperty("launch.system.packages");
        if (systemPackages != null && !systemPackages.isBlank()) {
            config.put(Constants.FRAMEWORK_SYSTEMPACKAGES_EXTRA, systemPackages);
        }
        config.put(Constants.FRAMEWORK_STORAGE, storage.toString());
        Path record = storage.resolve(RECORD);
        if (!Files.isRegularFile(record)) {
            config.put(Constants.FRAMEWORK_STORAGE_CLEAN, Constants.FRAMEWORK_STORAGE_CLEAN_ONFIRSTINIT);
        }
        FrameworkFactory factory = ServiceLoader.load(FrameworkFactory.class, RuntimeFramework.class.getClassLoader()).findFirst()
                .orElseThrow(() -> new IllegalStateException("the runnable jar holds no OSGi framework"));
        Framework framework = factory.newFramework(config);
        try {
            framework.init();
        } catch (BundleException | RuntimeException unreadable) {
            // a cache the framework cannot open (a killed write, another framework version): start afresh
            config.put(Constants.FRAMEWORK_STORAGE_CLEAN, Constants.FRAMEWORK_STORAGE_CLEAN_ONFIRSTINIT);
            Files.deleteIfExists(record);
            framework = factory.newFramework(config);
            framework.init();
        }
        BlockingQueue<Object> mainThread = new LinkedBlockingQueue<>();
        BundleContext context = framework.getBundleContext();
        StartFailures failures = new StartFailures(context);
        context.addFrameworkListener(failures);
        context.addFrameworkListener(event -> {
            if (event.getType() == FrameworkEvent.STARTED) {
                mainThread.add(START_LEVEL_REACHED);
            }
        });
        context.addServiceListener(event -> {
            if (event.getType() == ServiceEvent.REGISTERED) {
                mainThread.add(event.getServiceReference());
            }
        }, "(&(" + Constants.OBJECTCLASS + "=" + Callable.class.getName() + ")(main.thread=true))");
        synchronize(context, jar, launch, record);
        Framework started = framework;
        Runtime.getRuntime().addShutdownHook(new Thread(() -> stop(started), "nni-shutdown"));
        framework.start();
        Thread watcher = new Thread(() -> {
            try {
                mainThread.add(started.waitForStop(0));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "nni-framework-end");
        watcher.setDaemon(true);
        watcher.start();
        // the command runs once the framework tried every bundle: one that failed means a runtime without part of itself
        boolean levelReached = false;
        ServiceReference<?> reference = null;
        while (!levelReached || reference == null) {
            Object next = mainThread.take();
            if (next instanceof FrameworkEvent) {
                return STOPPED;
            } else if (next == START_LEVEL_REACHED) {
                levelReached = true;
                List<String> problems = failures.describe();
                problems.forEach(problem -> ERR.println("nni-osgi: " + problem));
                if (!problems.isEmpty() && System.getProperty(Main.COMMAND) != null) {
                    stop(framework);
                    return Main.EXIT_UNUSABLE;
                }
            } else {
                reference = (ServiceReference<?>) next;
            }
        }
        Object service = context.getService(reference);
        int code = service instanceof Callable<?> callable && callable.call() instanceof Integer result ? result : 1;
        stop(framework);
        return code;
    }

    private static void stop(Framework framework) {
        try {
            framework.stop();
            framework.waitForStop(STOP_MILLIS);
        } catch (BundleException | InterruptedException | IllegalStateException e) {
            // stopping already, or interrupted: the JVM ends anyway
        }
    }

    /**
     * Brings the framework's bundles in line with the runnable jar's list: installs the missing,
     * updates those whose jar changed, uninstalls those no longer listed, sets start levels and
     * marks every bundle (fragments aside) to be started. Runs before the framework starts.
     */
    private static void synchronize(BundleContext context, Path jar, Properties launch, Path record) throws Exception {
        List<String> paths = split(launch.getProperty("launch.bundles", ""));
        List<String> attributes = split(launch.getProperty("launch.runbundles.attrs", ""));
        int defaultLevel = Integer.parseInt(launch.getProperty("launch.startlevel.default", "1").strip());
        List<String> onUse = split(launch.getProperty(STARTED_ON_USE, ""));
        Properties recorded = new Properties();
        if (Files.isRegularFile(record)) {
            try (Reader reader = Files.newBufferedReader(record, StandardCharsets.ISO_8859_1)) {
                recorded.load(reader);
            }
        }
        Map<String, Bundle> installed = new HashMap<>();
        for (Bundle bundle : context.getBundles()) {
            if (bundle.getLocation().startsWith(LOCATION)) {
                installed.put(bundle.getLocation(), bundle);
            }
        }
        Properties now = new Properties();
        boolean refresh = false;
        boolean changed = false;
        try (ZipFile runnable = new ZipFile(jar.toFile())) {
            for (int i = 0; i < paths.size(); i++) {
                String path = paths.get(i);
                ZipEntry entry = runnable.getEntry(path);
                if (entry == null) {
                    throw new IOException("the runnable jar lacks its bundle " + path);
                }
                String location = LOCATION + path;
                String stamp = Long.toHexString(entry.getCrc()) + ":" + entry.getSize();
                now.setProperty(location, stamp);
                Bundle bundle = installed.remove(location);
                if (bundle == null) {
                    try (InputStream in = runnable.getInputStream(entry)) {
                        bundle = context.installBundle(location, in);
                    }
                    changed = true;
                } else if (!stamp.equals(recorded.getProperty(location))) {
                    try (InputStream in = runnable.getInputStream(entry)) {
                        bundle.update(in);
                    }
                    changed = true;
                    refresh = true;
                }
                int level = defaultLevel;
                if (i < attributes.size() && paths.size() == attributes.size()) {
                    Matcher startLevel = START_LEVEL.matcher(attributes.get(i));
                    if (startLevel.find()) {
                        level = Integer.parseInt(startLevel.group(1));
                    }
                }
                BundleStartLevel startLevel = bundle.adapt(BundleStartLevel.class);
                if (startLevel.getStartLevel() != level) {
                    startLevel.setStartLevel(level);
                }
                if (startedOnUse(onUse, bundle.getSymbolicName())) {
                    // a cache of an earlier build may have it marked to start: clear the mark
                    if (startLevel.isPersistentlyStarted()) {
                        bundle.stop();
                    }
                } else if (bundle.getHeaders("").get(Constants.FRAGMENT_HOST) == null) {
                    bundle.start(Bundle.START_ACTIVATION_POLICY);
                }
            }
        }
        for (Bundle gone : installed.values()) {
            gone.uninstall();
            changed = true;
            refresh = true;
        }
        for (Bundle bundle : context.getBundles()) {
            if (deletedWhileDown(bundle.getLocation())) {
                // FileInstall removes a bundle whose file goes while it runs, not one whose file went while the
                // runtime was down: a platform deleted from deploy/ in between must not come back from the cache
                bundle.uninstall();
                refresh = true;
            }
        }
        if (refresh) {
            CountDownLatch refreshed = new CountDownLatch(1);
            context.getBundle(Constants.SYSTEM_BUNDLE_LOCATION).adapt(FrameworkWiring.class)
                    .refreshBundles(null, event -> refreshed.countDown());
            refreshed.await(STOP_MILLIS, TimeUnit.MILLISECONDS);
        }
        if (changed || !now.equals(recorded)) {
            Path written = record.resolveSibling(RECORD + ".new");
            try (Writer writer = Files.newBufferedWriter(written, StandardCharsets.ISO_8859_1)) {
                now.store(writer, "the runnable jar's bundles in this cache: location = CRC:size");
            }
            Files.move(written, record, java.nio.file.StandardCopyOption.REPLACE_EXISTING, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        }
    }

    /** @return whether the location names a file (FileInstall's {@code deploy/} bundles) that is gone */
    private static boolean deletedWhileDown(String location) {
        if (!location.startsWith("file:")) {
            return false;
        }
        try {
            return !Files.exists(Path.of(java.net.URI.create(location)));
        } catch (IllegalArgumentException | java.nio.file.FileSystemNotFoundException e) {
            return false;
        }
    }

    /** @return whether {@code symbolicName} is one of {@code patterns} (exact names, or prefixes ending in {@code *}) */
    static boolean startedOnUse(List<String> patterns, String symbolicName) {
        return symbolicName != null && patterns.stream().anyMatch(pattern -> pattern.endsWith("*")
                ? symbolicName.startsWith(pattern.substring(0, pattern.length() - 1)) : symbolicName.equals(pattern));
    }

    private static List<String> split(String list) {
        List<String> parts = new ArrayList<>();
        for (String part : list.split(",")) {
            if (!part.isBlank()) {
                parts.add(part.strip());
            }
        }
        return parts;
    }
}
