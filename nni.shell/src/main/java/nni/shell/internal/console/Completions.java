package nni.shell.internal.console;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import nni.api.experiment.ExperimentInfo;
import nni.api.experiment.ExperimentService;
import nni.api.experiment.Outcome;
import nni.api.experiment.TrialInfo;
import nni.api.model.TrialStatus;

/**
 * What Tab offers for the word being typed: command names first, then by command experiment ids
 * (open and stored), trial ids of the open experiments, and the few words some options take. File
 * names are the client's to complete (they are in its folder, not the runtime's).
 */
final class Completions {

    private static final Set<String> TRIAL_COMMANDS = Set.of("trial", "cancel", "output");
    private static final Set<String> EXPERIMENT_COMMANDS = Set.of("resume", "view", "halt", "change", "export", "import",
            "importdata", "delete", "explog");

    private final CommandHelp help;
    private final ExperimentService experiments;

    Completions(CommandHelp help, ExperimentService experiments) {
        this.help = help;
        this.experiments = experiments;
    }

    /**
     * @param words the words before the cursor; the last is the one being completed (empty after a space)
     * @return the candidates that start with it
     */
    List<String> candidates(List<String> words) {
        String typed = words.isEmpty() ? "" : words.get(words.size() - 1);
        Set<String> offered = new LinkedHashSet<>();
        if (words.size() <= 1) {
            for (String name : help.commands().keySet()) {
                if (name.equals("nni:_import")) {
                    continue;
                }
                offered.add(name);
                if (name.startsWith("nni:")) {
                    offered.add(name.substring(4)); // NNI's commands answer unqualified too
                }
            }
            offered.add("help");
        } else {
            String command = words.get(0).startsWith("nni:") ? words.get(0).substring(4) : words.get(0);
            String previous = words.get(words.size() - 2);
            if (previous.equals("--experiment")) {
                offered.addAll(experimentIds());
            } else if (previous.equals("--status")) {
                for (TrialStatus status : TrialStatus.values()) {
                    offered.add(status.name());
                }
            } else if (previous.equals("--sort")) {
                offered.addAll(List.of("sequence", "id", "status", "result", "duration"));
            } else if (command.equals("output") && words.size() == 3) {
                offered.addAll(ExperimentService.TRIAL_FILES);
            } else if (TRIAL_COMMANDS.contains(command)) {
                for (ExperimentInfo open : experiments.list()) {
                    // one stopped since the list was taken has no trials to offer
                    Outcome<List<TrialInfo>> trials = experiments.trials(open.id());
                    if (trials.isDone()) {
                        trials.value().forEach(trial -> offered.add(trial.job().id()));
                    }
                }
            } else if (EXPERIMENT_COMMANDS.contains(command)) {
                offered.addAll(experimentIds());
            } else if (command.equals("trials")) {
                offered.addAll(List.of("--status", "--experiment", "--sort", "--head", "--tail"));
                offered.addAll(experimentIds()); // nni:trials ID, as --experiment ID
            }
        }
        List<String> matching = new ArrayList<>();
        for (String candidate : offered) {
            if (candidate.startsWith(typed)) {
                matching.add(candidate);
            }
        }
        return matching;
    }

    private Set<String> experimentIds() {
        Set<String> ids = new LinkedHashSet<>();
        experiments.list().forEach(open -> ids.add(open.id()));
        ids.addAll(experiments.stored());
        return ids;
    }
}
