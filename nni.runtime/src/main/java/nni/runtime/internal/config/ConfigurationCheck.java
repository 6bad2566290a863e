package nni.runtime.internal.config;

import java.net.URI;
import java.nio.file.FileSystemNotFoundException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Collections;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.Constants;
import org.osgi.framework.ServiceReference;
import org.osgi.service.cm.ConfigurationPlugin;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.metatype.AttributeDefinition;
import org.osgi.service.metatype.MetaTypeInformation;
import org.osgi.service.metatype.MetaTypeService;
import org.osgi.service.metatype.ObjectClassDefinition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import nni.api.experiment.ConfigurationRefusals;

/**
 * Checks every configuration against its Metatype before a component gets it (a Config Admin
 * plugin: SCR reads configurations through it): a value that is not of its type or not one of its
 * options ({@code kill.grace.seconds=abc}, {@code python.sdk=sometimes}) is reported once, naming
 * the file, the key and what it accepts, and the component gets the last configuration of that PID
 * that was valid (the defaults when there was none) rather than failing with a stack trace. The
 * files refused so far are kept ({@link #refusals()}): a one-shot command does not run on a
 * runtime configured otherwise than its files say.
 */
// immediate: what was valid is remembered across calls (a delayed component would be disposed after each)
@Component(immediate = true, service = {ConfigurationPlugin.class, ConfigurationCheck.class, ConfigurationRefusals.class}, property = {ConfigurationPlugin.CM_RANKING + ":Integer=100", "config.plugin.id=nni.configuration.check"})
public class ConfigurationCheck implements ConfigurationPlugin, ConfigurationRefusals {

    private static final Logger LOG = LoggerFactory.getLogger(ConfigurationCheck.class);
    /** Set by FileInstall on the configurations it reads from etc/: the file's URL. */
    private static final String FILE = "felix.fileinstall.filename";
    private static final Set<String> FRAMEWORK_KEYS = Set.of(Constants.SERVICE_PID, "service.factoryPid", "service.bundleLocation",
            FILE, "component.name", "component.id");

    private final BundleContext context;
    private final MetaTypeService metatype;
    /** Per PID: the last valid properties, and the problems last reported (so that each is reported once). */
    private final Map<String, Dictionary<String, Object>> lastValid = new ConcurrentHashMap<>();
    private final Map<String, String> reported = new ConcurrentHashMap<>();
    /** Per PID read from a file: the file and its refused values, until a valid configuration of that PID comes. */
    private final Map<String, Refusal> refused = new ConcurrentHashMap<>();

    /** A configuration file with values that were refused: its path, and each bad key with what it accepts. */
    public record Refusal(Path file, String problems) {
    }

    @Activate
    public ConfigurationCheck(BundleContext context, @Reference MetaTypeService metatype) {
        this.context = context;
        this.metatype = metatype;
    }

    @Override
    public void modifyConfiguration(ServiceReference<?> reference, Dictionary<String, Object> properties) {
        Object pidValue = properties.get(Constants.SERVICE_PID);
        Object factoryPid = properties.get("service.factoryPid");
        String pid = String.valueOf(factoryPid != null ? factoryPid : pidValue);
        ObjectClassDefinition definition = definition(pid);
        if (definition == null) {
            return;
        }
        String problems = problems(definition, properties);
        String key = String.valueOf(pidValue);
        if (problems.isEmpty()) {
            lastValid.put(key, copy(properties));
            reported.remove(key);
            refused.remove(key);
            return;
        }
        Dictionary<String, Object> previous = lastValid.get(key);
        Path file = file(properties.get(FILE));
        if (file != null) {
            refused.put(key, new Refusal(file, problems));
        }
        if (!problems.equals(reported.put(key, problems))) {
            LOG.error("{}: {}; {} keeps {}", file == null ? "configuration " + key : file,
                    problems, definition.getName(), previous == null ? "its defaults" : "its previous configuration");
        }
        // the component gets what worked before: the bad keys' old values, or their defaults
        for (String name : Collections.list(properties.keys())) {
            if (!FRAMEWORK_KEYS.contains(name)) {
                properties.remove(name);
            }
        }
        if (previous != null) {
            for (String name : Collections.list(previous.keys())) {
                if (!FRAMEWORK_KEYS.contains(name)) {
                    properties.put(name, previous.get(name));
                }
            }
        }
    }

    @Override
    public Map<Path, String> refusals() {
        Map<Path, String> byFile = new LinkedHashMap<>();
        refused.values().forEach(refusal -> byFile.put(refusal.file(), refusal.problems()));
        return byFile;
    }

    /** @return the file FileInstall read a configuration from ({@value #FILE}, a URL), or null */
    private static Path file(Object url) {
        if (url == null) {
            return null;
        }
        try {
            return Path.of(URI.create(String.valueOf(url)));
        } catch (IllegalArgumentException | FileSystemNotFoundException e) {
            return Path.of(String.valueOf(url).replaceFirst("^file:", ""));
        }
    }

    /** @return every bad value as {@code key: expected ..., got "..."} joined with "; ", or empty */
    static String problems(ObjectClassDefinition definition, Dictionary<String, Object> properties) {
        StringBuilder problems = new StringBuilder();
        AttributeDefinition[] attributes = definition.getAttributeDefinitions(ObjectClassDefinition.ALL);
        for (AttributeDefinition attribute : attributes == null ? new AttributeDefinition[0] : attributes) {
            Object value = properties.get(attribute.getID());
            if (value == null || value.getClass().isArray() || value instanceof java.util.Collection) {
                continue;
            }
            String problem = SettingCheck.problem(attribute, String.valueOf(value).strip());
            if (problem != null) {
                problems.append(problems.length() == 0 ? "" : "; ").append(attribute.getID()).append(": ").append(problem)
                        .append(", got \"").append(value).append('"');
            }
        }
        return problems.toString();
    }

    /** @return the Metatype of a PID, from whichever bundle declares it; null when none does */
    private ObjectClassDefinition definition(String pid) {
        for (Bundle bundle : context.getBundles()) {
            MetaTypeInformation information = metatype.getMetaTypeInformation(bundle);
            if (information == null) {
                continue;
            }
            String[] pids = information.getPids();
            String[] factories = information.getFactoryPids();
            if ((pids != null && Arrays.asList(pids).contains(pid)) || (factories != null && Arrays.asList(factories).contains(pid))) {
                return information.getObjectClassDefinition(pid, null);
            }
        }
        return null;
    }

    private static Dictionary<String, Object> copy(Dictionary<String, Object> properties) {
        Hashtable<String, Object> copy = new Hashtable<>();
        for (String name : Collections.list(properties.keys())) {
            copy.put(name, properties.get(name));
        }
        return copy;
    }
}
