package nni.shell.internal.command;

import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import nni.api.experiment.TrialEvent;

/**
 * What {@code nni:explog} shows: the experiment's own log ({@code log/nnimanager.log}) and its
 * trials' state changes (the store's {@code TrialJobEvent} rows), in time order, each change as a
 * line in the log's format ({@code 2026-01-01 10:00:00.000 TRIAL   trial abc12 #3 RUNNING}). A log
 * line without a time of its own (a stack trace's) stays with the line before it.
 */
final class ExperimentTimeline {

    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss.SSS");
    private static final int TIME_LENGTH = "yyyy-MM-dd HH:mm:ss.SSS".length();

    private ExperimentTimeline() {
    }

    private record Entry(long millis, List<String> lines) {
    }

    /** @return the log's lines and one line per trial event, by time (a log line first at the same millisecond) */
    static List<String> lines(List<String> log, List<TrialEvent> events, ZoneId zone) {
        List<Entry> entries = new ArrayList<>();
        for (String line : log) {
            Long millis = time(line, zone);
            if (millis == null && !entries.isEmpty()) {
                entries.get(entries.size() - 1).lines().add(line);
            } else {
                entries.add(new Entry(millis == null ? Long.MIN_VALUE : millis, new ArrayList<>(List.of(line))));
            }
        }
        Map<String, Long> sequences = new HashMap<>();
        for (TrialEvent event : events) {
            if (event.sequenceId() >= 0) {
                sequences.putIfAbsent(event.trialId(), event.sequenceId());
            }
            Long sequence = sequences.get(event.trialId());
            String message = event.message().filter(text -> !text.isBlank()).map(text -> ": " + text.strip()).orElse("");
            String line = String.format("%s %-7s trial %s%s %s%s",
                    TIME.format(event.timestamp().atZone(zone)), "TRIAL", event.trialId(),
                    sequence == null ? "" : " #" + sequence, event.event(), message);
            entries.add(new Entry(event.timestamp().toEpochMilli(), List.of(line)));
        }
        // stable: each source keeps its own order, and the log comes first at equal times
        entries.sort(Comparator.comparingLong(Entry::millis));
        List<String> lines = new ArrayList<>();
        entries.forEach(entry -> lines.addAll(entry.lines()));
        return lines;
    }

    private static Long time(String line, ZoneId zone) {
        if (line.length() < TIME_LENGTH || !Character.isDigit(line.charAt(0))) {
            return null;
        }
        try {
            return LocalDateTime.parse(line.substring(0, TIME_LENGTH), TIME).atZone(zone).toInstant().toEpochMilli();
        } catch (DateTimeParseException e) {
            return null;
        }
    }
}
