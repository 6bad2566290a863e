package nni.manager.internal.launch;

import java.io.PrintStream;
import java.util.List;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

import nni.manager.internal.experiment.Experiment;
import nni.manager.internal.experiment.ExperimentManager;

/**
 * {@code java -jar nni-osgi.jar resume <id>}: continues a stopped or crashed experiment (trials
 * still running are taken back) and follows it to its end like {@code run}.
 */
@Component(property = LaunchCommand.NAME + "=resume")
public class ResumeLaunchCommand implements LaunchCommand {

    private final ExperimentManager experiments;
    private final WebUiAddress webUi;

    @Activate
    public ResumeLaunchCommand(@Reference ExperimentManager experiments, @Reference WebUiAddress webUi) {
        this.experiments = experiments;
        this.webUi = webUi;
    }

    @Override
    public int execute(List<String> arguments, PrintStream out, PrintStream err) throws Exception {
        if (arguments.size() != 1) {
            err.println("usage: java -jar nni-osgi.jar resume <experiment id>   (experiments under "
                    + experiments.root() + ")");
            return 2;
        }
        Experiment experiment;
        try {
            experiment = experiments.resume(arguments.get(0));
        } catch (java.io.IOException | nni.api.platform.PlatformException | IllegalArgumentException | IllegalStateException e) {
            err.println("nni-osgi: resume: " + e.getMessage());
            return 1;
        }
        out.println("experiment " + experiment.id() + " resumed with " + experiment.trialsWhenOpened() + " trials so far");
        webUi.of(experiment.id()).ifPresent(address -> out.println("web UI: " + address));
        return RunLaunchCommand.follow(experiments, experiment, out, err);
    }
}
