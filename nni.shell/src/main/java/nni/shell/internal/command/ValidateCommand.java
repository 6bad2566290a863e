package nni.shell.internal.command;

import java.util.List;

import org.apache.felix.service.command.Descriptor;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

import nni.api.experiment.ExperimentService;

/** Gogo command {@code nni:validate <file>}: checks an experiment file without creating anything. */
@Component(service = ValidateCommand.class, property = {
        "osgi.command.scope=nni",
        "osgi.command.function=validate"})
public class ValidateCommand {

    private final ExperimentService experiments;

    @Activate
    public ValidateCommand(@Reference ExperimentService experiments) {
        this.experiments = experiments;
    }

    @Descriptor("checks an NNI experiment file (v2 or v1): prints OK or every problem as file:line:col: path: message")
    public List<String> validate(@Descriptor("the experiment file (YAML or JSON)") String file) {
        return experiments.check(ClientSide.file(file)).lines();
    }
}
