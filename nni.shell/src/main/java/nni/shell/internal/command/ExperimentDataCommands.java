package nni.shell.internal.command;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.apache.felix.service.command.Descriptor;
import org.apache.felix.service.command.Parameter;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

import nni.api.experiment.ExperimentService;

/**
 * What {@code nnictl experiment export|import|delete} do, as Gogo commands: {@code nni:export},
 * {@code nni:import} (also {@code nni:importdata}, which {@code help} can describe), {@code nni:delete}.
 */
@Component(service = ExperimentDataCommands.class, property = {
        "osgi.command.scope=nni",
        "osgi.command.function=export", "osgi.command.function=import", "osgi.command.function=importdata",
        "osgi.command.function=delete"})
public class ExperimentDataCommands {

    private final ExperimentService service;

    @Activate
    public ExperimentDataCommands(@Reference ExperimentService service) {
        this.service = service;
    }

    @Descriptor("writes an experiment's results to a file as nnictl experiment export does: a row per succeeded trial "
            + "with its parameters and final result (JSON, or CSV with a column per parameter and result)")
    public String export(
            @Descriptor("json (default) or csv") @Parameter(names = {"-t", "--type"}, absentValue = "json") String type,
            @Descriptor("add each trial's intermediate results") @Parameter(names = {"-i", "--intermediate"},
                    presentValue = "true", absentValue = "false") boolean intermediate,
            @Descriptor("experiment id (open or stored)") String id,
            @Descriptor("the file to write") String file) throws IOException {
        String kind = type.toLowerCase(Locale.ROOT);
        if (!kind.equals("json") && !kind.equals("csv")) {
            throw new IllegalArgumentException("--type: expected json or csv, got '" + type + "'");
        }
        List<Map<String, Object>> rows = ConsoleAnswers.of(service.exportData(id, intermediate));
        Path target = ClientSide.file(file);
        Files.writeString(target, kind.equals("json") ? ExportFiles.json(rows) : ExportFiles.csv(rows), StandardCharsets.UTF_8);
        return "experiment " + id + ": " + rows.size() + " trials exported to " + target;
    }

    @Descriptor("feeds results of trials run elsewhere to a running experiment's tuner, as nnictl experiment import "
            + "does (also as nni:import): a JSON file with a list of {\"parameter\": {...}, \"value\": ...}, what nni:export writes")
    public String importdata(@Descriptor("experiment id (open)") String id,
                             @Descriptor("the JSON file of results") String file) throws IOException {
        int imported = ConsoleAnswers.of(service.importData(id, Files.readString(ClientSide.file(file), StandardCharsets.UTF_8)));
        return "experiment " + id + ": " + imported + " results given to the tuner";
    }

    /**
     * {@code nni:import}, nnictl's name: Gogo calls a function named like a Java keyword through a
     * method with a leading underscore, which its {@code help} cannot find; {@code help nni:importdata}
     * shows the description.
     */
    public String _import(String id, String file) throws IOException {
        return importdata(id, file);
    }

    @Descriptor("deletes a stopped experiment as nnictl experiment delete does: its folder (database, logs, trial outputs) and its entry in NNI's "
            + "experiment registry; this cannot be undone")
    public String delete(@Descriptor("experiment id (not open: nni:halt it first)") String id) throws IOException {
        Path directory = ConsoleAnswers.of(service.delete(id));
        return "experiment " + id + " deleted (" + directory + ")";
    }
}
