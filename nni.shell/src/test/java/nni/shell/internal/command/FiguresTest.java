package nni.shell.internal.command;

import static org.junit.Assert.assertEquals;

import java.time.Duration;

import org.junit.Test;

import nni.manager.internal.experiment.Progress;

/**
 * The console's tables write numbers and durations as the engine's progress line does (nni:top and
 * nni:trials side by side must agree); the shell keeps its own copy so that it needs no engine class.
 */
public class FiguresTest {

    @Test
    public void numbersAreWrittenAsTheProgressLineWritesThem() {
        double[] values = {0, -0.0, 1, -3, 0.5, 0.123456789, 1e-9, 123456.789, 1e14, 1e15, 1e300, -2.5e-3, Double.NaN,
                Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY};
        for (double value : values) {
            assertEquals(String.valueOf(value), Progress.format(value), Figures.number(value));
        }
        assertEquals("0.930000", Figures.number(0.93));
        assertEquals("42", Figures.number(42.0));
    }

    @Test
    public void durationsAreWrittenAsTheProgressLineWritesThem() {
        for (Duration duration : new Duration[] {Duration.ZERO, Duration.ofMillis(999), Duration.ofSeconds(59),
                Duration.ofMinutes(59).plusSeconds(59), Duration.ofHours(1), Duration.ofHours(27).plusSeconds(61),
                Duration.ofSeconds(-5)}) {
            assertEquals(duration.toString(), Progress.clock(duration), Figures.clock(duration));
        }
        assertEquals("01:02", Figures.clock(Duration.ofSeconds(62)));
        assertEquals("1:00:01", Figures.clock(Duration.ofSeconds(3601)));
    }
}
