package nni.shell.internal.command;

import java.time.Duration;

/**
 * Numbers and durations as the console writes them, the way the engine's progress line writes them
 * (FiguresTest holds the two to the same text), so that a table and nni:top agree.
 */
final class Figures {

    private Figures() {
    }

    /** @return a whole number without a fraction, any other in six significant digits */
    static String number(double value) {
        return value == Math.rint(value) && Math.abs(value) < 1e15 ? Long.toString((long) value)
                : String.format("%.6g", value);
    }

    /** @return {@code mm:ss}, or {@code h:mm:ss} from an hour on; a negative duration as 00:00 */
    static String clock(Duration duration) {
        long seconds = Math.max(0, duration.toSeconds());
        return seconds >= 3600 ? String.format("%d:%02d:%02d", seconds / 3600, seconds / 60 % 60, seconds % 60)
                : String.format("%02d:%02d", seconds / 60, seconds % 60);
    }
}
