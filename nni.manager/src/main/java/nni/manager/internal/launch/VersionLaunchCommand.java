package nni.manager.internal.launch;

import java.io.PrintStream;
import java.util.List;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

import nni.manager.internal.command.PlatformCommands;
import nni.manager.internal.registry.PlatformInfo;
import nni.manager.internal.registry.PlatformRegistry;

/** {@code java -jar nni-osgi.jar version}: the versions {@code nni:version} shows, and the platforms. */
@Component(property = LaunchCommand.NAME + "=version")
public class VersionLaunchCommand implements LaunchCommand {

    private final PlatformCommands commands;
    private final PlatformRegistry platforms;

    @Activate
    public VersionLaunchCommand(@Reference PlatformCommands commands, @Reference PlatformRegistry platforms) {
        this.commands = commands;
        this.platforms = platforms;
    }

    @Override
    public int execute(List<String> arguments, PrintStream out, PrintStream err) {
        commands.version().forEach((what, version) -> out.println(what + ": " + version));
        out.println("platforms: " + String.join(", ", platforms.platforms().stream().map(PlatformInfo::name).toList()));
        return 0;
    }

    @Override
    public boolean needsReadyRuntime() {
        return false;
    }
}
