package nni.manager.internal.experiment;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertThrows;

import java.util.ArrayList;
import java.util.List;

import org.junit.Test;

/** A trial's intermediate results: kept in order through every growth, copied out unmodifiable. */
public class NumberSeriesTest {

    @Test
    public void keepsEveryResultInOrderAcrossGrowthAndCopiesThemOut() {
        NumberSeries series = new NumberSeries();
        assertEquals(0, series.size());
        assertNull(series.latest());
        assertEquals(List.of(), series.toList());
        List<Double> expected = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            double value = i * 0.5 - 7;
            series.add(value);
            expected.add(value);
        }
        List<Double> copy = series.toList();
        assertEquals(expected, copy);
        assertEquals(1000, series.size());
        assertEquals(Double.valueOf(492.5), series.latest());
        series.add(Double.NaN);
        assertEquals("a copy does not follow later results", 1000, copy.size());
        assertEquals(Double.valueOf(Double.NaN), series.latest());
        assertThrows(UnsupportedOperationException.class, () -> copy.add(1.0));
    }
}
