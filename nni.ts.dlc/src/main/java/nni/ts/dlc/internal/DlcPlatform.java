package nni.ts.dlc.internal;

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
 * NNI's {@code platform: dlc} (reuse mode, as in NNI): trial keeper environments as Alibaba PAI-DLC
 * jobs ({@link DlcApi}), with the code, the keepers and the trials' files on the NAS data source,
 * mounted on this machine at {@code localStorageMountPoint} and in the jobs at
 * {@code containerStorageMountPoint}. The keepers report through files on the NAS (channel folders in
 * the experiment's {@code channels/}, as NNI's file channel), or, with {@code keeper.transport=http},
 * over HTTP to the manager's endpoint ({@code nniManagerIp}). Configured through PID {@code nni.ts.dlc}.
 */
@Component(service = TrainingPlatform.class, configurationPid = "nni.ts.dlc",
        configurationPolicy = ConfigurationPolicy.OPTIONAL)
@Platform("dlc")
@Designate(ocd = DlcPlatform.Config.class)
public class DlcPlatform implements TrainingPlatform {

    private static final Logger LOG = LoggerFactory.getLogger(DlcPlatform.class);

    @ObjectClassDefinition(name = "NNI dlc platform", description = "Trials as PAI-DLC jobs")
    public @interface Config {
        @AttributeDefinition(description = "PAI-DLC's endpoint; empty: NNI's, from the region"
                + " (https://pai-dlc.<region>.aliyuncs.com, https://pai-dlc-share.aliyuncs.com for region share)")
        String endpoint() default "";

        @AttributeDefinition(description = "The keeper the jobs run: python (Python 3.7+), java (Java 17+), or auto"
                + " (Java 17+ when the image has it, else Python)")
        String keeper() default "auto";

        @AttributeDefinition(description = "How the keepers in the jobs talk to the manager: files (channel folders on the NAS,"
                + " as NNI's file channel; the jobs need not reach the manager's port) or http (to nniManagerIp and the manager's port)")
        String keeper_transport() default "files";

        @AttributeDefinition(description = "The Java command in the jobs' image")
        String java_command() default "java";

        @AttributeDefinition(description = "The Python 3 command in the jobs' image")
        String python_command() default "python3";

        @AttributeDefinition(description = "Seconds between two GetJob calls per job (NNI: 60, to avoid DLC's throttling)")
        int status_refresh_seconds() default 30;

        @AttributeDefinition(description = "Seconds one request to DLC may take")
        int request_timeout_seconds() default 30;

        @AttributeDefinition(description = "Seconds a job may be unknown to DLC before it counts as gone")
        int missing_job_seconds() default 120;

        @AttributeDefinition(description = "Seconds an environment may stay idle before its job is stopped (NNI: 600)")
        int reuse_idle_seconds() default 600;

        @AttributeDefinition(description = "Most jobs alive at once (NNI's documentation advises 3 trials at a time on DLC)")
        int max_jobs() default 16;
    }

    private final Config config;
    private final KeeperSessions keeperSessions;

    @Activate
    public DlcPlatform(Config config, @Reference KeeperSessions keeperSessions) {
        this.config = config;
        this.keeperSessions = keeperSessions;
    }

    @Override
    public SectionCheck checkSection(Map<String, Object> section, Path baseDirectory) {
        return DlcSection.check(section, baseDirectory);
    }

    @Override
    public TrainingSession open(SessionContext context) throws PlatformException {
        DlcSection.Settings settings;
        KeeperChoice keeper;
        KeeperTransport transport;
        String experiment = context.experimentId();
        SharedStorage storage;
        try {
            settings = DlcSection.settings(context.section());
            keeper = KeeperChoice.of(config.keeper());
            storage = new SharedStorage(settings.localStorageMountPoint().resolve("nni-experiments").resolve(experiment),
                    settings.containerStorageMountPoint() + "/nni-experiments/" + experiment);
            transport = storage.keeperTransport(config.keeper_transport());
        } catch (IOException | IllegalArgumentException e) {
            throw new PlatformException("dlc: " + e.getMessage(), e);
        }
        String endpoint = config.endpoint().isBlank() ? DlcApi.endpoint(settings.region()) : config.endpoint().strip();
        HttpCalls http = new HttpCalls(settings.service(), Duration.ofSeconds(config.request_timeout_seconds()), "nni-dlc-" + experiment);
        DlcApi api = new DlcApi(settings, http, endpoint, storage, experiment, keeper.toString(), config.java_command(),
                config.python_command());
        try {
            String unchecked = api.checkAccessKey();
            if (unchecked != null) {
                LOG.warn("experiment {}: the PAI-DLC AccessKey could not be checked now: {}", experiment, unchecked);
            }
        } catch (PlatformException | RuntimeException e) {
            http.close();
            throw e;
        }
        JobLauncher launcher = new JobLauncher(api, "PAI-DLC", "nni-dlc-" + experiment, Duration.ofSeconds(config.status_refresh_seconds()),
                Duration.ofSeconds(config.missing_job_seconds()), context::capacityChanged);
        KeeperOptions options = KeeperOptions.builder("dlc").reuse(true).maxEnvironments(Math.max(1, config.max_jobs()))
                .idleTimeout(Duration.ofSeconds(config.reuse_idle_seconds())).managerHost(settings.nniManagerIp()).keeper(keeper).transport(transport).build();
        LOG.info("experiment {}: PAI-DLC session on {} ({} x{} {}, keeper {}, reports {})", experiment, settings.service(),
                settings.jobType(), settings.podCount(), settings.image(), keeper, transport);
        return JobSession.open(context, launcher, options, Duration.ofSeconds(5), keeperSessions);
    }
}
