package nni.tuners.internal;

/** The standard normal distribution's functions the tuners need (Java has none built in). */
final class Normal {

    private Normal() {
    }

    /** @return the CDF of N(0, 1) at {@code x}; absolute error below 1e-7 */
    static double cdf(double x) {
        return 0.5 * erfc(-x / Math.sqrt(2));
    }

    /** Complementary error function (Numerical Recipes' Chebyshev fit, fractional error below 1.2e-7). */
    static double erfc(double x) {
        double z = Math.abs(x);
        double t = 1 / (1 + 0.5 * z);
        double r = t * Math.exp(-z * z - 1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418
                + t * (-0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587
                + t * (-0.82215223 + t * 0.17087277)))))))));
        return x >= 0 ? r : 2 - r;
    }

    /**
     * @return the quantile of N(0, 1) at {@code p} in (0, 1) (Acklam's rational approximation,
     *         relative error below 1.2e-9); -inf at 0, +inf at 1
     */
    static double quantile(double p) {
        if (p <= 0) {
            return Double.NEGATIVE_INFINITY;
        }
        if (p >= 1) {
            return Double.POSITIVE_INFINITY;
        }
        double[] a = {-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02, 1.383577518672690e+02,
            -3.066479806614716e+01, 2.506628277459239e+00};
        double[] b = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02, 6.680131188771972e+01,
            -1.328068155288572e+01};
        double[] c = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00, -2.549732539343734e+00,
            4.374664141464968e+00, 2.938163982698783e+00};
        double[] d = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00, 3.754408661907416e+00};
        double low = 0.02425;
        if (p < low) {
            double q = Math.sqrt(-2 * Math.log(p));
            return (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5])
                    / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
        }
        if (p > 1 - low) {
            double q = Math.sqrt(-2 * Math.log(1 - p));
            return -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5])
                    / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
        }
        double q = p - 0.5;
        double r = q * q;
        return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q
                / (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
    }

    /** @return log of the N(mu, sigma) density at x */
    static double logPdf(double x, double mu, double sigma) {
        double z = (x - mu) / sigma;
        return -0.5 * z * z - Math.log(sigma) - 0.5 * Math.log(2 * Math.PI);
    }
}
