package nni.ts.local.internal;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicyOption;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.Option;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import nni.api.config.SectionCheck;
import nni.api.environment.KeeperChoice;
import nni.api.environment.KeeperOptions;
import nni.api.environment.KeeperSessions;
import nni.api.platform.Platform;
import nni.api.platform.PlatformException;
import nni.api.platform.SessionContext;
import nni.api.platform.TrainingPlatform;
import nni.api.platform.TrainingSession;

/**
 * Runs trials as processes on this machine. Configured through PID {@code nni.ts.local}
 * ({@code etc/nni.ts.local.cfg}); works with the defaults when there is no configuration.
 */
@Component(service = TrainingPlatform.class, configurationPid = "nni.ts.local",
        configurationPolicy = ConfigurationPolicy.OPTIONAL)
@Platform("local")
@Designate(ocd = LocalPlatform.Config.class)
public class LocalPlatform implements TrainingPlatform {

    private static final Logger LOG = LoggerFactory.getLogger(LocalPlatform.class);

    @ObjectClassDefinition(name = "NNI local platform", description = "Trials as processes on this machine")
    public @interface Config {
        @AttributeDefinition(description = "Seconds a cancelled trial's processes get between SIGTERM and SIGKILL")
        int kill_grace_seconds() default 5;

        @AttributeDefinition(description = "The shell that runs trial commands")
        String shell() default "/bin/bash";

        @AttributeDefinition(description = "Whether trials get the pure-Python nni SDK shipped with nni-osgi on their "
                + "PYTHONPATH: 'auto' = only when python3 cannot import nni itself, 'always', 'never'",
                options = {@Option(value = "auto"), @Option(value = "always"), @Option(value = "never")})
        String python_sdk() default "auto";

        @AttributeDefinition(description = "The nvidia-smi command GPU placement queries (a name looked up on PATH, or a path)")
        String nvidia_smi() default "nvidia-smi";

        @AttributeDefinition(description = "reuseMode: most keeper environments alive at once")
        int reuse_max_environments() default 16;

        @AttributeDefinition(description = "reuseMode: seconds an environment may stay idle before it ends")
        int reuse_idle_seconds() default 600;
    }

    private final Config config;

    /**
     * The keeper sessions of reuseMode, bound statically: when bundle nni.keeper goes (updated,
     * refreshed, stopped) this platform goes with it, so that the platform registry detaches the
     * reuse sessions it opened and the experiments re-attach their keepers through the new
     * nni.keeper once this platform is back with it (greedy: a platform activated without keeper
     * sessions is activated again when they arrive). A dynamic reference left experiments holding
     * sessions the old bundle had detached: their trials never ended.
     */
    private final KeeperSessions keeperSessions;

    /** Reads nvidia-smi for the machines view of reuse sessions; its one thread exists only while a reading runs. */
    private final ThreadPoolExecutor gpuViewReader;

    /** A platform without reuseMode (tests, benchmarks: no OSGi framework). */
    public LocalPlatform(Config config) {
        this(config, null);
    }

    @Activate
    public LocalPlatform(Config config, @Reference(cardinality = ReferenceCardinality.OPTIONAL,
            policyOption = ReferencePolicyOption.GREEDY) KeeperSessions keeperSessions) {
        this.config = config;
        this.keeperSessions = keeperSessions;
        this.gpuViewReader = new ThreadPoolExecutor(0, 1, 10, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), runnable -> {
            Thread thread = new Thread(runnable, "nni-local-gpu-view");
            thread.setDaemon(true);
            return thread;
        });
        LOG.debug("local platform: kill grace {} s, shell {}", config.kill_grace_seconds(), config.shell());
    }

    @Deactivate
    void deactivate() {
        gpuViewReader.shutdownNow();
    }

    @Override
    public SectionCheck checkSection(Map<String, Object> section, Path baseDirectory) {
        return LocalSection.check(section, baseDirectory);
    }

    @Override
    public TrainingSession open(SessionContext context) throws PlatformException {
        if (Boolean.TRUE.equals(context.section().get("reuseMode"))) {
            KeeperSessions keepers = keeperSessions;
            if (keepers == null) {
                throw new PlatformException("reuseMode needs the keeper sessions of bundle nni.keeper, which is not active");
            }
            return keepers.open(context, new LocalEnvironmentLauncher(context.experimentDirectory().resolve("environments"),
                    config.kill_grace_seconds(), shippedSdk(context), HOST, new GpuReadings(config.nvidia_smi(), gpuViewReader)),
                    KeeperOptions.builder("local").reuse(true).maxEnvironments(config.reuse_max_environments())
                            .idleTimeout(Duration.ofSeconds(config.reuse_idle_seconds()))
                            .keeper(KeeperChoice.JAVA).build()); // the manager's address: where its port is bound
        }
        return new LocalSession(context, config.shell(), config.kill_grace_seconds(), shippedSdk(context), config.nvidia_smi(), HOST);
    }

    /** This machine's name, shown as the host of local trials. */
    private static final String HOST = hostName();

    private static String hostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            return "localhost";
        }
    }

    /**
     * @return the directory to put on the trials' PYTHONPATH so that {@code import nni} finds the
     *         SDK shipped in this bundle, or null when the trials use an installed NNI
     */
    private Path shippedSdk(SessionContext context) throws PlatformException {
        if (!needsShippedSdk(context)) {
            return null;
        }
        Path directory = context.experimentDirectory().resolve("sdk");
        try (InputStream sdk = LocalPlatform.class.getResourceAsStream("/sdk/nni/__init__.py")) {
            if (sdk == null) {
                throw new PlatformException("the nni SDK is missing from bundle nni.ts.local");
            }
            Files.createDirectories(directory.resolve("nni"));
            Files.copy(sdk, directory.resolve("nni").resolve("__init__.py"), StandardCopyOption.REPLACE_EXISTING);
            return directory;
        } catch (IOException e) {
            throw new PlatformException("cannot provide the nni SDK in " + directory + ": " + e.getMessage(), e);
        }
    }

    /** @return whether trials get the shipped SDK: always, never, or ("auto") when they cannot import nni themselves */
    boolean needsShippedSdk(SessionContext context) {
        String mode = config.python_sdk();
        Object code = context.section().get("trialCodeDirectory");
        return !"never".equals(mode) && !("auto".equals(mode)
                && nniImportable(code == null ? Path.of("").toAbsolutePath() : Path.of(code.toString())));
    }

    /**
     * Whether {@code import nni} works where and as a trial runs: {@code python3} in the trial's code
     * directory (the first place Python looks), with the environment trials inherit. The runtime's
     * own working directory has nothing to do with it: an unrelated {@code nni/} folder there once
     * made this say yes while every trial then failed with {@code ModuleNotFoundError}.
     */
    static boolean nniImportable(Path codeDirectory) {
        try {
            Process probe = new ProcessBuilder("python3", "-c", "import nni").directory(codeDirectory.toFile())
                    .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            return probe.waitFor(30, TimeUnit.SECONDS) && probe.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
