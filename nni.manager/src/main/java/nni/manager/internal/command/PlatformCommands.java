package nni.manager.internal.command;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.felix.service.command.Descriptor;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.FrameworkUtil;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

import nni.api.platform.TrainingPlatform;
import nni.manager.internal.registry.PlatformInfo;
import nni.manager.internal.registry.PlatformRegistry;

/** Gogo commands about the runtime itself: {@code nni:platforms}, {@code nni:version}. */
@Component(service = PlatformCommands.class, property = {
        "osgi.command.scope=nni",
        "osgi.command.function=platforms",
        "osgi.command.function=version"})
public class PlatformCommands {

    private final PlatformRegistry registry;
    private final BundleContext context;

    @Activate
    public PlatformCommands(@Reference PlatformRegistry registry, BundleContext context) {
        this.registry = registry;
        this.context = context;
    }

    @Descriptor("lists the installed training platforms: name, bundle, version, state, open sessions")
    public List<PlatformInfo> platforms() {
        return registry.platforms();
    }

    @Descriptor("shows the versions of the manager, the platform SPI, the framework and Java")
    public Map<String, String> version() {
        Bundle manager = context.getBundle();
        Bundle api = FrameworkUtil.getBundle(TrainingPlatform.class);
        Bundle framework = context.getBundle(0);
        Map<String, String> versions = new LinkedHashMap<>();
        versions.put("manager", manager.getVersion().toString());
        versions.put("api", api == null ? "?" : api.getVersion().toString());
        versions.put("framework", framework.getSymbolicName() + " " + framework.getVersion());
        versions.put("java", System.getProperty("java.version"));
        return versions;
    }
}
