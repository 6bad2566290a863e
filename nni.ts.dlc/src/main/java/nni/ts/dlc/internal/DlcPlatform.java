package nni.ts.dlc.internal;

import java.nio.file.Path;
import java.util.Map;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

import nni.api.config.SectionCheck;
import nni.api.environment.KeeperChoice;
import nni.api.environment.KeeperSessions;
import nni.api.environment.KeeperTransport;
import nni.api.platform.Platform;
import nni.api.platform.PlatformException;
import nni.api.platform.SessionContext;
import nni.api.platform.TrainingPlatform;
import nni.api.platform.TrainingSession;
import nni.ts.cloud.CloudSessionBuilder;
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
        String experiment = context.experimentId();
        CloudSessionBuilder session = new CloudSessionBuilder("dlc", "PAI-DLC", context, keeperSessions);
        DlcSection.Settings settings = session.checked(() -> DlcSection.settings(context.section()));
        KeeperChoice keeper = session.keeper(config.keeper());
        SharedStorage storage = session.checked(() -> new SharedStorage(
                settings.localStorageMountPoint().resolve("nni-experiments").resolve(experiment),
                settings.containerStorageMountPoint() + "/nni-experiments/" + experiment));
        KeeperTransport transport = session.checked(() -> storage.keeperTransport(config.keeper_transport()));
        String endpoint = config.endpoint().isBlank() ? DlcApi.endpoint(settings.region()) : config.endpoint().strip();
        DlcApi api = new DlcApi(settings, session.http(settings.service(), config.request_timeout_seconds()), endpoint, storage,
                experiment, keeper.toString(), config.java_command(), config.python_command());
        return session.maxJobs(config.max_jobs()).idleTimeout(config.reuse_idle_seconds()).managerHost(settings.nniManagerIp())
                .transport(transport, "keeper.transport = " + config.keeper_transport()).refresh(config.status_refresh_seconds()).missingAfter(config.missing_job_seconds())
                .checking("the PAI-DLC AccessKey", api::checkAccessKey)
                .describedAs(settings.jobType() + " x" + settings.podCount() + " " + settings.image() + ", keeper " + keeper
                        + ", reports " + transport)
                .open(api);
    }
}
