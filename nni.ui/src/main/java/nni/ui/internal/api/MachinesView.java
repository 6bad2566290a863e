package nni.ui.internal.api;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

import nni.api.experiment.ExperimentInfo;
import nni.api.experiment.ExperimentMember;
import nni.api.experiment.ExperimentReading;
import nni.api.platform.SessionView;
import nni.api.platform.TrainingSession;

/**
 * The machines page: every open experiment's platform sessions, each with its state and the
 * machines it shows ({@link TrainingSession#view()}: GPUs with utilisation, memory and the trials
 * placed on them, as last read). Sessions answer from what they last read, so the page costs no
 * round trip to any machine; an experiment opened only for reading has no session and is left out. Read through the experiments'
 * readings ({@link ExperimentReading#members()}).
 */
final class MachinesView {

    private MachinesView() {
    }

    /** @return {@code {sessions: [...]}}, one row per member of each experiment that runs */
    static Map<String, Object> of(List<ExperimentReading> open) {
        List<Map<String, Object>> sessions = new ArrayList<>();
        for (ExperimentReading experiment : open) {
            List<ExperimentMember> members = experiment.members();
            if (members.isEmpty()) {
                continue;
            }
            ExperimentInfo info = experiment.info();
            for (ExperimentMember member : members) {
                sessions.add(session(info.id(), info.name().orElse(null), member));
            }
        }
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("sessions", sessions);
        return answer;
    }

    /**
     * @return {@code {experiment, experimentName, member, platform, state, detail, machines: [{name, readAt,
     *         problem, gpus: [{index, utilization, memoryUsedMiB, memoryTotalMiB, trials}]}]}}; {@code state}
     *         is {@code open}, {@code away} (its platform is gone; {@code detail} says why) or {@code opening}
     */
    static Map<String, Object> session(String experimentId, String experimentName, ExperimentMember member) {
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("experiment", experimentId);
        row.put("experimentName", experimentName);
        row.put("member", member.index());
        row.put("platform", member.platform());
        List<Map<String, Object>> machines = new ArrayList<>();
        row.put("state", member.state().name().toLowerCase(Locale.ROOT));
        if (member.state() == ExperimentMember.State.OPEN) {
            Optional<SessionView> view = member.view();
            // a platform's bug shows on its own row, never as a page that fails whole
            row.put("detail", member.viewFailure().map(failure -> "the session's view failed: " + failure)
                    .orElse(view.flatMap(SessionView::state).orElse(null)));
            view.ifPresent(shown -> shown.machines().forEach(machine -> machines.add(machine(machine))));
        } else {
            row.put("detail", member.away().orElse(null));
        }
        row.put("machines", machines);
        return row;
    }

    private static Map<String, Object> machine(SessionView.Machine machine) {
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("name", machine.name());
        row.put("readAt", machine.readAt().map(at -> at.toEpochMilli()).orElse(null));
        row.put("problem", machine.problem().orElse(null));
        List<Map<String, Object>> gpus = new ArrayList<>();
        for (SessionView.Gpu gpu : machine.gpus()) {
            Map<String, Object> shown = new LinkedHashMap<>();
            shown.put("index", gpu.index());
            shown.put("utilization", gpu.utilization().isPresent() ? gpu.utilization().getAsInt() : null);
            shown.put("memoryUsedMiB", gpu.memoryUsedMiB().isPresent() ? gpu.memoryUsedMiB().getAsLong() : null);
            shown.put("memoryTotalMiB", gpu.memoryTotalMiB().isPresent() ? gpu.memoryTotalMiB().getAsLong() : null);
            shown.put("trials", gpu.trials());
            gpus.add(shown);
        }
        row.put("gpus", gpus);
        return row;
    }
}
