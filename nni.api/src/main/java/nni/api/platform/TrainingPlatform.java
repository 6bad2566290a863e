package nni.api.platform;

import java.util.List;
import java.util.Map;

import org.osgi.annotation.versioning.ConsumerType;

import nni.api.config.ConfigProblem;

/**
 * A place where trials run (this machine, machines over SSH, a cluster), provided by a platform
 * bundle as an OSGi service. The manager binds every such service dynamically and finds it by the
 * service property {@value #PLATFORM}; the name is what experiment files give as
 * {@code trainingService.platform}. Register it with the {@link Platform} component property type:
 *
 * <pre>
 * &#64;Component(service = TrainingPlatform.class, configurationPid = "nni.ts.example")
 * &#64;Platform("example")
 * &#64;Designate(ocd = ExamplePlatform.Config.class)
 * public class ExamplePlatform implements TrainingPlatform { ... }
 * </pre>
 *
 * <h2>Contract</h2>
 * <ul>
 * <li>If two services claim the same name, the one the framework ranks first (higher
 *     {@code service.ranking}, then lower {@code service.id}) wins; the other is listed as shadowed.</li>
 * <li>{@link #checkSection} and {@link #open} are called from manager threads, possibly concurrently
 *     for different experiments; implementations are thread-safe.</li>
 * <li>One {@link TrainingSession} is opened per experiment run (create or resume) and closed by the
 *     manager when the experiment stops. When the platform service goes away (its bundle is stopped,
 *     updated or uninstalled) the manager closes every session it opened before the service is gone,
 *     then marks the trials those sessions still had as {@code SYS_CANCELED}; a platform must not
 *     rely on closing them itself from {@code @Deactivate}.</li>
 * </ul>
 */
@ConsumerType
public interface TrainingPlatform {

    /** The service property that carries the platform name. */
    String PLATFORM = "nni.platform";

    /**
     * Checks this platform's section of an experiment configuration ({@code trainingService}, or
     * one element of it) beyond what the manager checks for every platform. Called before an
     * experiment is created and by {@code nni:validate}; never opens connections or starts
     * processes.
     *
     * @param section the section as parsed, with keys as the file wrote them and the common fields
     *                NNI copies into every platform section ({@code trialCommand},
     *                {@code trialCodeDirectory}, {@code trialGpuNumber}, {@code nniManagerIp},
     *                {@code debug}) already present
     * @return every problem found, with paths relative to the section; empty when it is valid
     */
    List<ConfigProblem> checkSection(Map<String, Object> section);

    /**
     * Opens a session for one experiment run. May check reachability (log in, query a cluster) and
     * fail fast, but must not start trials.
     *
     * @throws PlatformException when the platform cannot serve this experiment; the message is shown
     *                           to the user and the experiment does not start
     */
    TrainingSession open(SessionContext context) throws PlatformException;
}
