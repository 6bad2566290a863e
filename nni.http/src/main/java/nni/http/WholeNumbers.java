package nni.http;

import java.math.BigInteger;

/**
 * Whole numbers in request bodies, as {@link JsonBodies} reads them (Integer, Long,
 * BigInteger; a number written with a fraction or an exponent is a BigDecimal): range-checked and
 * never converted to fit, so {@code 1e400} or {@code 4294967297} is a 400 naming the field and its
 * range rather than {@code Long.MAX_VALUE} or {@code 1}.
 */
public final class WholeNumbers {

    private WholeNumbers() {
    }

    /**
     * @throws HttpError 400 when the value is missing, not a whole number or out of range
     */
    public static long require(String field, Object value, long min, long max) {
        Long checked = optional(field, value, min, max);
        if (checked == null) {
            throw problem(field, min, max, null);
        }
        return checked;
    }

    /**
     * @return the value, or null when absent
     * @throws HttpError 400 when the value is not a whole number or out of range
     */
    public static Long optional(String field, Object value, long min, long max) {
        if (value == null) {
            return null;
        }
        // Integer and Long compared as they are: every keeper report has two or three of them
        if (value instanceof Integer || value instanceof Long) {
            long number = ((Number) value).longValue();
            if (number >= min && number <= max) {
                return number;
            }
        } else if (value instanceof BigInteger number
                && number.compareTo(BigInteger.valueOf(min)) >= 0 && number.compareTo(BigInteger.valueOf(max)) <= 0) {
            return number.longValue();
        }
        throw problem(field, min, max, value);
    }

    private static HttpError problem(String field, long min, long max, Object value) {
        String shown = value == null ? "nothing" : value instanceof String text ? "\"" + text + "\"" : String.valueOf(value);
        if (shown.length() > 60) {
            shown = shown.substring(0, 57) + "...";
        }
        return HttpError.badRequest(field + ": expected an integer " + min + "-" + max + ", got " + shown);
    }
}
