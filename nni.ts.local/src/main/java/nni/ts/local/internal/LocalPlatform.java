package nni.ts.local.internal;

import java.nio.file.Path;
import java.util.Map;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import nni.api.config.SectionCheck;
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
    }

    private final Config config;

    @Activate
    public LocalPlatform(Config config) {
        this.config = config;
        LOG.debug("local platform: kill grace {} s, shell {}", config.kill_grace_seconds(), config.shell());
    }

    @Override
    public SectionCheck checkSection(Map<String, Object> section, Path baseDirectory) {
        return LocalSection.check(section, baseDirectory);
    }

    @Override
    public TrainingSession open(SessionContext context) throws PlatformException {
        return new LocalSession(context, config.shell(), config.kill_grace_seconds());
    }
}
