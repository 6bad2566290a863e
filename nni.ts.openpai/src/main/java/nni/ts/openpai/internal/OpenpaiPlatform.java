package nni.ts.openpai.internal;

import java.nio.file.Path;
import java.util.Map;

import org.osgi.framework.BundleContext;
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
import nni.api.platform.Platform;
import nni.api.platform.PlatformException;
import nni.api.platform.SessionContext;
import nni.api.platform.TrainingPlatform;
import nni.api.platform.TrainingSession;
import nni.ts.cloud.CloudSessionBuilder;
import nni.ts.cloud.ManagerAddress;
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

    @ObjectClassDefinition(name = "NNI openpai platform", description = "Trials as OpenPAI jobs")
    public @interface Config {
        @AttributeDefinition(description = "The keeper the jobs run: python (Python 3.7+, which NNI's images have),"
                + " java (Java 17+), or auto (Java 17+ when the image has it, else Python)")
        String keeper() default "auto";

        @AttributeDefinition(description = "How the keepers in the jobs talk to the manager: http (to nniManagerIp and the"
                + " manager's port), files (channel folders on the storage at localStorageMountPoint, for jobs that cannot reach the"
                + " manager), or auto (files when nniManagerIp is not set and the manager's port is bound to loopback only; else http)")
        String keeper_transport() default "auto";

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
    /** The host the manager's port is bound to, or null (every address). */
    private final String httpHost;

    @Activate
    public OpenpaiPlatform(Config config, @Reference KeeperSessions keeperSessions, BundleContext context) {
        this(config, keeperSessions, context.getProperty(ManagerAddress.HTTP_HOST));
    }

    /** A platform outside a framework (tests): its port counts as bound to every address. */
    public OpenpaiPlatform(Config config, KeeperSessions keeperSessions) {
        this(config, keeperSessions, (String) null);
    }

    private OpenpaiPlatform(Config config, KeeperSessions keeperSessions, String httpHost) {
        this.config = config;
        this.keeperSessions = keeperSessions;
        this.httpHost = httpHost;
    }

    @Override
    public SectionCheck checkSection(Map<String, Object> section, Path baseDirectory) {
        return OpenpaiSection.check(section, baseDirectory);
    }

    @Override
    public TrainingSession open(SessionContext context) throws PlatformException {
        String experiment = context.experimentId();
        CloudSessionBuilder session = new CloudSessionBuilder("openpai", "OpenPAI", context, keeperSessions)
                .nniPlatform(OpenpaiJob.NNI_PLATFORM);
        OpenpaiSection.Settings settings = session.checked(() -> OpenpaiSection.settings(context.section()));
        KeeperChoice keeper = session.keeper(config.keeper());
        SharedStorage storage = session.checked(() -> new SharedStorage(settings.localStorageMountPoint().resolve(experiment),
                settings.containerStorageMountPoint() + "/" + experiment));
        SharedStorage.Route route = session.checked(() -> storage.keeperRoute(config.keeper_transport(),
                new ManagerAddress(settings.nniManagerIp(), httpHost)));
        OpenpaiApi api = new OpenpaiApi(settings, session.http(settings.service(), config.request_timeout_seconds()), storage,
                experiment, settings.reuseMode(), keeper.toString(), config.java_command(), config.python_command());
        return session.reuse(settings.reuseMode()).maxJobs(config.max_jobs()).idleTimeout(config.reuse_idle_seconds())
                .managerHost(settings.nniManagerIp()).transport(route.transport(), route.why())
                .refresh(settings.reuseMode() ? config.list_refresh_seconds() : config.status_refresh_seconds())
                .missingAfter(config.missing_job_seconds()).stopGrace(config.stop_grace_seconds())
                .checking("the OpenPAI token", api::checkUser)
                .describedAs((settings.reuseMode() ? "reuse mode" : "one job per trial") + ", keeper " + keeper
                        + ", reports " + route.transport() + " (" + route.why() + ")")
                .open(api);
    }
}
