package nni.ui.internal.api;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.nio.file.Path;

import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.Constants;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.framework.ServiceReference;
import org.osgi.service.cm.Configuration;
import org.osgi.service.cm.ConfigurationAdmin;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.runtime.ServiceComponentRuntime;
import org.osgi.service.component.runtime.dto.ComponentConfigurationDTO;
import org.osgi.service.component.runtime.dto.ComponentDescriptionDTO;
import org.osgi.service.metatype.AttributeDefinition;
import org.osgi.service.metatype.MetaTypeInformation;
import org.osgi.service.metatype.MetaTypeService;
import org.osgi.service.metatype.ObjectClassDefinition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import nni.api.experiment.PlatformSettingCheck;
import nni.api.platform.TrainingPlatform;
import nni.http.HttpError;

/**
 * Each platform component's configuration as a form, generated from its Metatype (the bundle's
 * {@code @ObjectClassDefinition}), and saved through Config Admin: the component is then
 * reconfigured by SCR as if {@code etc/<pid>.cfg} had changed. A form shows, per setting, what is
 * saved and what the running component has; secret (password) settings are never sent, only whether
 * they are set.
 *
 * <p>Needs the Metatype service ({@code org.apache.felix.metatype}); without it this component is
 * not active and the platforms page shows no forms.
 */
@Component(service = PlatformForms.class)
public class PlatformForms {

    private static final Logger LOG = LoggerFactory.getLogger(PlatformForms.class);
    /** The property FileInstall puts on a configuration it made from a file: that file's URL. */
    private static final String FILEINSTALL_FILENAME = "felix.fileinstall.filename";
    /** Properties Config Admin and FileInstall add themselves: not settings. */
    private static final Set<String> IMPLIED = Set.of(Constants.SERVICE_PID, ConfigurationAdmin.SERVICE_FACTORYPID,
            ConfigurationAdmin.SERVICE_BUNDLELOCATION, FILEINSTALL_FILENAME);

    private final BundleContext context;
    private final MetaTypeService metatype;
    private final ConfigurationAdmin configurations;
    private final ServiceComponentRuntime components;
    private final PlatformSettingCheck settings;

    @Activate
    public PlatformForms(BundleContext context, @Reference MetaTypeService metatype,
                         @Reference ConfigurationAdmin configurations, @Reference ServiceComponentRuntime components,
                         @Reference PlatformSettingCheck settings) {
        this.context = context;
        this.metatype = metatype;
        this.configurations = configurations;
        this.components = components;
        this.settings = settings;
    }

    /** A platform component and what describes its configuration. */
    private record Target(String pid, ObjectClassDefinition definition, ComponentDescriptionDTO description) {
    }

    /**
     * @return the form of the platform {@code name} provided by bundle {@code bundle}, or empty when
     *         its component has no configuration description
     */
    public Optional<Map<String, Object>> form(String name, String bundle) {
        return target(name, bundle).map(this::form);
    }

