package nni.manager.internal.launch;

import java.io.PrintStream;
import java.util.List;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

import nni.manager.internal.command.PlatformCommands;

/** {@code java -jar nni-osgi.jar version}: the versions {@code nni:version} shows, and the platforms. */
@Component(property = LaunchCommand.NAME + "=version")
public class VersionLaunchCommand implements LaunchCommand {

    private final PlatformCommands commands;

    @Activate
    public VersionLaunchCommand(@Reference PlatformCommands commands) {
        this.commands = commands;
    }

    @Override
    public int execute(List<String> arguments, PrintStream out, PrintStream err) {
        commands.version().forEach((what, version) -> out.println(what + ": " + version));
        out.println("platforms: " + String.join(", ", commands.platforms().stream().map(p -> p.name()).toList()));
        return 0;
    }
}
