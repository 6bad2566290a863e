package nni.ts.dlts.internal;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collection;
import java.util.Map;

import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.FrameworkUtil;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.framework.ServiceReference;
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
import nni.api.environment.KeeperSessions;
import nni.api.platform.Platform;
import nni.api.platform.PlatformException;
import nni.api.platform.SessionContext;
import nni.api.platform.TrainingPlatform;
import nni.api.platform.TrainingSession;
import nni.ts.cloud.CloudSessionBuilder;
import nni.ts.cloud.SharedStorage;

/**
 * NNI's {@code trainingServicePlatform: dlts} (v1 files, converted to {@code platform: dlts}): each
 * trial a job of a DLTS (Microsoft DLWorkspace) cluster, submitted through its dashboard's REST API,
 * running a trial keeper that reports to the manager's endpoint. As in NNI, the manager runs where
 * the cluster's shared file system is (inside a DLTS job), so the jobs find the code and the keeper
 * below the experiment's folder. There, without {@code nniManagerIp}, the manager's HTTP port is
 * exposed through that job's DLTS endpoints ({@code DLTS_JOB_ID}) for the keepers to call, as NNI
 * did. Configured through PID {@code nni.ts.dlts}.
 */
@Component(service = TrainingPlatform.class, configurationPid = "nni.ts.dlts", configurationPolicy = ConfigurationPolicy.OPTIONAL)
@Platform("dlts")
@Designate(ocd = DltsPlatform.Config.class)
public class DltsPlatform implements TrainingPlatform {

    private static final Logger LOG = LoggerFactory.getLogger(DltsPlatform.class);

    @ObjectClassDefinition(name = "NNI dlts platform", description = "Trials as DLTS jobs")
    public @interface Config {
        @AttributeDefinition(description = "The keeper the jobs run: python (Python 3.7+), java (Java 17+), or auto"
                + " (Java 17+ when the image has it, else Python)")
        String keeper() default "auto";

        @AttributeDefinition(description = "The Java command in the jobs' image")
        String java_command() default "java";

        @AttributeDefinition(description = "The Python 3 command in the jobs' image")
        String python_command() default "python3";

        @AttributeDefinition(description = "Seconds between two status requests per job (NNI: 3)")
        int status_refresh_seconds() default 3;

        @AttributeDefinition(description = "Seconds one request to DLTS may take")
        int request_timeout_seconds() default 30;

        @AttributeDefinition(description = "Seconds a job may be unknown to DLTS before it counts as gone")
        int missing_job_seconds() default 60;

        @AttributeDefinition(description = "Seconds a job may outlive its trial before it is killed")
        int stop_grace_seconds() default 5;

        @AttributeDefinition(description = "Most jobs alive at once")
        int max_jobs() default 64;

        @AttributeDefinition(description = "Seconds DLTS may take to run the endpoint that exposes the manager's port"
                + " (in a DLTS job without nniManagerIp)")
        int endpoint_timeout_seconds() default 120;
    }

    private final Config config;
    private final KeeperSessions keeperSessions;

    @Activate
    public DltsPlatform(Config config, @Reference KeeperSessions keeperSessions) {
        this.config = config;
        this.keeperSessions = keeperSessions;
    }

    @Override
    public SectionCheck checkSection(Map<String, Object> section, Path baseDirectory) {
        return DltsSection.check(section, baseDirectory);
    }

    @Override
    public TrainingSession open(SessionContext context) throws PlatformException {
        DltsSection.Settings settings = DltsSection.settings(context.section(), System::getenv);
        CloudSessionBuilder session = new CloudSessionBuilder("dlts", "DLTS", context, keeperSessions);
        KeeperChoice keeper = session.keeper(config.keeper());
        String experiment = context.experimentId();
        Path root = context.experimentDirectory().resolve("dlts");
        SharedStorage storage = new SharedStorage(root, root.toString()); // the cluster's shared file system: the same path
        DltsApi api = new DltsApi(settings, session.http(settings.service(), config.request_timeout_seconds()), storage, experiment,
                keeper.toString(), config.java_command(), config.python_command());
        return session.reuse(false).maxJobs(config.max_jobs()).managerHost(settings.nniManagerIp())
                .refresh(config.status_refresh_seconds()).missingAfter(config.missing_job_seconds())
                .stopGrace(config.stop_grace_seconds())
                .checking("the DLTS cluster", () -> prepare(api, settings, experiment))
                .describedAs("keeper " + keeper)
                .open(api);
    }

    /** Looks up the cluster's GPU type and, in a DLTS job without {@code nniManagerIp}, exposes the manager's port. */
    private String prepare(DltsApi api, DltsSection.Settings settings, String experiment) throws PlatformException {
        api.lookUpGpuType();
        String job = settings.exposingJob();
        if (job != null) {
            String url = api.exposeManager(job, managerPort(), Duration.ofSeconds(config.endpoint_timeout_seconds()));
            LOG.info("experiment {}: keepers call the manager back at {}, where DLTS job {} exposes its port (no nniManagerIp)",
                    experiment, url, job);
        }
        return null;
    }

    /** @return the port of the manager's HTTP endpoint, as the HTTP runtime publishes it ({@code osgi.http.endpoint}) */
    private int managerPort() throws PlatformException {
        Bundle bundle = FrameworkUtil.getBundle(DltsPlatform.class);
        BundleContext bundleContext = bundle == null ? null : bundle.getBundleContext();
        if (bundleContext == null) {
            throw new PlatformException("dlts: not running in an OSGi framework, so the manager's HTTP port is unknown;"
                    + " set nniManagerIp to an address the jobs reach the manager at");
        }
        ServiceReference<?>[] runtimes;
        try {
            runtimes = bundleContext.getServiceReferences((String) null, "(osgi.http.endpoint=*)");
        } catch (InvalidSyntaxException e) {
            throw new IllegalStateException(e);
        }
        Object published = runtimes == null || runtimes.length == 0 ? null : runtimes[0].getProperty("osgi.http.endpoint");
        Object first = published instanceof String[] all && all.length > 0 ? all[0]
                : published instanceof Collection<?> all && !all.isEmpty() ? all.iterator().next() : published;
        int port = first == null ? -1 : URI.create(String.valueOf(first)).getPort();
        if (port <= 0) {
            throw new PlatformException("dlts: the manager's HTTP port publishes no address yet, so DLTS cannot expose it;"
                    + " set nniManagerIp to an address the jobs reach the manager at");
        }
        return port;
    }
}
