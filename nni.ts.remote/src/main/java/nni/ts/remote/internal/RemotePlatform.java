package nni.ts.remote.internal;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicInteger;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;
import org.osgi.service.metatype.annotations.Option;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import nni.api.config.ConfigReader;
import nni.api.config.SectionCheck;
import nni.api.environment.KeeperChoice;
import nni.api.environment.KeeperOptions;
import nni.api.environment.KeeperSessions;
import nni.api.platform.Platform;
import nni.api.platform.PlatformException;
import nni.api.platform.SessionContext;
import nni.api.platform.TrainingPlatform;
import nni.api.platform.TrainingSession;
import nni.ts.remote.internal.pack.CodeArchiver;
import nni.ts.remote.internal.ssh.HostKeyPolicy;
import nni.ts.remote.internal.ssh.SshConnection;

/**
 * NNI's remote platform: trials on the machines of {@code machineList}, reached over SSH, each run
 * by the trial keeper (one keeper per trial, or with {@code reuseMode} long-lived keepers that run
 * trials one after another). Configured through PID {@code nni.ts.remote}.
 */
@Component(service = TrainingPlatform.class, configurationPid = "nni.ts.remote", configurationPolicy = ConfigurationPolicy.OPTIONAL)
@Platform("remote")
@Designate(ocd = RemotePlatform.Config.class)
public class RemotePlatform implements TrainingPlatform {

    private static final Logger LOG = LoggerFactory.getLogger(RemotePlatform.class);

    @ObjectClassDefinition(name = "NNI remote platform", description = "Trials on machines reached over SSH")
    public @interface Config {
        @AttributeDefinition(description = "The OpenSSH known_hosts file machines' host keys are checked against"
                + " (default: ~/.ssh/known_hosts)")
        String known_hosts() default "";

        @AttributeDefinition(description = "INSECURE: accept any host key, so that a man in the middle goes unnoticed")
        boolean insecure_skip_host_key_check() default false;

        @AttributeDefinition(description = "Directory on the machines that holds experiments (NNI: /tmp/nni-experiments)")
        String remote_directory() default "/tmp/nni-experiments";

        @AttributeDefinition(description = "Which trial keeper the machines run: auto (each machine is probed once: Java 17+"
                + " if it has it, else Python 3.7+), java or python", options = {
                    @Option(label = "auto", value = "auto"), @Option(label = "java", value = "java"), @Option(label = "python", value = "python")})
        String keeper() default "auto";

        @AttributeDefinition(description = "The Java 17+ command that runs the Java trial keeper on the machines"
                + " (looked up on PATH after pythonPath)")
        String java_command() default "java";

        @AttributeDefinition(description = "The Python 3.7+ command that runs the Python trial keeper on the machines"
                + " (looked up on PATH after pythonPath)")
        String python_command() default "python3";

        @AttributeDefinition(description = "Seconds to connect or to wait for an answer")
        int connect_timeout_seconds() default 15;

        @AttributeDefinition(description = "Seconds between checks of the machines and their keepers")
        int check_interval_seconds() default 3;

        @AttributeDefinition(description = "Seconds a machine may be unreachable before its trials are given up")
        int machine_lost_seconds() default 60;

        @AttributeDefinition(description = "Seconds a stopped keeper gets between SIGTERM and SIGKILL")
        int kill_grace_seconds() default 5;

        @AttributeDefinition(description = "reuseMode: seconds an environment may stay idle before it ends")
        int reuse_idle_seconds() default 600;

        @AttributeDefinition(description = "Most keepers (trials, or environments in reuseMode) alive at once")
        int max_keepers() default 64;
    }

    private final Config config;
    private final KeeperSessions keeperSessions;
    private final KeeperChoice keeperChoice;

