package nni.shell.internal.console;

import java.io.PrintStream;
import java.util.List;

import org.apache.felix.service.command.CommandProcessor;
import org.apache.felix.service.command.CommandSession;
import org.osgi.framework.BundleContext;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

import nni.shell.internal.launch.LaunchCommand;

/**
 * {@code java -jar nni-osgi.jar client LINE} when no runtime runs with the home: the launcher
 * starts a quiet runtime of its own, and the line (one argument, quoted and with file names made
 * absolute by the launcher) runs in its console as it would in a running one's.
 */
@Component(property = LaunchCommand.NAME + "=client")
public class ClientLaunchCommand implements LaunchCommand {

    private final CommandProcessor processor;
    private final LineRunner runner;

    @Activate
    public ClientLaunchCommand(BundleContext context, @Reference CommandProcessor processor) {
        this.processor = processor;
        this.runner = new LineRunner(new CommandHelp(context));
    }

    @Override
    public int execute(List<String> arguments, PrintStream out, PrintStream err) {
        CommandSession session = processor.createSession(System.in, out, err);
        try {
            return runner.run(session, String.join(" ", arguments), out, err);
        } finally {
            session.close();
        }
    }
}
