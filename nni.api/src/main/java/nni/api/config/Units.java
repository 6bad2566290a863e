package nni.api.config;

import java.util.Locale;
import java.util.regex.Pattern;

/**
 * NNI's duration and size notation ({@code 1.5h}, {@code 30m}, {@code 8gb}): the unit is the first
 * of NNI's suffixes the lower-cased text ends with, the rest is a decimal number, and the result is
 * rounded up ({@code 512kb} is 1 MB). A bare number is already in the target unit.
 */
public final class Units {

    private static final String[] TIME_UNITS = {"d", "h", "m", "s"};
    private static final long[] TIME_FACTORS = {86400, 3600, 60, 1};
    private static final String[] SIZE_UNITS = {"tb", "gb", "mb", "kb", "b"};
    private static final double[] SIZE_FACTORS = {Math.pow(1024, 4), Math.pow(1024, 3), Math.pow(1024, 2), 1024, 1};
    private static final Pattern DECIMAL = Pattern.compile("[+-]?(\\d+\\.?\\d*|\\.\\d+)([eE][+-]?\\d+)?");

    private Units() {
    }

    /**
     * @param value a number of seconds or a string such as {@code 1.5h}
     * @return whole seconds, rounded up
     * @throws IllegalArgumentException with a message for a person when the value is not a duration
     */
    public static long seconds(Object value) {
        if (isWhole(value)) {
            return ((Number) value).longValue();
        }
        if (value instanceof String text) {
            String lower = text.strip().toLowerCase(Locale.ROOT);
            for (int i = 0; i < TIME_UNITS.length; i++) {
                if (lower.endsWith(TIME_UNITS[i])) {
                    return whole(number(text, lower.substring(0, lower.length() - 1), "1.5h, 30m, 10s, 2d") * TIME_FACTORS[i],
                            text, "seconds");
                }
            }
        }
        throw new IllegalArgumentException("expected a duration such as 1.5h, 30m, 10s, 2d or a number of seconds, got "
                + describe(value));
    }

    /**
     * @param value a number of megabytes or a string such as {@code 8gb}
     * @return whole megabytes, rounded up
     * @throws IllegalArgumentException with a message for a person when the value is not a size
     */
    public static long megabytes(Object value) {
        if (isWhole(value)) {
            return ((Number) value).longValue();
        }
        if (value instanceof String text) {
            String lower = text.strip().toLowerCase(Locale.ROOT);
            for (int i = 0; i < SIZE_UNITS.length; i++) {
                if (lower.endsWith(SIZE_UNITS[i])) {
                    String digits = lower.substring(0, lower.length() - SIZE_UNITS[i].length());
                    return whole(number(text, digits, "8gb, 512mb") * SIZE_FACTORS[i] / SIZE_FACTORS[2], text, "megabytes");
                }
            }
        }
        throw new IllegalArgumentException("expected a size such as 8gb, 512mb or a number of megabytes, got "
                + describe(value));
    }

    /** Integer, Long, Short or Byte: a whole number taken as it is (wider or fractional numbers are not). */
    private static boolean isWhole(Object value) {
        return value instanceof Integer || value instanceof Long || value instanceof Short || value instanceof Byte;
    }

    /** Rounds up; a result that does not fit a long is refused, never clamped. */
    private static long whole(double amount, String text, String unit) {
        double rounded = Math.ceil(amount);
        if (!Double.isFinite(rounded) || rounded >= 0x1p63 || rounded < -0x1p63) {
            throw new IllegalArgumentException("expected at most " + Long.MAX_VALUE + " " + unit + ", got " + describe(text));
        }
        return (long) rounded;
    }

    private static double number(String text, String digits, String examples) {
        String trimmed = digits.strip();
        if (!DECIMAL.matcher(trimmed).matches()) {
            throw new IllegalArgumentException("expected a number followed by a unit (" + examples + "), got "
                    + describe(text));
        }
        return Double.parseDouble(trimmed);
    }

    /** @return a short description of a parsed value for an error message: {@code "22a"}, {@code 0.5}, {@code a list} */
    public static String describe(Object value) {
        if (value == null) {
            return "nothing (null)";
        }
        if (value instanceof String text) {
            return "\"" + (text.length() > 60 ? text.substring(0, 57) + "..." : text) + "\"";
        }
        if (value instanceof java.util.Map<?, ?>) {
            return "a mapping";
        }
        if (value instanceof java.util.List<?>) {
            return "a list";
        }
        return String.valueOf(value);
    }
}
