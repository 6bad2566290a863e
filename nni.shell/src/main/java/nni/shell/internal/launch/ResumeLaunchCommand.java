package nni.shell.internal.launch;

import java.io.PrintStream;
import java.util.List;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

import nni.api.experiment.ExperimentInfo;
import nni.api.experiment.ExperimentService;
import nni.api.experiment.Outcome;

/**
 * {@code java -jar nni-osgi.jar resume <id>}: continues a stopped or crashed experiment (trials
 * still running are taken back) and follows it to its end like {@code run}.
 */
@Component(property = LaunchCommand.NAME + "=resume")
public class ResumeLaunchCommand implements LaunchCommand {

    private final ExperimentService experiments;
    private final WebUiAddress webUi;

    @Activate
    public ResumeLaunchCommand(@Reference ExperimentService experiments, @Reference WebUiAddress webUi) {
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
        ExperimentInfo experiment;
        try {
            Outcome<ExperimentInfo> resumed = experiments.resume(arguments.get(0));
            if (!resumed.isDone()) {
                err.println("nni-osgi: resume: " + resumed.refusal().orElseThrow().message());
                return 1;
            }
            experiment = resumed.value();
        } catch (java.io.IOException | nni.api.platform.PlatformException e) {
            // an experiment whose creation was interrupted is cleaned up and said so as an IOException
            err.println("nni-osgi: resume: " + e.getMessage());
            return 1;
        }
        out.println("experiment " + experiment.id() + " resumed with " + experiment.trialsWhenOpened() + " trials so far");
        webUi.of(experiment.id()).ifPresent(address -> out.println("web UI: " + address));
        return RunLaunchCommand.follow(experiments, experiment.id(), out, err);
    }
}
