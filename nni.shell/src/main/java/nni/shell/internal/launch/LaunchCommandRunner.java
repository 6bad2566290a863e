package nni.shell.internal.launch;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.util.Arrays;
import java.util.Hashtable;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceRegistration;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.util.tracker.ServiceTracker;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import nni.api.experiment.ConfigurationRefusals;
import nni.api.experiment.ProviderIntake;
import nni.api.experiment.ErrorText;

/**
 * Carries out the command the runnable jar was started with (system property {@value #COMMAND},
 * the command word and its arguments separated by newlines): waits until the runtime is ready
 * ({@link RuntimeReadiness}), runs the matching {@link LaunchCommand}, and hands its exit code to the
 * launcher. A runtime that cannot become ready (a refused configuration file, a {@code deploy/} bundle
 * that cannot resolve) ends a command that needs it with the reasons on standard error and
 * {@value #EXIT_UNUSABLE}. Without the property it does nothing and the runtime keeps running.
 * <p>
 * The command runs on the launcher's main thread: the launcher ({@code nni.launcher}, as bnd's did)
 * calls a {@code Callable<Integer>} service registered with {@code main.thread=true}, then stops the
 * framework and exits with the returned code. Stopping the framework from a thread of our own raced the launcher, which exits
 * with its own code ({@code STOPPED}, 117) once it sees the framework stop.
 */
@Component(immediate = true, service = {})
public class LaunchCommandRunner {

    static final String COMMAND = "nni.command";
    /** The service property that makes the launcher run a {@code Callable<Integer>} on its main thread. */
    private static final String MAIN_THREAD = "main.thread";
    private static final Logger LOG = LoggerFactory.getLogger(LaunchCommandRunner.class);
    private static final long WAIT_SECONDS = 60;
    /** The exit code when the runtime cannot become ready (the launcher's for a runtime that cannot serve). */
    static final int EXIT_UNUSABLE = 4;
    /** How long the framework may take to stop after a command before the JVM ends anyway. */
    private static final long STOP_SECONDS = 30;

    /**
     * The process's own standard streams: while a command runs, the launcher sends
     * {@code System.out} and {@code System.err} to the log, and the console shows only the command.
     */
    private static final PrintStream OUT = new PrintStream(new FileOutputStream(FileDescriptor.out), true);
    private static final PrintStream ERR = new PrintStream(new FileOutputStream(FileDescriptor.err), true);

    private final ServiceRegistration<?> registration;
    private final MainThreadCommand command;

    @Activate
    public LaunchCommandRunner(BundleContext context, @Reference ProviderIntake providers,
                               @Reference ConfigurationRefusals configurationCheck) {
        String line = context.getProperty(COMMAND);
        if (line == null || line.isBlank()) {
            registration = null;
            command = null;
            return;
        }
        List<String> words = Arrays.asList(line.split("\n"));
        command = new MainThreadCommand(context, new RuntimeReadiness(context, providers, configurationCheck), words.get(0),
                words.subList(1, words.size()));
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
     * The launch command as the launcher's main-thread service; {@code call()} returns the exit code.
     */
    public static final class MainThreadCommand implements Callable<Integer> {
        private final BundleContext context;
        private final RuntimeReadiness readiness;
        private final String name;
        private final List<String> arguments;
        private volatile Thread caller;
        private volatile boolean interrupted;

        MainThreadCommand(BundleContext context, RuntimeReadiness readiness, String name, List<String> arguments) {
            this.context = context;
            this.readiness = readiness;
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
                int code = run(context, readiness, name, arguments);
                OUT.flush();
                ERR.flush();
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
                ERR.println("nni-osgi: the runtime did not stop within " + STOP_SECONDS + " s; ending it");
                Runtime.getRuntime().halt(code);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "nni-stop-watchdog");
        watchdog.setDaemon(true);
        watchdog.start();
    }

    private static int run(BundleContext context, RuntimeReadiness readiness, String name, List<String> arguments) {
        ServiceTracker<LaunchCommand, LaunchCommand> tracker = null;
        try {
            List<String> failures = readiness.await(WAIT_SECONDS);
            tracker = new ServiceTracker<>(context,
                    context.createFilter("(&(objectClass=" + LaunchCommand.class.getName() + ")(" + LaunchCommand.NAME + "=" + name + "))"),
                    null);
            tracker.open();
            LaunchCommand command = tracker.waitForService(TimeUnit.SECONDS.toMillis(5));
            if (command == null) {
                ERR.println("nni-osgi: unknown command '" + name + "'; try: java -jar nni-osgi.jar help");
                return 2;
            }
            failures.forEach(failure -> ERR.println("nni-osgi: " + failure));
            if (!failures.isEmpty() && command.needsReadyRuntime()) {
                ERR.println("nni-osgi: " + name + " not started: the runtime cannot become ready with these files");
                return EXIT_UNUSABLE;
            }
            return command.execute(arguments, OUT, ERR);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            ERR.println("nni-osgi: '" + name + "' was interrupted");
            return 130;
        } catch (Exception e) {
            LOG.error("command '{}' failed", name, e);
            ERR.println("nni-osgi: " + name + " failed: " + ErrorText.of(e));
            return 1;
        } finally {
            if (tracker != null) {
                tracker.close();
            }
            readiness.close();
        }
    }
}
