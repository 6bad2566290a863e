package nni.ts.aml.internal;

import java.nio.file.Path;
import java.time.Duration;
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
import nni.ts.cloud.AzureCredential;
import nni.ts.cloud.CloudSessionBuilder;
import nni.ts.cloud.ManagerAddress;

/**
 * NNI's {@code platform: aml} (reuse mode, as in NNI): trial keeper environments as Azure Machine
 * Learning command jobs on the workspace's compute target, with the configured docker image,
 * through the Azure Resource Manager jobs API ({@link AmlApi}). The keepers report to the manager's
 * endpoint over HTTP ({@code nniManagerIp}), or through files on the workspace's datastore when the
 * compute cannot reach the manager ({@link AmlChannel}). Credentials as
 * Azure users have them ({@link AzureCredential}). Configured through PID {@code nni.ts.aml}.
 */
@Component(service = TrainingPlatform.class, configurationPid = "nni.ts.aml",
        configurationPolicy = ConfigurationPolicy.OPTIONAL)
@Platform("aml")
@Designate(ocd = AmlPlatform.Config.class)
public class AmlPlatform implements TrainingPlatform {

    /** The host the manager's one port is bound to ({@code --host}); unset: every address. */

    @ObjectClassDefinition(name = "NNI aml platform", description = "Trials on an Azure ML compute target")
    public @interface Config {
        @AttributeDefinition(description = "Where the Azure credential comes from: auto (a service principal from"
                + " AZURE_TENANT_ID/AZURE_CLIENT_ID/AZURE_CLIENT_SECRET, else a managed identity endpoint, else the Azure"
                + " CLI's login, else this Azure machine's managed identity), environment, managed-identity or azure-cli")
        String credential() default "auto";

        @AttributeDefinition(description = "The Azure CLI's command (for credential auto or azure-cli)")
        String az_command() default "az";

        @AttributeDefinition(description = "The Azure Resource Manager endpoint (another one for sovereign clouds)")
        String arm_endpoint() default "https://management.azure.com";

        @AttributeDefinition(description = "The audience of the Resource Manager's tokens")
        String arm_resource() default "https://management.azure.com/";

        @AttributeDefinition(description = "The keeper the jobs run: python (Python 3.7+, which NNI's images have),"
                + " java (Java 17+), or auto (Java 17+ when the image has it, else Python)")
        String keeper() default "auto";

        @AttributeDefinition(description = "How the keepers in the jobs talk to the manager: http (to nniManagerIp and the"
                + " manager's port, which the compute must reach), files (channel folders on the workspace's datastore, mounted"
                + " read-write in the jobs and at datastore.mount here: no connection to the manager), or auto (files when"
                + " nniManagerIp is not set, the port is bound to loopback only and datastore.mount is set; else http)")
        String keeper_transport() default "auto";

        @AttributeDefinition(description = "The workspace's datastore (an Azure Files share or blob container) the jobs mount"
                + " for the file transport")
        String datastore() default "workspacefilestore";

        @AttributeDefinition(description = "Where that datastore is mounted on this machine (an SMB or blobfuse2 mount); empty:"
                + " no file transport")
        String datastore_mount() default "";

        @AttributeDefinition(description = "The Java command in the jobs' image")
        String java_command() default "java";

        @AttributeDefinition(description = "The Python 3 command in the jobs' image")
        String python_command() default "python3";

        @AttributeDefinition(description = "Seconds between two status requests per job (NNI: 5)")
        int status_refresh_seconds() default 5;

        @AttributeDefinition(description = "Seconds one request to Azure may take")
        int request_timeout_seconds() default 60;

        @AttributeDefinition(description = "Seconds a job may be unknown to Azure ML before it counts as gone")
        int missing_job_seconds() default 120;

        @AttributeDefinition(description = "Seconds an environment may stay idle before its job is cancelled (NNI: 600)")
        int reuse_idle_seconds() default 600;

        @AttributeDefinition(description = "Most jobs alive at once")
        int max_jobs() default 64;
    }

    private final Config config;
    private final KeeperSessions keeperSessions;
    private final String httpHost;

    @Activate
    public AmlPlatform(Config config, @Reference KeeperSessions keeperSessions, BundleContext context) {
        this(config, keeperSessions, context.getProperty(ManagerAddress.HTTP_HOST));
    }

    /** A platform outside a framework (section checks in tests): its port counts as bound to every address. */
    public AmlPlatform(Config config, KeeperSessions keeperSessions) {
        this(config, keeperSessions, (String) null);
    }

    private AmlPlatform(Config config, KeeperSessions keeperSessions, String httpHost) {
        this.config = config;
        this.keeperSessions = keeperSessions;
        this.httpHost = httpHost;
    }

    @Override
    public SectionCheck checkSection(Map<String, Object> section, Path baseDirectory) {
        return AmlSection.check(section, baseDirectory);
    }

    @Override
    public TrainingSession open(SessionContext context) throws PlatformException {
        AmlSection.Settings settings = AmlSection.settings(context.section());
        CloudSessionBuilder session = new CloudSessionBuilder("aml", "Azure ML", context, keeperSessions);
        KeeperChoice keeper = session.keeper(config.keeper());
        AzureCredential.Source source = session.checked(() -> AzureCredential.Source.of(config.credential()));
        String experiment = context.experimentId();
        AmlChannel channel = AmlChannel.choose(config.keeper_transport(), config.datastore(), config.datastore_mount(),
                settings.nniManagerIp(), httpHost, experiment);
        AzureCredential credential = session.checked(() -> AzureCredential.of(source, System::getenv, config.arm_resource(),
                config.az_command(), Duration.ofSeconds(config.request_timeout_seconds())));
        AmlApi api = new AmlApi(settings, session.http(settings.service(), config.request_timeout_seconds()), credential,
                config.arm_endpoint(), context.experimentDirectory().resolve("aml-snapshot"), experiment, keeper.toString(),
                config.java_command(), config.python_command(), channel);
        return session.maxJobs(config.max_jobs()).idleTimeout(config.reuse_idle_seconds()).managerHost(settings.nniManagerIp())
                .transport(channel.transport(), channel.why()).refresh(config.status_refresh_seconds()).missingAfter(config.missing_job_seconds())
                .checking("the Azure ML workspace", api::checkWorkspace)
                .describedAs("compute " + settings.computeTarget() + ", image " + settings.dockerImage() + ", "
                        + credential.description() + ", keeper " + keeper + ", reports " + channel + ": " + channel.why())
                .open(api);
    }
}
