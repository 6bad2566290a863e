package nni.shell.internal.command;

import static org.junit.Assert.assertEquals;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;

import org.junit.Test;

import nni.api.experiment.TrialEvent;

/** Issue 29: nni:explog interleaves the experiment's log with its trials' state changes, by time. */
public class ExperimentTimelineTest {

    private static final ZoneId ZONE = ZoneOffset.ofHours(2);

    private static Instant at(String localTime) {
        return LocalDateTime.parse("2026-01-01T" + localTime).atZone(ZONE).toInstant();
    }

    @Test
    public void logLinesAndTrialEventsInTimeOrder() {
        List<String> log = List.of(
                "2026-01-01 10:00:00.000 INFO    [nni.manager] experiment abc created in /x",
                "2026-01-01 10:00:05.000 WARNING [nni.manager] trial t1 is slow",
                "java.lang.IllegalStateException: slow",
                "\tat somewhere",
                "2026-01-01 10:00:09.000 INFO    [nni.manager] experiment abc DONE");
        List<TrialEvent> events = List.of(
                TrialEvent.builder(at("10:00:01"), "t1", "WAITING").sequenceId(0).build(),
                TrialEvent.builder(at("10:00:02"), "t1", "RUNNING").message("").build(),
                TrialEvent.builder(at("10:00:08"), "t1", "FAILED").message("exit code 3").build());
        assertEquals(List.of(
                "2026-01-01 10:00:00.000 INFO    [nni.manager] experiment abc created in /x",
                "2026-01-01 10:00:01.000 TRIAL   trial t1 #0 WAITING",
                "2026-01-01 10:00:02.000 TRIAL   trial t1 #0 RUNNING",
                "2026-01-01 10:00:05.000 WARNING [nni.manager] trial t1 is slow",
                "java.lang.IllegalStateException: slow",
                "\tat somewhere",
                "2026-01-01 10:00:08.000 TRIAL   trial t1 #0 FAILED: exit code 3",
                "2026-01-01 10:00:09.000 INFO    [nni.manager] experiment abc DONE"),
                ExperimentTimeline.lines(log, events, ZONE));
    }

    @Test
    public void anExperimentWithoutALogStillShowsItsTrials() {
        assertEquals(List.of("2026-01-01 10:00:01.000 TRIAL   trial t2 USER_TO_CANCEL"),
                ExperimentTimeline.lines(List.of(), List.of(TrialEvent.builder(at("10:00:01"), "t2", "USER_TO_CANCEL").build()),
                        ZONE));
    }
}