    /**
     * Saves settings of a platform's configuration through Config Admin (SCR then restarts the
     * component with them) and keeps them in {@code <home>/etc/<pid>.cfg}, so that they outlive the
     * runtime: the file is FileInstall's, which recognizes the configuration as its own and finds
     * nothing to change. Values are kept as text, as in any {@code .cfg} file. {@code values} maps
     * attribute ids to their new value (text, or a JSON number or boolean); a secret left empty
     * keeps its value.
     *
     * @return the form as it is after saving
     * @throws HttpError 404 for an unknown platform, 400 naming the setting for a value its type or
     *                   options refuse
     */
    public Map<String, Object> save(String name, String bundle, Map<String, Object> values) throws IOException {
        Target target = target(name, bundle).orElseThrow(() -> HttpError.notFound("platform '" + name + "' of bundle "
                + bundle + " has no configuration form"));
        Map<String, AttributeDefinition> attributes = new LinkedHashMap<>();
        for (AttributeDefinition attribute : attributes(target.definition())) {
            attributes.put(attribute.getID(), attribute);
        }
        Configuration configuration = existing(target.pid()).orElse(null);
        Map<String, String> settings = new TreeMap<>();
        if (configuration != null && configuration.getProperties() != null) {
            Dictionary<String, Object> current = configuration.getProperties();
            for (String key : Collections.list(current.keys())) {
                if (!IMPLIED.contains(key)) {
                    settings.put(key, text(current.get(key)));
                }
            }
        }
        for (Map.Entry<String, Object> entry : values.entrySet()) {
            AttributeDefinition attribute = attributes.get(entry.getKey());
            if (attribute == null) {
                throw HttpError.badRequest(entry.getKey() + ": not a setting of platform '" + name + "'; its settings: "
                        + attributes.keySet());
            }
            String text = entry.getValue() == null ? "" : String.valueOf(entry.getValue()).strip();
            if (attribute.getType() == AttributeDefinition.PASSWORD && text.isEmpty()) {
                continue;
            }
            check(attribute, text);
            settings.put(attribute.getID(), text);
        }
        Optional<Path> file = ConfigFile.of(context, target.pid());
        Dictionary<String, Object> properties = new Hashtable<>(settings);
        file.ifPresent(f -> properties.put(FILEINSTALL_FILENAME, f.toUri().toString()));
        if (configuration == null) {
            configuration = configurations.getConfiguration(target.pid(), "?");
        }
        if (configuration.updateIfDifferent(properties)) {
            LOG.info("configuration {} of platform '{}' changed from the web UI: {}", target.pid(), name,
                    shown(values.keySet(), attributes));
        }
        if (file.isPresent()) {
            ConfigFile.write(file.get(), settings);
        }
        return form(target);
    }

    private static String shown(Collection<String> keys, Map<String, AttributeDefinition> attributes) {
        List<String> shown = new ArrayList<>();
        for (String key : keys) {
            shown.add(attributes.get(key).getType() == AttributeDefinition.PASSWORD ? key + " (secret)" : key);
        }
        return String.join(", ", shown);
    }

    /**
     * Checks a setting's text against its type, options and Metatype's own validation.
     *
     * @throws HttpError 400 naming the setting when the text does not fit
     */
    private void check(AttributeDefinition attribute, String text) {
        if (attribute.getCardinality() != 0) {
            throw HttpError.badRequest(attribute.getID() + ": lists of values are not editable here");
        }
        String[] options = attribute.getOptionValues();
        // the runtime's rule for the type and options, then Metatype's own validation
        String problem = settings.problem(attribute.getType(), options == null ? List.of() : List.of(options), text)
                .orElseGet(() -> attribute.validate(text));
        if (problem != null && !problem.isEmpty()) {
            throw HttpError.badRequest(attribute.getID() + ": " + problem + ", got '" + text + "'");
        }
    }

    private Map<String, Object> form(Target target) {
        Optional<Configuration> configuration = existing(target.pid());
        Dictionary<String, Object> saved = configuration.map(Configuration::getProperties).orElse(null);
        Map<String, Object> running = running(target.description());
        Map<String, Object> form = new LinkedHashMap<>();
        form.put("pid", target.pid());
        form.put("name", target.definition().getName());
        form.put("description", target.definition().getDescription());
        Object file = saved == null ? null : saved.get(FILEINSTALL_FILENAME);
        form.put("file", file == null ? null : ConfigFile.path(String.valueOf(file)));
        List<Map<String, Object>> fields = new ArrayList<>();
        for (AttributeDefinition attribute : attributes(target.definition())) {
            boolean secret = attribute.getType() == AttributeDefinition.PASSWORD;
            String[] defaults = attribute.getDefaultValue();
            String fallback = defaults == null || defaults.length == 0 ? null : defaults[0];
            Object savedValue = saved == null ? null : saved.get(attribute.getID());
            Object runningValue = running == null ? null : running.getOrDefault(attribute.getID(), fallback);
            Map<String, Object> field = new LinkedHashMap<>();
            field.put("id", attribute.getID());
            field.put("name", attribute.getName());
            field.put("description", attribute.getDescription());
            field.put("type", typeOf(attribute.getType()));
            field.put("secret", secret);
            field.put("default", secret ? null : fallback);
            field.put("options", options(attribute));
            field.put("saved", secret ? (savedValue == null ? null : isSet(savedValue)) : text(savedValue));
            field.put("effective", secret ? (runningValue == null ? null : isSet(runningValue)) : text(runningValue));
            fields.add(field);
        }
        form.put("attributes", fields);
        form.put("active", running != null);
        return form;
    }

