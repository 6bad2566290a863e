package nni.shell.internal.launch;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

import nni.api.experiment.ConfigCheck;
import nni.api.experiment.ExperimentService;

/**
 * {@code java -jar nni-osgi.jar validate <file>...}: prints {@code OK: <file>} or every problem, one
 * per line, plus a line per training-service section whose platform is not installed; exits 0 when
 * every file is valid, 1 otherwise, 2 on wrong usage.
 */
@Component(property = LaunchCommand.NAME + "=validate")
public class ValidateLaunchCommand implements LaunchCommand {

    private final ExperimentService experiments;

    @Activate
    public ValidateLaunchCommand(@Reference ExperimentService experiments) {
        this.experiments = experiments;
    }

    @Override
    public int execute(List<String> arguments, PrintStream out, PrintStream err) {
        if (arguments.isEmpty()) {
            err.println("usage: validate <experiment file>...");
            return 2;
        }
        int code = 0;
        for (String file : arguments) {
            ConfigCheck report = experiments.check(Path.of(file));
            (report.ok() ? out : err).println(String.join(System.lineSeparator(), report.lines()));
            if (!report.ok()) {
                code = 1;
            }
        }
        return code;
    }
}
