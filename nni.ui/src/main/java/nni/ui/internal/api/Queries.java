package nni.ui.internal.api;

import java.math.BigInteger;

import jakarta.servlet.http.HttpServletRequest;

import nni.http.HttpError;
import nni.http.WholeNumbers;

/** Numbers in the UI routes' query strings, checked as request bodies' numbers are. */
final class Queries {

    private Queries() {
    }

    /**
     * @return the parameter's value, or {@code absent} when it is not given
     * @throws HttpError 400 naming the parameter and its range when it is not a whole number in range
     */
    static long whole(HttpServletRequest request, String name, long absent, long min, long max) {
        String text = request.getParameter(name);
        if (text == null || text.isEmpty()) {
            return absent;
        }
        Object value;
        try {
            value = new BigInteger(text);
        } catch (NumberFormatException e) {
            value = text;
        }
        return WholeNumbers.require(name, value, min, max);
    }
}