    @Activate
    public RemotePlatform(Config config, @Reference KeeperSessions keeperSessions) {
        this.config = config;
        this.keeperSessions = keeperSessions;
        this.keeperChoice = KeeperChoice.of(config.keeper()); // a bad value fails the activation, naming the key
        if (config.insecure_skip_host_key_check()) {
            LOG.warn("remote platform: host keys are NOT checked (insecure_skip_host_key_check=true)");
        }
    }

    @Override
    public SectionCheck checkSection(Map<String, Object> section, Path baseDirectory) {
        return RemoteSection.check(section, baseDirectory);
    }

    @Override
    public TrainingSession open(SessionContext context) throws PlatformException {
        RemoteSection.Settings settings = RemoteSection.settings(context.section());
        Path archive = context.experimentDirectory().resolve("remote").resolve("nni-code.tar.gz");
        try {
            new CodeArchiver().pack(settings.codeDirectory(), archive);
        } catch (IOException e) {
            throw new PlatformException(e instanceof CodeArchiver.TooLargeException ? e.getMessage()
                    : "cannot pack trialCodeDirectory " + settings.codeDirectory() + ": " + e.getMessage(), e);
        }
        Path sdk = shippedSdk(context.experimentDirectory().resolve("remote").resolve("sdk"));
        HostKeyPolicy hostKeys = new HostKeyPolicy(config.known_hosts().isBlank()
                ? Path.of(ConfigReader.userHome(), ".ssh", "known_hosts") : Path.of(config.known_hosts()),
                config.insecure_skip_host_key_check());
        Duration timeout = Duration.ofSeconds(config.connect_timeout_seconds());
        List<RemoteMachine> machines = new ArrayList<>();
        for (RemoteSection.Machine machine : settings.machines()) {
            machines.add(new RemoteMachine(machine, new SshConnection(machine.target(), hostKeys, timeout),
                    config.remote_directory(), context.experimentId()));
        }
        AtomicInteger threads = new AtomicInteger();
        ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(4, r -> {
            Thread thread = new Thread(r, "nni-remote-" + context.experimentId() + "-" + threads.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
        executor.setRemoveOnCancelPolicy(true);
        RemoteLauncher launcher = new RemoteLauncher(machines, settings.trialGpuNumber(), archive, sdk,
                new KeeperCommands(keeperChoice, config.java_command(), config.python_command()),
                Duration.ofSeconds(config.kill_grace_seconds()), Duration.ofSeconds(config.machine_lost_seconds()),
                Duration.ofSeconds(config.check_interval_seconds()), executor);
        List<String> failures = launcher.connectAll();
        if (failures.size() == machines.size()) {
            launcher.close();
            executor.shutdownNow();
            throw new PlatformException("no remote machine can be used: " + String.join("; ", failures));
        }
        try {
            return new RemoteSession(keeperSessions.open(context, launcher, KeeperOptions.builder("remote")
                    .reuse(settings.reuseMode()).maxEnvironments(Math.max(1, config.max_keepers()))
                    .idleTimeout(Duration.ofSeconds(config.reuse_idle_seconds())).managerHost(settings.nniManagerIp())
                    .keeper(keeperChoice).build()), launcher);
        } catch (PlatformException | RuntimeException e) {
            launcher.close();
            throw e;
        }
    }

    /** @return the SDK shipped in this bundle, written to {@code directory}/nni/__init__.py for upload */
    private static Path shippedSdk(Path directory) throws PlatformException {
        Path file = directory.resolve("nni").resolve("__init__.py");
        try (java.io.InputStream sdk = RemotePlatform.class.getResourceAsStream("/sdk/nni/__init__.py")) {
            if (sdk == null) {
                throw new PlatformException("the nni SDK is missing from bundle nni.ts.remote");
            }
            java.nio.file.Files.createDirectories(file.getParent());
            java.nio.file.Files.copy(sdk, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            return file;
        } catch (IOException e) {
            throw new PlatformException("cannot provide the nni SDK in " + directory + ": " + e.getMessage(), e);
        }
    }
}
