package nni.manager.internal.launch;

import java.io.IOException;
import java.net.URI;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Hashtable;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.Constants;
import org.osgi.framework.FrameworkEvent;
import org.osgi.framework.FrameworkListener;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.framework.ServiceListener;
import org.osgi.framework.ServiceRegistration;
import org.osgi.framework.startlevel.FrameworkStartLevel;
import org.osgi.service.cm.Configuration;
import org.osgi.service.cm.ConfigurationAdmin;
import org.osgi.service.cm.ConfigurationListener;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.runtime.ServiceComponentRuntime;
import org.osgi.util.tracker.ServiceTracker;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Carries out the command the runnable jar was started with (system property {@value #COMMAND},
 * the command word and its arguments separated by newlines): waits until the framework has started,
 * runs the matching {@link LaunchCommand}, and hands its exit code to the launcher. Without the
 * property it does nothing and the runtime keeps running.
 * <p>
 * The command runs on the launcher's main thread: bnd's launcher calls a {@code Callable<Integer>}
 * service registered with {@code main.thread=true}, then stops the framework and exits with the
 * returned code. Stopping the framework from a thread of our own raced the launcher, which exits
 * with its own code ({@code STOPPED}, 117) once it sees the framework stop.
 */
@Component(immediate = true, service = {})
public class LaunchCommandRunner {

    static final String COMMAND = "nni.command";
    /** The service property that makes bnd's launcher run a {@code Callable<Integer>} on its main thread. */
    private static final String MAIN_THREAD = "main.thread";
    /** The property FileInstall puts on each configuration it made from a file: that file's URL. */
    private static final String FILEINSTALL_FILENAME = "felix.fileinstall.filename";
    private static final Logger LOG = LoggerFactory.getLogger(LaunchCommandRunner.class);
    private static final long WAIT_SECONDS = 60;
    /** How long the framework may take to stop after a command before the JVM ends anyway. */
    private static final long STOP_SECONDS = 30;

    private final ServiceRegistration<?> registration;
    private final MainThreadCommand command;

    @Activate
    public LaunchCommandRunner(BundleContext context) {
        String line = context.getProperty(COMMAND);
        if (line == null || line.isBlank()) {
            registration = null;
            command = null;
            return;
        }
        List<String> words = Arrays.asList(line.split("\n"));
        command = new MainThreadCommand(context, words.get(0), words.subList(1, words.size()));
        registration = context.registerService(Callable.class.getName(), command,
                new Hashtable<>(Map.of(MAIN_THREAD, Boolean.TRUE)));
    }

    @Deactivate
    void deactivate() {
        if (registration != null) {
            try {
                registration.unregister();
            } catch (IllegalStateException alreadyGone) {
                LOG.debug("main-thread command already unregistered");
            }
            command.interrupt();
        }
    }

    /**
     * The launch command as the launcher's main-thread service. The launcher checks by reflection
     * that {@code call()} returns {@link Integer}, so this is a class and not a lambda.
     */
    public static final class MainThreadCommand implements Callable<Integer> {
        private final BundleContext context;
        private final String name;
        private final List<String> arguments;
        private volatile Thread caller;
        private volatile boolean interrupted;

        MainThreadCommand(BundleContext context, String name, List<String> arguments) {
            this.context = context;
            this.name = name;
            this.arguments = arguments;
        }

        @Override
        public Integer call() {
            caller = Thread.currentThread();
            try {
                if (interrupted) {
                    return 130;
                }
                int code = run(context, name, arguments);
                System.out.flush();
                System.err.flush();
                haltIfStopHangs(code);
                return code;
            } finally {
                caller = null;
            }
        }

        /** Called when the framework stops under the command (SIGTERM): the command ends early. */
        void interrupt() {
            interrupted = true;
            Thread running = caller;
            if (running != null) {
                running.interrupt();
            }
        }
    }

    /**
     * The launcher stops the framework after the command and waits for it without a limit; a
     * bundle that never finishes stopping must not keep a finished command's JVM alive.
     */
    private static void haltIfStopHangs(int code) {
        Thread watchdog = new Thread(() -> {
            try {
                TimeUnit.SECONDS.sleep(STOP_SECONDS);
                System.err.println("nni-osgi: the runtime did not stop within " + STOP_SECONDS + " s; ending it");
                Runtime.getRuntime().halt(code);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "nni-stop-watchdog");
        watchdog.setDaemon(true);
        watchdog.start();
    }

    private static int run(BundleContext context, String name, List<String> arguments) {
        ServiceTracker<LaunchCommand, LaunchCommand> tracker = null;
        try {
            awaitFrameworkStarted(context);
            awaitConfigurationsApplied(context);
            awaitComponentsProcessed(context);
            awaitServicesSettled(context);
            tracker = new ServiceTracker<>(context,
                    context.createFilter("(&(objectClass=" + LaunchCommand.class.getName() + ")(" + LaunchCommand.NAME + "=" + name + "))"),
                    null);
            tracker.open();
            LaunchCommand command = tracker.waitForService(TimeUnit.SECONDS.toMillis(5));
            if (command == null) {
                System.err.println("nni-osgi: unknown command '" + name + "'; try: java -jar nni-osgi.jar help");
                return 2;
            }
            return command.execute(arguments, System.out, System.err);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            System.err.println("nni-osgi: '" + name + "' was interrupted");
            return 130;
        } catch (Exception e) {
            LOG.error("command '{}' failed", name, e);
            System.err.println("nni-osgi: " + name + " failed: " + e.getMessage());
            return 1;
        } finally {
            if (tracker != null) {
                tracker.close();
            }
        }
    }

    /** Waits until every start level is reached, i.e. every bundle of the runtime has started. */
    private static void awaitFrameworkStarted(BundleContext context) throws InterruptedException {
        FrameworkStartLevel levels = context.getBundle(0).adapt(FrameworkStartLevel.class);
        String beginning = context.getProperty(Constants.FRAMEWORK_BEGINNING_STARTLEVEL);
        int target = beginning == null ? 1 : Integer.parseInt(beginning.trim());
        CountDownLatch started = new CountDownLatch(1);
        FrameworkListener listener = event -> {
            if (event.getType() == FrameworkEvent.STARTED || levels.getStartLevel() >= target) {
                started.countDown();
            }
        };
        context.addFrameworkListener(listener);
        try {
            if (levels.getStartLevel() < target && !started.await(WAIT_SECONDS, TimeUnit.SECONDS)) {
                LOG.warn("framework not started after {} s; running the command anyway", WAIT_SECONDS);
            }
        } finally {
            context.removeFrameworkListener(listener);
        }
    }

    /**
     * Waits until FileInstall has handed every configuration file in its folders ({@code etc/*.cfg})
     * to Config Admin, so that a command starts with the settings the user wrote there (for example
     * the remote platform's {@code known_hosts} path) and not with the defaults. Re-checks on every
     * configuration event.
     */
    private static void awaitConfigurationsApplied(BundleContext context) throws InterruptedException {
        Set<Path> files = configurationFiles(context.getProperty("felix.fileinstall.dir"));
        if (files.isEmpty()) {
            return;
        }
        ServiceTracker<ConfigurationAdmin, ConfigurationAdmin> tracker = new ServiceTracker<>(context, ConfigurationAdmin.class, null);
        tracker.open();
        Object changed = new Object();
        ServiceRegistration<ConfigurationListener> registration = context.registerService(ConfigurationListener.class, event -> {
            synchronized (changed) {
                changed.notifyAll();
            }
        }, null);
        try {
            ConfigurationAdmin admin = tracker.waitForService(TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            synchronized (changed) {
                Set<Path> missing = files;
                while (admin != null && !(missing = missingConfigurations(admin, files)).isEmpty()) {
                    long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                    if (left <= 0) {
                        LOG.warn("configuration files not applied after 10 s: {}; running the command anyway", missing);
                        return;
                    }
                    changed.wait(Math.min(left, 200));
                }
            }
        } finally {
            registration.unregister();
            tracker.close();
        }
    }

    static Set<Path> configurationFiles(String watchedFolders) {
        Set<Path> files = new TreeSet<>();
        if (watchedFolders == null) {
            return files;
        }
        for (String folder : watchedFolders.split(",")) {
            try (DirectoryStream<Path> entries = Files.newDirectoryStream(Path.of(folder.trim()), "*.{cfg,config}")) {
                entries.forEach(file -> files.add(file.toAbsolutePath().normalize()));
            } catch (IOException | InvalidPathException e) {
                LOG.debug("cannot list {}", folder, e);
            }
        }
        return files;
    }

    private static Set<Path> missingConfigurations(ConfigurationAdmin admin, Set<Path> files) {
        Set<Path> missing = new TreeSet<>(files);
        try {
            Configuration[] applied = admin.listConfigurations("(" + FILEINSTALL_FILENAME + "=*)");
            for (Configuration configuration : applied == null ? new Configuration[0] : applied) {
                Object name = configuration.getProperties().get(FILEINSTALL_FILENAME);
                try {
                    missing.remove(Path.of(URI.create(String.valueOf(name))).toAbsolutePath().normalize());
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

    /**
     * Waits until SCR has processed every active bundle that declares components, so that the
     * platforms, tuners and assessors they provide are registered before a command looks for them
     * (on a loaded machine SCR can lag seconds behind the last start level). Re-checks on every
     * service event, which SCR causes when it processes a bundle.
     */
    private static void awaitComponentsProcessed(BundleContext context) throws InterruptedException {
        ServiceTracker<ServiceComponentRuntime, ServiceComponentRuntime> tracker =
                new ServiceTracker<>(context, ServiceComponentRuntime.class, null);
        tracker.open();
        Object changed = new Object();
        ServiceListener listener = event -> {
            synchronized (changed) {
                changed.notifyAll();
            }
        };
        context.addServiceListener(listener);
        try {
            ServiceComponentRuntime scr = tracker.waitForService(TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
            synchronized (changed) {
                while (scr != null && !componentsProcessed(context, scr)) {
                    long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                    if (left <= 0) {
                        LOG.warn("components not all processed after {} s; running the command anyway", WAIT_SECONDS);
                        return;
                    }
                    changed.wait(Math.min(left, 200));
                }
            }
        } finally {
            context.removeServiceListener(listener);
            tracker.close();
        }
    }

    private static boolean componentsProcessed(BundleContext context, ServiceComponentRuntime scr) {
        for (Bundle bundle : context.getBundles()) {
            if (bundle.getState() == Bundle.ACTIVE && bundle.getHeaders().get("Service-Component") != null
                    && scr.getComponentDescriptionDTOs(bundle).isEmpty()) {
                return false;
            }
        }
        return true;
    }

    /**
     * Waits until no service has been registered or unregistered for a quiet period: SCR and
     * FileInstall finish activating components and deploy/ bundles on their own threads after the
     * last start level is reached, and a command should see the platforms they bring.
     */
    private static void awaitServicesSettled(BundleContext context) throws InterruptedException {
        AtomicLong lastEvent = new AtomicLong(System.nanoTime());
        ServiceListener listener = event -> lastEvent.set(System.nanoTime());
        context.addServiceListener(listener);
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            long quiet = TimeUnit.MILLISECONDS.toNanos(300);
            while (System.nanoTime() - lastEvent.get() < quiet && System.nanoTime() < deadline) {
                TimeUnit.NANOSECONDS.sleep(quiet - (System.nanoTime() - lastEvent.get()));
            }
        } finally {
            context.removeServiceListener(listener);
        }
    }
}
