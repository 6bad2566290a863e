package nni.ts.openpai.internal;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import nni.api.config.SectionCheck;
import nni.api.environment.KeeperChoice;
import nni.api.environment.KeeperOptions;
import nni.api.environment.KeeperSessions;
import nni.api.environment.KeeperTransport;
import nni.api.platform.Platform;
import nni.api.platform.PlatformException;
import nni.api.platform.SessionContext;
import nni.api.platform.TrainingPlatform;
import nni.api.platform.TrainingSession;
import nni.ts.cloud.HttpCalls;
import nni.ts.cloud.JobLauncher;
import nni.ts.cloud.JobSession;
import nni.ts.cloud.SharedStorage;

/**
 * NNI's {@code platform: openpai}: trials as jobs of an OpenPAI cluster, through its REST server
 * (version 2). Each job runs a trial keeper that reports to the manager's endpoint: one job per
 * trial, or with {@code reuseMode} (the default, as in NNI) long-lived jobs that run trials one
 * after another. The code, the keeper and the trials' files are on the storage
 * {@code storageConfigName}, mounted on this machine at {@code localStorageMountPoint} and in the
 * jobs at {@code containerStorageMountPoint}. Configured through PID {@code nni.ts.openpai}.
 */
@Component(service = TrainingPlatform.class, configurationPid = "nni.ts.openpai",
        configurationPolicy = ConfigurationPolicy.OPTIONAL)
@Platform("openpai")
@Designate(ocd = OpenpaiPlatform.Config.class)
public class OpenpaiPlatform implements TrainingPlatform {

    private static final Logger LOG = LoggerFactory.getLogger(OpenpaiPlatform.class);

    @ObjectClassDefinition(name = "NNI openpai platform", description = "Trials as OpenPAI jobs")
    public @interface Config {
        @AttributeDefinition(description = "The keeper the jobs run: python (Python 3.7+, which NNI's images have),"
                + " java (Java 17+), or auto (Java 17+ when the image has it, else Python)")
        String keeper() default "auto";

        @AttributeDefinition(description = "How the keepers in the jobs talk to the manager: http (to nniManagerIp and the"
                + " manager's port) or files (channel folders on the storage at localStorageMountPoint, for jobs that cannot reach the manager)")
        String keeper_transport() default "http";

        @AttributeDefinition(description = "The Java command in the jobs' image")
        String java_command() default "java";

        @AttributeDefinition(description = "The Python 3 command in the jobs' image")
        String python_command() default "python3";

        @AttributeDefinition(description = "One job per trial: seconds between two status requests per job (NNI: 3)")
        int status_refresh_seconds() default 3;

        @AttributeDefinition(description = "reuseMode: seconds between two requests for the user's job list (NNI: 5)")
        int list_refresh_seconds() default 5;

        @AttributeDefinition(description = "Seconds one request to OpenPAI may take")
        int request_timeout_seconds() default 30;

        @AttributeDefinition(description = "Seconds a job may be unknown to OpenPAI before it counts as gone")
        int missing_job_seconds() default 60;

        @AttributeDefinition(description = "One job per trial: seconds a job may outlive its trial before it is stopped")
        int stop_grace_seconds() default 5;

        @AttributeDefinition(description = "reuseMode: seconds an environment may stay idle before its job is stopped")
        int reuse_idle_seconds() default 600;

        @AttributeDefinition(description = "Most jobs (trials, or environments in reuseMode) alive at once")
        int max_jobs() default 64;
    }

    private final Config config;
    private final KeeperSessions keeperSessions;

    @Activate
    public OpenpaiPlatform(Config config, @Reference KeeperSessions keeperSessions) {
        this.config = config;
        this.keeperSessions = keeperSessions;
    }

    @Override
    public SectionCheck checkSection(Map<String, Object> section, Path baseDirectory) {
        return OpenpaiSection.check(section, baseDirectory);
    }

    @Override
    public TrainingSession open(SessionContext context) throws PlatformException {
        OpenpaiSection.Settings settings;
        KeeperChoice keeper;
        KeeperTransport transport;
        String experiment = context.experimentId();
        SharedStorage storage;
        try {
            settings = OpenpaiSection.settings(context.section());
            keeper = KeeperChoice.of(config.keeper());
            storage = new SharedStorage(settings.localStorageMountPoint().resolve(experiment),
                    settings.containerStorageMountPoint() + "/" + experiment);
            transport = storage.keeperTransport(config.keeper_transport());
        } catch (IOException | IllegalArgumentException e) {
            throw new PlatformException("openpai: " + e.getMessage(), e);
        }
        HttpCalls http = new HttpCalls(settings.service(), Duration.ofSeconds(config.request_timeout_seconds()),
                "nni-openpai-" + experiment);
        OpenpaiApi api = new OpenpaiApi(settings, http, storage, experiment, settings.reuseMode(), keeper.toString(),
                config.java_command(), config.python_command());
        try {
            String unchecked = api.checkUser();
            if (unchecked != null) {
                LOG.warn("experiment {}: the OpenPAI token could not be checked now: {}", experiment, unchecked);
            }
        } catch (PlatformException | RuntimeException e) {
            http.close();
            throw e;
        }
        Duration refresh = Duration.ofSeconds(settings.reuseMode() ? config.list_refresh_seconds() : config.status_refresh_seconds());
        JobLauncher launcher = new JobLauncher(api, "OpenPAI", "nni-openpai-" + experiment, refresh,
                Duration.ofSeconds(config.missing_job_seconds()), context::capacityChanged);
        KeeperOptions options = KeeperOptions.builder(OpenpaiJob.NNI_PLATFORM).reuse(settings.reuseMode())
                .maxEnvironments(Math.max(1, config.max_jobs())).idleTimeout(Duration.ofSeconds(config.reuse_idle_seconds()))
                .managerHost(settings.nniManagerIp()).keeper(keeper).transport(transport).build();
        LOG.info("experiment {}: OpenPAI session on {} ({}, keeper {}, reports {})", experiment, settings.service(),
                settings.reuseMode() ? "reuse mode" : "one job per trial", keeper, transport);
        return JobSession.open(context, launcher, options, Duration.ofSeconds(config.stop_grace_seconds()), keeperSessions);
    }
}
