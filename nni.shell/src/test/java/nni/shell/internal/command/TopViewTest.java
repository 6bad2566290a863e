package nni.shell.internal.command;

import static org.junit.Assert.assertEquals;

import java.util.List;

import org.junit.Test;

/** Issue 29: nni:top wraps its lines itself, so that a redraw knows how many rows to go back over. */
public class TopViewTest {

    @Test
    public void linesAreWrappedAtSpacesBelowTheTerminalsWidth() {
        String line = "abc12345 RUNNING  done 3/8  running 2  waiting 0  failed 0";
        List<String> rows = TopView.wrap(line, 30);
        assertEquals(List.of("abc12345 RUNNING  done 3/8", "running 2  waiting 0  failed", "0"), rows);
        rows.forEach(row -> assertEquals(row, true, row.length() < 30));
        assertEquals(List.of(line), TopView.wrap(line, 200));
    }

    @Test
    public void aWordWiderThanTheTerminalIsCut() {
        assertEquals(List.of("abcdefghijk", "l"), TopView.wrap("abcdefghijkl", 12));
    }
}
