package nni.api.config;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import org.junit.Test;

/** NNI's duration and size rules (nni-config.md §1.2). */
public class UnitsTest {

    @Test
    public void durationsUseTheFirstMatchingUnitAndRoundUp() {
        assertEquals(5400, Units.seconds("1.5h"));
        assertEquals(600, Units.seconds("10m"));
        assertEquals(10, Units.seconds("10s"));
        assertEquals(172800, Units.seconds("2d"));
        assertEquals(1800, Units.seconds("0.5h"));
        assertEquals(1, Units.seconds("0.1s"));
        assertEquals(3600, Units.seconds("1H"));
    }

    @Test
    public void aBareNumberIsSeconds() {
        assertEquals(60, Units.seconds(60));
        assertEquals(60, Units.seconds(60L));
    }

    @Test
    public void unknownUnitsAreRefused() {
        for (String bad : new String[] {"10min", "1ms", "h", "1.5", "abc", "1e", "NaNs"}) {
            IllegalArgumentException e = assertThrows(bad, IllegalArgumentException.class, () -> Units.seconds(bad));
            assertTrue(e.getMessage(), e.getMessage().contains("\"" + bad + "\""));
        }
        assertThrows(IllegalArgumentException.class, () -> Units.seconds(1.5));
    }

    @Test
    public void sizesAreMegabytesRoundedUp() {
        assertEquals(8192, Units.megabytes("8gb"));
        assertEquals(8192, Units.megabytes("8GB"));
        assertEquals(512, Units.megabytes("512mb"));
        assertEquals(1, Units.megabytes("512kb"));
        assertEquals(1024 * 1024, Units.megabytes("1tb"));
        assertEquals(1, Units.megabytes("10b"));
        assertEquals(8196, Units.megabytes(8196));
        assertThrows(IllegalArgumentException.class, () -> Units.megabytes("8g"));
    }

    @Test
    public void valuesTooLargeForALongAreRefusedNotClamped() {
        for (String huge : new String[] {"1e400h", "1e30d", "9223372036854775808s", "1e400tb"}) {
            IllegalArgumentException e = assertThrows(huge, IllegalArgumentException.class,
                    () -> {
                        long ignored = huge.endsWith("tb") ? Units.megabytes(huge) : Units.seconds(huge);
                    });
            assertTrue(e.getMessage(), e.getMessage().contains("at most") && e.getMessage().contains("\"" + huge + "\""));
        }
        assertThrows(IllegalArgumentException.class, () -> Units.seconds(new java.math.BigInteger("18446744073709551617")));
        assertThrows(IllegalArgumentException.class, () -> Units.seconds(new java.math.BigDecimal("1e400")));
    }
}
