package nni.api.platform;

import java.nio.file.Path;
import java.util.Map;

import org.osgi.annotation.versioning.ConsumerType;

import nni.api.config.ConfigReader;
import nni.api.config.SectionCheck;

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
 * <li>One {@link TrainingSession} is opened per experiment member and run (create or resume, and
 *     again when this service comes back after it went away). The manager ends it with
 *     {@link TrainingSession#close()} when the user stops the experiment, and with
 *     {@link TrainingSession#detach()} when the runtime stops or when this service goes away (its
 *     bundle is stopped, updated or uninstalled, or its component is re-created for a new
 *     configuration): detach happens inside the unbind, while the service is still usable, and
 *     leaves the trials running. The experiment keeps them, waits, and when a service with the same
 *     name is registered again opens a new session and {@linkplain TrainingSession#reattach
 *     re-attaches} them with the handles they reported. So a platform bundle update does not
 *     touch running trials, and a platform must not cancel trials from {@code @Deactivate}.</li>
 * </ul>
 */
@ConsumerType
public interface TrainingPlatform {

    /** The service property that carries the platform name. */
    String PLATFORM = "nni.platform";

    /**
     * Checks this platform's section of an experiment configuration ({@code trainingService}, or
     * one element of it) by NNI's rules and returns it in canonical form. Called before an
     * experiment is created and by {@code nni:validate}; never opens connections or starts
     * processes. The manager has checked the common part of the file.
     *
     * <p>NNI's rules hold inside the section too: keys match ignoring case and underscores, unknown
     * keys are problems, typed fields get their defaults, paths are resolved against the config
     * file's directory. {@link ConfigReader} implements them; a check is usually a list of its field
     * calls ending with {@link ConfigReader#check()}.
     *
     * @param section       the section as parsed, with keys as the file wrote them and the common
     *                      fields NNI copies into every platform section ({@code trialCommand},
     *                      {@code trialCodeDirectory}, {@code trialGpuNumber}, {@code nniManagerIp},
     *                      {@code debug}) already present when the top level gives them
     * @param baseDirectory the config file's directory, where relative paths start
     * @return the canonical section (camelCase keys, defaults filled in, {@code platform} included),
     *         every problem found, with paths relative to the section, and the paths of the secrets
     *         in it ({@link SectionCheck#secrets()}: read every password, token and key with
     *         {@link ConfigReader#secret}, or the manager stores and serves it as written)
     */
    SectionCheck checkSection(Map<String, Object> section, Path baseDirectory);

    /**
     * Opens a session for one experiment run. May check reachability (log in, query a cluster) and
     * fail fast, but must not start trials.
     *
     * @throws PlatformException when the platform cannot serve this experiment; the message is shown
     *                           to the user and the experiment does not start
     */
    TrainingSession open(SessionContext context) throws PlatformException;
}
