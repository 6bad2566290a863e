package nni.shell.internal.command;

import java.io.IOException;
import java.io.PrintStream;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;

import nni.api.experiment.ExperimentInfo;
import nni.api.experiment.ExperimentReading;
import nni.api.experiment.ExperimentService;
import nni.api.experiment.ExperimentSummary;
import nni.api.experiment.Outcome;

/**
 * {@code nni:top}'s screen: a block of a time line and a line per open experiment. On a terminal
 * the block is redrawn in place (the cursor goes back up over the last block, which is cleared),
 * its lines wrapped to the terminal's width so that the rows to go back over are known. Elsewhere
 * (a pipe, a file) a block is printed only when something in it changed beyond the clocks: the
 * status, the counts or the best result of an experiment.
 */
final class TopView {

    private static final long MAX_REFRESHES = 86_400;
    private static final String ESC = "\u001b[";

    private final ExperimentService service;
    private final PrintStream out;
    private final OptionalInt columns;
    private int rowsShown;
    private List<Object> stateShown;

    /** @param columns the terminal's width, empty when the output is not a terminal */
    TopView(ExperimentService service, PrintStream out, OptionalInt columns) {
        this.service = service;
        this.out = out;
        this.columns = columns;
    }

    /** Shows the open experiments every {@code interval} seconds until they all settled, or once. */
    void run(int interval, boolean once) throws IOException, InterruptedException {
        for (long refresh = 0; refresh < MAX_REFRESHES; refresh++) {
            List<ExperimentInfo> experiments = new ArrayList<>();
            List<String> lines = new ArrayList<>();
            List<Object> state = new ArrayList<>();
            for (ExperimentInfo listed : service.list()) {
                Outcome<ExperimentReading> read = service.read(listed.id());
                if (!read.isDone()) { // deleted since listed
                    continue;
                }
                try (ExperimentReading reading = read.value()) {
                    if (!reading.open()) { // stopped since listed: no longer one of the open ones
                        continue;
                    }
                    ExperimentInfo experiment = reading.info();
                    ExperimentSummary summary = reading.summary();
                    experiments.add(experiment);
                    lines.add(summary.progressLine());
                    state.add(Arrays.asList(experiment.id(), experiment.status(), summary.byStatus(), summary.best()));
                }
            }
            if (experiments.isEmpty()) {
                lines.add("no experiment is open");
            }
            String time = "--- " + Instant.now().toString().substring(11, 19) + " ---";
            if (columns.isPresent()) {
                redraw(time + (once ? "" : " (Ctrl-C leaves)"), lines, columns.getAsInt());
            } else if (!state.equals(stateShown)) {
                out.println(time);
                lines.forEach(out::println);
                stateShown = state;
            }
            if (once || experiments.stream().allMatch(ExperimentInfo::settled)) {
                return;
            }
            TimeUnit.SECONDS.sleep(Math.max(1, interval));
        }
    }

    private void redraw(String time, List<String> lines, int width) {
        StringBuilder block = new StringBuilder();
        if (rowsShown > 0) {
            block.append('\r').append(ESC).append(rowsShown).append('A').append(ESC).append('J');
        }
        List<String> rows = new ArrayList<>(wrap(time, width));
        lines.forEach(line -> rows.addAll(wrap(line, width)));
        rows.forEach(row -> block.append(row).append('\n'));
        out.print(block);
        out.flush();
        rowsShown = rows.size();
    }

    /**
     * @return the line as rows of fewer than {@code width} characters, broken at spaces where it can
     *         (a row as wide as the terminal would leave the cursor at its end, where terminals differ)
     */
    static List<String> wrap(String line, int width) {
        int room = Math.max(10, width - 1);
        List<String> rows = new ArrayList<>();
        String rest = line.stripTrailing();
        while (rest.length() > room) {
            int cut = rest.lastIndexOf(' ', room);
            if (cut <= 0) {
                cut = room;
            }
            rows.add(rest.substring(0, cut).stripTrailing());
            rest = rest.substring(cut).stripLeading();
        }
        rows.add(rest);
        return rows;
    }
}