    /** @return the definition's attributes; none for one that has none (Metatype says null) */
    private static AttributeDefinition[] attributes(ObjectClassDefinition definition) {
        AttributeDefinition[] attributes = definition.getAttributeDefinitions(ObjectClassDefinition.ALL);
        return attributes == null ? new AttributeDefinition[0] : attributes;
    }

    private static boolean isSet(Object value) {
        return !String.valueOf(value).isEmpty();
    }

    private static String text(Object value) {
        if (value == null) {
            return null;
        }
        if (value instanceof Object[] array) {
            return String.join(",", java.util.Arrays.stream(array).map(String::valueOf).toList());
        }
        return String.valueOf(value);
    }

    private static List<Map<String, String>> options(AttributeDefinition attribute) {
        String[] values = attribute.getOptionValues();
        String[] labels = attribute.getOptionLabels();
        List<Map<String, String>> options = new ArrayList<>();
        if (values != null) {
            for (int i = 0; i < values.length; i++) {
                options.add(Map.of("value", values[i], "label", labels != null && i < labels.length ? labels[i] : values[i]));
            }
        }
        return options;
    }

    private static String typeOf(int type) {
        return switch (type) {
            case AttributeDefinition.INTEGER, AttributeDefinition.LONG, AttributeDefinition.SHORT, AttributeDefinition.BYTE -> "integer";
            case AttributeDefinition.DOUBLE, AttributeDefinition.FLOAT -> "number";
            case AttributeDefinition.BOOLEAN -> "boolean";
            case AttributeDefinition.PASSWORD -> "password";
            default -> "string";
        };
    }

    /** @return the properties of the component's configuration that is active now, or null when none is */
    private Map<String, Object> running(ComponentDescriptionDTO description) {
        for (ComponentConfigurationDTO configuration : components.getComponentConfigurationDTOs(description)) {
            if (configuration.state == ComponentConfigurationDTO.ACTIVE || configuration.state == ComponentConfigurationDTO.SATISFIED) {
                return configuration.properties;
            }
        }
        return null;
    }

    private Optional<Configuration> existing(String pid) {
        try {
            Configuration[] found = configurations.listConfigurations("(" + Constants.SERVICE_PID + "=" + escape(pid) + ")");
            return found == null || found.length == 0 ? Optional.empty() : Optional.of(found[0]);
        } catch (IOException | InvalidSyntaxException e) {
            LOG.warn("cannot read configuration {}: {}", pid, e.getMessage());
            return Optional.empty();
        }
    }

    private Optional<Target> target(String name, String bundleName) {
        Collection<ServiceReference<TrainingPlatform>> references;
        try {
            references = context.getServiceReferences(TrainingPlatform.class, "(" + TrainingPlatform.PLATFORM + "=" + escape(name) + ")");
        } catch (InvalidSyntaxException e) {
            return Optional.empty();
        }
        for (ServiceReference<TrainingPlatform> reference : references) {
            Bundle bundle = reference.getBundle();
            Object component = reference.getProperty("component.name");
            if (bundle == null || component == null || !bundle.getSymbolicName().equals(bundleName)) {
                continue;
            }
            ComponentDescriptionDTO description = components.getComponentDescriptionDTO(bundle, component.toString());
            if (description == null || description.configurationPid == null || description.configurationPid.length == 0) {
                continue;
            }
            String pid = description.configurationPid[0];
            MetaTypeInformation information = metatype.getMetaTypeInformation(bundle);
            String[] pids = information == null ? null : information.getPids();
            if (pids == null || !List.of(pids).contains(pid)) {
                continue;
            }
            ObjectClassDefinition definition = information.getObjectClassDefinition(pid, null);
            if (definition != null) {
                return Optional.of(new Target(pid, definition, description));
            }
        }
        return Optional.empty();
    }

    /** @return a value safe inside an LDAP filter */
    private static String escape(String value) {
        return value.replace("\\", "\\5c").replace("*", "\\2a").replace("(", "\\28").replace(")", "\\29");
    }
}
