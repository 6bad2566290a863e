package nni.manager.internal.registry;

import java.util.Map;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;

import nni.api.config.ConfigFormat;
import nni.config.ExperimentConfigLoader;

/**
 * The experiment files' loader (bundle nni.config) with what is installed: the platforms that check
 * their sections, the choice of what runs the algorithms, and the file formats, bound as their
 * bundles come and go (one coming or going changes which files load, not a loading under way).
 */
@Component(service = ConfigLoading.class)
public class ConfigLoading {

    private final ExperimentConfigLoader loader;

    @Activate
    public ConfigLoading(@Reference PlatformRegistry platforms, @Reference AlgorithmRegistry algorithms) {
        loader = new ExperimentConfigLoader(platforms::find, algorithms::choose, platforms::names);
    }

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    void addFormat(ConfigFormat format, Map<String, Object> properties) {
        loader.addFormat(format, properties);
    }

    void removeFormat(ConfigFormat format) {
        loader.removeFormat(format);
    }

    /** @return the loader, thread-safe */
    public ExperimentConfigLoader loader() {
        return loader;
    }
}
